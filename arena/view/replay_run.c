/* The replay commands (replay_run.h): verify, show, html. */
#include "view/replay_run.h"

#include "core/json_w.h"
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "replay.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* A replay opened by no step yet: arena_replay_close frees nothing. */
static void start(arena_replay *c, const char *path)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->seat = VIEWER_ALL;
}

void arena_replay_close(arena_replay *c)
{
    viewer_close(&c->r, &c->m);
}

/* ---- verify ---------------------------------------------------------------- */

int arena_replay_verify_prepare(arena_replay *c, const char *path, char *err, size_t cap)
{
    start(c, path);
    return ref_replay_load(path, &c->r, err, cap);
}

/* verify --json: the object, whether the replay verifies (rc) or not (why). */
static void verify_json(FILE *out, const ref_replay *r, int rc, const char *hex, const char *why)
{
    json_w w;
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_bool(&w, "ok", rc == JA_OK);
    jw_str(&w, "game", r->h.game);
    jw_int(&w, "decisions", r->n_steps);
    /* The time control and fault policy the match was played under. */
    jw_int(&w, "move_ms", r->h.move_ms);
    jw_int(&w, "bank_ms", r->h.bank_ms);
    jw_str(&w, "on_fault", r->h.on_fault);
    if (rc == JA_OK)
        jw_str(&w, "digest", hex);
    else {
        jw_null(&w, "digest");
        jw_str(&w, "error", why);
    }
    jw_obj_end(&w);
    jw_end(&w);
}

int arena_replay_verify_run(arena_replay *c, FILE *out, bool json, char *err, size_t cap)
{
    const ref_replay *r = c->r;
    char why[1200], hex[REF_DIGEST_HEX];
    uint8_t digest[REF_DIGEST_BYTES];
    int rc = ref_replay_verify(r, digest, why, sizeof why);
    ref_digest_hex(rc == JA_OK ? digest : r->digest, hex);
    if (json)
        verify_json(out, r, rc, hex, why);
    else if (rc == JA_OK)
        fprintf(out, "ok: %s, %u seats, seed %llu, %u decisions\ndigest %s\n", r->h.game,
                (unsigned)r->h.n_seats, (unsigned long long)r->h.seed, r->n_steps, hex);
    if (rc != JA_OK && json && cap > 0)
        err[0] = '\0'; /* the object says why */
    else if (rc != JA_OK)
        snprintf(err, cap, "replay '%s' does not verify: %s", c->path, why);
    return rc;
}

/* ---- show ------------------------------------------------------------------ */

static struct termios g_saved_tio;
static volatile sig_atomic_t g_raw = 0;

static void tty_restore(void)
{
    if (g_raw) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved_tio);
        g_raw = 0;
        /* show the cursor again */
        (void)!write(STDOUT_FILENO, "\033[?25h", 6);
    }
}

/* Restores the terminal, then dies of the same signal. */
static void on_signal(int sig)
{
    tty_restore();
    signal(sig, SIG_DFL);
    raise(sig);
}

static bool tty_raw(void)
{
    if (tcgetattr(STDIN_FILENO, &g_saved_tio) != 0)
        return false;
    struct termios t = g_saved_tio;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) != 0)
        return false;
    g_raw = 1;
    atexit(tty_restore);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on_signal);
    return true;
}

/* One key: a letter, or 'R'/'L'/'H'/'E' for the arrows right/left, home, end.
 * -1 at end of input. */
static int read_key(void)
{
    unsigned char c;
    ssize_t n;
    do
        n = read(STDIN_FILENO, &c, 1);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return -1;
    if (c != 27)
        return c;
    unsigned char seq[2];
    if (read(STDIN_FILENO, &seq[0], 1) != 1 || read(STDIN_FILENO, &seq[1], 1) != 1)
        return 'q';
    switch (seq[1]) {
    case 'C': return 'R';
    case 'D': return 'L';
    case 'H': return 'H';
    case 'F': return 'E';
    default: return 0;
    }
}

/* A fault at frame fr that the view shows (a seat's view: its own faults;
 * the public view shows no records, so none). */
static bool frame_has_fault(const viewer_model *m, uint32_t fr, int seat)
{
    if (fr == 0 || seat == VIEWER_PUBLIC)
        return false;
    const ref_replay_step *sp = viewer_step(m, fr);
    for (uint32_t k = 0; k < sp->n; k++)
        if (m->r->recs[sp->first + k].fault &&
            (seat == VIEWER_ALL || m->r->recs[sp->first + k].seat == (uint32_t)seat))
            return true;
    return false;
}

/* One screen of the keyboard view: the header, frame fr as seat sees it
 * (the outcome too at the last frame), and the keys. */
