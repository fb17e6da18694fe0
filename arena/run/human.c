/* Human seats (human.h): the kind `human` of the seat interface, and the
 * terminal it plays in. */
#include "run/human.h"
#include "run/human_web.h"

#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define NAME_MAX_LEN 64
#define LABEL_MAX HUMAN_LABEL_MAX
#define LINE_MAX_LEN 128   /* an answer's line; a longer one is refused */

typedef struct human_seat human_seat;

typedef struct human_bot {
    ref_bot base;
    arena_human_opts o;
    human_seat *seat;          /* the seat open now (a human plays one match at a time) */
    human_web *web;            /* the browser's page (o.http); NULL: the terminal */
} human_bot;

/* One seat of one match: what its person may see, and the decision put to
 * it. */
struct human_seat {
    ref_seat base;
    human_bot *b;
    const ja_game_rules *g;
    uint32_t n_seats;
    char names[JA_MAX_SEATS][NAME_MAX_LEN];
    const char *name_of[JA_MAX_SEATS];
    unsigned char *obs;        /* the seat's newest observation (obs_size bytes) */
    bool seen;                 /* obs holds one */
    /* The decision asked: its turn, legal actions and their labels. */
    uint32_t turn, n_legal;
    ja_action *legal;          /* max_actions */
    char (*label)[LABEL_MAX];  /* max_actions */
    ref_answer answer;         /* the person's, for collect */
};

static const ref_bot_ops human_ops;

bool arena_human_is(const ref_bot *b)
{
    return b && b->ops == &human_ops;
}

/* ---- the terminal ----------------------------------------------------------- */

/* The width the screen is drawn to: the terminal's, else 80 columns. */
static int out_width(FILE *f)
{
    struct winsize ws;
    if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* The legal actions numbered from 1, in as many columns as the width
 * holds. */
static void put_choices(FILE *f, const human_seat *s, int width)
{
    size_t longest = 0;
    for (uint32_t i = 0; i < s->n_legal; i++)
        if (strlen(s->label[i]) > longest)
            longest = strlen(s->label[i]);
    int digits = s->n_legal >= 100 ? 3 : s->n_legal >= 10 ? 2 : 1;
    int cell = 2 + digits + 2 + (int)longest + 1;
    int cols = width / cell > 0 ? width / cell : 1;
    int rows = ((int)s->n_legal + cols - 1) / cols;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int i = c * rows + r; /* down the columns, as `ls` lists */
            if (i >= (int)s->n_legal)
                break;
            bool last = c + 1 == cols || (c + 1) * rows + r >= (int)s->n_legal;
            fprintf(f, "  %*d) %-*s", digits, i + 1, last ? 0 : (int)longest + 1, s->label[i]);
        }
        fputc('\n', f);
    }
}

/* The seat's view and its choices, as one screen fitted to the width. */
static void put_screen(human_seat *s, const char *title, bool choices)
{
    FILE *out = s->b->o.out;
    viewer_style st = viewer_style_for(out);
    int width = out_width(out);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    fprintf(f, "\n== %s ==\n", title);
    if (s->seen)
        viewer_text_obs(f, s->g, s->n_seats, s->name_of, (uint32_t)s->base.seat, s->obs, &st);
    if (choices) {
        fputs("your choices:\n", f);
        put_choices(f, s, width);
    }
    fclose(f);
    viewer_text_wrap(out, buf, width);
    free(buf);
    fflush(out);
}

/* What the line typed says: a choice (its index), or why it is none
 * (static text naming the problem). */
static const char *read_choice(const char *line, uint32_t n, uint32_t *index)
{
    while (*line == ' ' || *line == '\t')
        line++;
    char *end = NULL;
    unsigned long v = strtoul(line, &end, 10);
    if (end == line || (*end && strspn(end, " \t\r\n") != strlen(end)))
        return "not a number";
    if (v < 1 || v > n)
        return "not one of the choices";
    *index = (uint32_t)(v - 1);
    return NULL;
}

/* One line of the input into line (cap bytes): true, or false at its end.
 * A line longer than the buffer is read whole and returned cut (then not a
 * number). */
