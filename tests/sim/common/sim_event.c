/* sim_event.c: what streams do to a simulated event (sim_event.h). */
#include "sim_event.h"

#include "sim_core.h"

unsigned long sim_event_queue_record(sim_event_marks_t *marks)
{
    marks->refs++;
    return ++marks->recorded;
}

unsigned long sim_event_queue_wait(sim_event_marks_t *marks)
{
    marks->refs++;
    return marks->recorded;
}

void sim_event_reach(sim_event_marks_t *marks, unsigned long generation)
{
    if (generation > marks->completed) {
        marks->completed = generation;
        marks->time_ns = sim_now_ns();
    }
}

void sim_event_wait(sim_event_marks_t *marks, unsigned long generation)
{
    while (marks->completed < generation)
        pthread_cond_wait(&sim_changed, &sim_lock);
}

void sim_event_synchronize(sim_event_marks_t *marks)
{
    sim_event_wait(marks, marks->recorded);
}

bool sim_event_done(const sim_event_marks_t *marks)
{
    return marks->completed == marks->recorded;
}

bool sim_event_release_task(sim_event_marks_t *marks)
{
    return --marks->refs == 0 && marks->destroyed;
}

bool sim_event_destroy(sim_event_marks_t *marks)
{
    marks->destroyed = true;
    return marks->refs == 0;
}
