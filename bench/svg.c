/* svg.c: `accel bench --svg FILE`, a hand-written SVG bar chart of every
 * figure's ratio (accel speed / baseline speed) on a log scale from 0.01 to
 * 100, with the parity line at 1.0 and each figure's own goal as a tick on
 * its row. Figures without a ratio show why ("noisy", "no baseline"). */
#include <math.h>
#include <string.h>

#include "bench.h"

#define SVG_WIDTH   1100
#define SVG_LABEL_W 330 /* left column: "suite  figure" */
#define SVG_PLOT_W  620
#define SVG_ROW_H   26
#define SVG_TOP     78
#define SVG_LOG_MIN (-2.0) /* 0.01 */
#define SVG_LOG_MAX 2.0    /* 100 */

static double svg_x(double ratio)
{
    double l = log10(ratio);
    if (l < SVG_LOG_MIN)
        l = SVG_LOG_MIN;
    if (l > SVG_LOG_MAX)
        l = SVG_LOG_MAX;
    return SVG_LABEL_W + (l - SVG_LOG_MIN) / (SVG_LOG_MAX - SVG_LOG_MIN) * SVG_PLOT_W;
}

/* Text with &, <, > and quotes escaped. */
static void svg_text(FILE *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*p, out);
        }
    }
}

static void svg_row(FILE *out, const bench_figure_t *f, int y)
{
    double x1 = svg_x(1.0);
    fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"suite\">", 12, y + 17);
    svg_text(out, f->suite);
    fprintf(out, "</text><text x=\"%d\" y=\"%d\" class=\"label\">", 90, y + 17);
    svg_text(out, f->name);
    fputs("</text>\n", out);
    if (f->ratio_status == BENCH_RATIO_OK) {
        double x = svg_x(f->ratio);
        bool meets = f->has_goal ? f->ratio >= f->goal : f->ratio >= 1.0;
        double left = x < x1 ? x : x1, width = fabs(x - x1);
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"%s\"/>\n"
                "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.2fx</text>\n",
                left, y + 4, width < 1 ? 1 : width, SVG_ROW_H - 8, meets ? "good" : "bad",
                (x < x1 ? x1 : x) + 6, y + 17, f->ratio);
    } else {
        const char *why = f->failed                              ? "failed"
                          : f->ratio_status == BENCH_RATIO_NOISY ? "noisy: ratio withheld"
                                                                 : "no baseline";
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"missing\">%s</text>\n", x1 + 6, y + 17,
                why);
    }
    if (f->has_goal) {
        double gx = svg_x(f->goal);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"goal\"/>\n", gx,
                y + 1, gx, y + SVG_ROW_H - 1);
    }
}

bool bench_write_svg(const bench_ctx_t *ctx, FILE *out)
{
    int rows = ctx->figure_count;
    int plot_bottom = SVG_TOP + rows * SVG_ROW_H;
    int height = plot_bottom + 64;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            "<style>\n"
            ".title{font-size:18px;font-weight:bold} .sub{font-size:12px;fill:#444}\n"
            ".suite{font-size:12px;fill:#666} .label{font-size:13px}\n"
            ".value{font-size:12px} .missing{font-size:12px;fill:#888;font-style:italic}\n"
            ".tick{font-size:11px;fill:#444;text-anchor:middle}\n"
            ".grid{stroke:#ddd;stroke-width:1} .parity{stroke:#000;stroke-width:2}\n"
            ".goal{stroke:#d62728;stroke-width:3} .good{fill:#4c9f70} .bad{fill:#e0a040}\n"
            "</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
    fputs("<text x=\"12\" y=\"26\" class=\"title\">accel bench: ", out);
    svg_text(out, ctx->backend);
    fprintf(out, "%s</text>\n", ctx->quick ? " (--quick)" : "");
    fputs("<text x=\"12\" y=\"46\" class=\"sub\">ratio = accel speed / baseline speed, same run "
          "(log scale; right of the black line = accel faster). Red tick: the figure's goal. "
          "Green: goal met.</text>\n",
          out);
    for (int e = (int)SVG_LOG_MIN; e <= (int)SVG_LOG_MAX; e++) {
        double x = svg_x(pow(10.0, e));
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>\n"
                "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%g</text>\n",
                x, SVG_TOP - 6, x, plot_bottom, x, SVG_TOP - 10, pow(10.0, e));
    }
    for (int i = 0; i < rows; i++) {
        if (i % 2 == 1)
            fprintf(out, "<rect x=\"4\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f6f6\"/>\n",
                    SVG_TOP + i * SVG_ROW_H, SVG_WIDTH - 8, SVG_ROW_H);
    }
    for (int e = (int)SVG_LOG_MIN; e <= (int)SVG_LOG_MAX; e++) {
        double x = svg_x(pow(10.0, e));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>\n", x,
                SVG_TOP, x, plot_bottom);
    }
    for (int i = 0; i < rows; i++)
        svg_row(out, &ctx->figures[i], SVG_TOP + i * SVG_ROW_H);
    double x1 = svg_x(1.0);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"parity\"/>\n"
            "<text x=\"%.1f\" y=\"%d\" class=\"tick\">1.0 = as fast as the baseline</text>\n",
            x1, SVG_TOP - 4, x1, plot_bottom + 4, x1, plot_bottom + 20);
    fprintf(out,
            "<text x=\"12\" y=\"%d\" class=\"sub\">Ratios are withheld (\"noisy\") when "
            "(p90-p10)/median of either side exceeds %.0f%% and the p10-p90 ranges "
            "overlap.</text>\n</svg>\n",
            plot_bottom + 44, BENCH_NOISE_THRESHOLD * 100);
    return !ferror(out);
}