static bool read_line(FILE *in, char *line, size_t cap)
{
    /* Waits for the input or a signal: the signal's handler may run on
     * another thread, so the read itself would not be cut short. */
    struct pollfd pf[2] = {{fileno(in), POLLIN, 0}, {human_signals_fd(), POLLIN, 0}};
    while (!human_signals_left() && poll(pf, pf[1].fd >= 0 ? 2 : 1, -1) < 0 && errno == EINTR)
        ;
    if (human_signals_left() || !fgets(line, (int)cap, in))
        return false;
    if (!strchr(line, '\n')) {
        int c;
        while ((c = fgetc(in)) != EOF && c != '\n')
            ;
    }
    return true;
}

/* Asks the person in the terminal until a choice or a quit: the answer, or
 * left set. */
static void ask_terminal(human_seat *s, ref_answer *a)
{
    FILE *in = s->b->o.in, *out = s->b->o.out;
    char title[96];
    snprintf(title, sizeof title, "your turn (seat %d)", (int)s->base.seat);
    put_screen(s, title, true);
    for (;;) {
        if ((a->left = human_signals_left()))
            return;
        fprintf(out, "your choice (1-%u, q to quit): ", (unsigned)s->n_legal);
        fflush(out);
        char line[LINE_MAX_LEN];
        if (!read_line(in, line, sizeof line)) {
            fputc('\n', out);
            a->left = human_signals_left();
            if (!a->left)
                a->left = "its input ended before the match did";
            return;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "q") == 0 || strcmp(line, "quit") == 0) {
            a->left = "it quit";
            return;
        }
        const char *why = read_choice(line, s->n_legal, &a->index);
        if (!why)
            return;
        if (line[strspn(line, " \t")]) /* an empty line is only asked again */
            fprintf(out, "'%.40s' is %s: ", line, why);
        fprintf(out, "type a number from 1 to %u and Enter, or q to quit\n",
                (unsigned)s->n_legal);
    }
}

/* ---- the seat interface --------------------------------------------------------- */

static int human_supports(ref_bot *b, const ja_game_rules *g)
{
    (void)b;
    (void)g;
    return 1; /* a person plays any game */
}

/* The terminal's first lines: who the person plays, and how. */
static void put_intro(const human_seat *s)
{
    FILE *out = s->b->o.out;
    fprintf(out, "You play seat %d of %s against", (int)s->base.seat, s->g->title);
    for (uint32_t t = 0, k = 0; t < s->n_seats; t++)
        if ((int32_t)t != s->base.seat)
            fprintf(out, "%s seat %u (%s)", k++ ? "," : "", (unsigned)t, s->name_of[t]);
    fputs(".\nAt each of your decisions: type the number of your choice and Enter; q quits "
          "(the match is then abandoned, its replay not written).\n", out);
    fflush(out);
}

static int human_seat_open(ref_bot *rb, const ref_seat_ctx *ctx, ref_seat **out, char *err,
                           size_t cap)
{
    human_bot *b = (human_bot *)rb;
    if (b->seat) {
        snprintf(err, cap, "a human plays one seat of one match at a time");
        return JA_EBUSY;
    }
    const ja_game_rules *g = ctx->game;
    human_seat *s = ja_xcalloc(1, sizeof *s);
    s->base.bot = rb;
    s->base.seat = ctx->seat;
    s->b = b;
    s->g = g;
    s->n_seats = ctx->n_seats;
    for (uint32_t t = 0; t < ctx->n_seats && t < JA_MAX_SEATS; t++) {
        snprintf(s->names[t], NAME_MAX_LEN, "%s",
                 ctx->players && ctx->players[t] ? ctx->players[t] : "");
        s->name_of[t] = s->names[t];
    }
    s->obs = ja_xcalloc(1, g->obs_size);
    s->legal = ja_xcalloc(g->max_actions, sizeof *s->legal);
    s->label = ja_xcalloc(g->max_actions, sizeof *s->label);
    b->seat = s;
    if (b->web)
        human_web_begin(b->web, g, (uint32_t)s->base.seat, s->n_seats, s->name_of);
    else
        put_intro(s);
    *out = &s->base;
    return JA_OK;
}

