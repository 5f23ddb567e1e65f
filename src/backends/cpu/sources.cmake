# The CPU backend's sources, relative to src/ (included by src/CMakeLists.txt
# when ACCEL_BACKEND_CPU is ON).
list(APPEND ACCEL_BACKEND_SOURCES
  backends/cpu/backend.c
  backends/cpu/event.c
  backends/cpu/fork.c
  backends/cpu/graph.c
  backends/cpu/memory.c
  backends/cpu/rng.c
  backends/cpu/stream.c
)