static void draw_screen(FILE *out, const viewer_model *m, uint32_t fr, int seat,
                        const viewer_style *st)
{
    uint32_t last = m->n_frames - 1;
    fputs("\033[H\033[2J\033[?25l", out);
    viewer_text_header(out, m, seat, st);
    if (seat >= 0)
        fprintf(out, "view: seat %d only (what it saw)\n", seat);
    else if (seat == VIEWER_PUBLIC)
        fputs("view: public (what the table shows to everyone)\n", out);
    fputc('\n', out);
    viewer_text_frame(out, m, fr, seat, st);
    if (fr == last) {
        fputc('\n', out);
        viewer_text_outcome(out, m, st);
    }
    if (seat >= 0)
        fprintf(out, "\n[seat %d] right/l/space next", seat);
    else if (seat == VIEWER_PUBLIC)
        fputs("\n[public] right/l/space next", out);
    else
        fprintf(out, "\n[%u/%u] right/l/space next", fr, last);
    fprintf(out, ", left/h back, n/p fault, g/G first/last, q quit\n");
    fflush(out);
}

/* The frame key k (read_key) leads to from frame fr, among those seat
 * sees; -1 for a key that quits, or the end of input. */
static int64_t frame_after_key(const viewer_model *m, uint32_t fr, int seat, int k)
{
    uint32_t last = m->n_frames - 1;
    switch (k) {
    case -1: case 'q': case 'Q': case 3:
        return -1;
    case 'R': case 'l': case ' ': case '\n': case '\r': case 'j':
        while (fr < last && !viewer_seat_sees(m, ++fr, seat))
            ;
        return fr;
    case 'L': case 'h': case 127: case 8: case 'k':
        while (fr > 0 && !viewer_seat_sees(m, --fr, seat))
            ;
        return fr;
    case 'H': case 'g':
        return 0;
    case 'E': case 'G':
        return last;
    case 'n':
        for (uint32_t x = fr + 1; x <= last; x++)
            if (frame_has_fault(m, x, seat))
                return x;
        return fr;
    case 'p':
        for (uint32_t x = fr; x-- > 0;)
            if (frame_has_fault(m, x, seat))
                return x;
        return fr;
    default:
        return fr;
    }
}

/* Steps through the frames with the keyboard until q or end of input. */
static void show_interactive(FILE *out, const viewer_model *m, int seat, const viewer_style *st)
{
    for (int64_t fr = 0; fr >= 0; fr = frame_after_key(m, (uint32_t)fr, seat, read_key()))
        draw_screen(out, m, (uint32_t)fr, seat, st);
}

/* Opens the replay at path and re-simulates it into its model. On failure
 * r may stay loaded (arena_replay_close frees it). */
static int open_model(arena_replay *c, const char *path, char *err, size_t cap)
{
    start(c, path);
    int rc = viewer_load(path, &c->r, err, cap);
    if (rc == JA_OK)
        rc = viewer_resimulate(path, c->r, &c->m, err, cap);
    return rc;
}

int arena_replay_show_prepare(arena_replay *c, const char *path, bool have_seat, uint32_t seat,
                              bool public_view, char *err, size_t cap)
{
    int rc = open_model(c, path, err, cap);
    if (rc != JA_OK)
        return rc;
    if (public_view) {
        if (!c->m.pub) {
            snprintf(err, cap, "replay show: %s has no public view (JA_EXT_OBSERVE_PUBLIC)",
                     c->m.g->name);
            return JA_EUNSUPPORTED;
        }
        c->seat = VIEWER_PUBLIC;
        return JA_OK;
    }
    if (have_seat && seat >= c->m.n_seats) {
        snprintf(err, cap, "replay show: --seat %u is out of range (the match has seats 0..%u)",
                 (unsigned)seat, (unsigned)c->m.n_seats - 1);
        return JA_ERANGE;
    }
    c->seat = have_seat ? (int)seat : VIEWER_ALL;
    return JA_OK;
}

int arena_replay_show_run(arena_replay *c, FILE *out, char *err, size_t cap)
{
    viewer_style st = viewer_style_for(out);
    if (out == stdout && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && tty_raw()) {
        show_interactive(out, &c->m, c->seat, &st);
        tty_restore();
    } else {
        viewer_text_dump(out, &c->m, c->seat, &st);
    }
    if (fflush(out) == 0)
        return JA_OK;
    if (cap > 0)
        err[0] = '\0'; /* what failed is out itself */
    return JA_EIO;
}

/* ---- html ------------------------------------------------------------------ */

int arena_replay_html_prepare(arena_replay *c, const char *path, char *err, size_t cap)
{
    return open_model(c, path, err, cap);
}

int arena_replay_html_run(arena_replay *c, const char *out_path, char *err, size_t cap)
{
    return viewer_html_replay(&c->m, out_path, NULL, false, err, cap);
}