/* The decision, kept for collect: the seat's observation, its legal
 * actions and their labels. */
static int human_ask(ref_seat *rs, const ja_decision *d)
{
    human_seat *s = (human_seat *)rs;
    uint32_t n = d->n_legal < s->g->max_actions ? d->n_legal : s->g->max_actions;
    memcpy(s->obs, d->obs, s->g->obs_size);
    s->seen = true;
    s->turn = d->turn;
    s->n_legal = n;
    memcpy(s->legal, d->legal, n * sizeof *s->legal);
    for (uint32_t i = 0; i < n; i++)
        if (s->g->label(s->legal[i], s->label[i], LABEL_MAX) < 0)
            snprintf(s->label[i], LABEL_MAX, "action %u", (unsigned)s->legal[i].code);
    if (s->b->web)
        human_web_ask(s->b->web, s->obs, s->turn, s->legal, (const char (*)[LABEL_MAX])s->label,
                      n);
    return JA_OK;
}

static void human_collect(ref_seat *rs, int64_t deadline_ns, ref_answer *out)
{
    (void)deadline_ns; /* a person has no time limit (ref_bot_ops.unlimited) */
    human_seat *s = (human_seat *)rs;
    ref_answer a = {.fault = JA_FAULT_NONE};
    if (s->b->web)
        a.left = human_web_wait(s->b->web, &a.index);
    else
        ask_terminal(s, &a);
    a.think_us = (uint64_t)(ref_now_ns() - rs->asked_ns) / 1000;
    *out = a;
}

void arena_human_step(ref_bot *rb, const ja_game_rules *g, const ref_step_info *info)
{
    human_seat *s = arena_human_is(rb) ? ((human_bot *)rb)->seat : NULL;
    if (!s || s->g != g)
        return;
    g->observe(info->state, (int)s->base.seat, s->obs);
    s->seen = true;
    if (s->b->web)
        human_web_view(s->b->web, s->obs);
}

/* The end: the seat's last view (in the terminal the result is the
 * caller's to print; the page shows it). */
static void human_end(ref_seat *rs, const ja_outcome *o)
{
    human_seat *s = (human_seat *)rs;
    if (s->b->web)
        human_web_end(s->b->web, o);
    else
        put_screen(s, "the end of the match", false);
}

static void human_seat_close(ref_seat *rs)
{
    human_seat *s = (human_seat *)rs;
    if (s->b->seat == s)
        s->b->seat = NULL;
    free(s->obs);
    free(s->legal);
    free(s->label);
    free(s);
}

static void human_destroy(ref_bot *rb)
{
    if (!((human_bot *)rb)->o.http)
        human_signals_release();
    human_web_stop(&((human_bot *)rb)->web);
    free(rb);
}

static const ref_bot_ops human_ops = {
    .kind = "human",
    .supports = human_supports,
    .seat_open = human_seat_open,
    .ask = human_ask,
    .collect = human_collect,
    .end = human_end,
    .seat_close = human_seat_close,
    .destroy = human_destroy,
    .unlimited = true,
};

int arena_human_open(const arena_human_opts *o, ref_bot **out, char *err, size_t cap)
{
    human_bot *b = ja_xcalloc(1, sizeof *b);
    b->base.ops = &human_ops;
    b->base.info = (ref_bot_info){"human", "human", "", "", ""};
    b->o = *o;
    *out = &b->base;
    if (!o->http) {
        /* Unbuffered, so that what poll() sees waiting is all there is. */
        setvbuf(o->in, NULL, _IONBF, 0);
        human_signals_catch(); /* Ctrl-C: the person leaves, the match is abandoned */
        return JA_OK;
    }
    char url[256];
    int rc = human_web_start(o->http, &b->web, url, sizeof url, err, cap);
    if (rc != JA_OK)
        return rc;
    fprintf(stderr, "Your seat is at %s\nOpen it in a browser to play (the match waits for you "
            "there; Ctrl-C here abandons it).\n", url);
    return JA_OK;
}
