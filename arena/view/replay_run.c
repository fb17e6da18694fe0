/* The replay commands (replay_run.h): verify, show, html. */
#include "view/replay_run.h"

#include "core/json_w.h"
#include "core/util.h"
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "replay.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int arena_replay_verify(FILE *out, const char *path, bool json)
{
    char err[1200];
    ref_replay *r = NULL;
    int rc = ref_replay_load(path, &r, err, sizeof err);
    if (rc != JA_OK) {
        arena_error("%s", err);
        return EXIT_USAGE;
    }
    uint8_t digest[REF_DIGEST_BYTES];
    rc = ref_replay_verify(r, digest, err, sizeof err);
    char hex[REF_DIGEST_HEX];
    ref_digest_hex(rc == JA_OK ? digest : r->digest, hex);
    if (json) {
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
            jw_str(&w, "error", err);
        }
        jw_obj_end(&w);
        jw_end(&w);
    } else if (rc == JA_OK) {
        fprintf(out, "ok: %s, %u seats, seed %llu, %u decisions\ndigest %s\n", r->h.game,
                (unsigned)r->h.n_seats, (unsigned long long)r->h.seed, r->n_steps, hex);
    }
    if (rc != JA_OK && !json)
        arena_error("replay '%s' does not verify: %s", path, err);
    ref_replay_free(&r);
    return rc == JA_OK ? EXIT_OK : EXIT_RUNTIME;
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

/* A fault at frame fr that the view shows (a seat's view: its own faults). */
static bool frame_has_fault(const viewer_model *m, uint32_t fr, int seat)
{
    if (fr == 0)
        return false;
    const ref_replay_step *sp = viewer_step(m, fr);
    for (uint32_t k = 0; k < sp->n; k++)
        if (m->r->recs[sp->first + k].fault &&
            (seat < 0 || m->r->recs[sp->first + k].seat == (uint32_t)seat))
            return true;
    return false;
}

/* Steps through the frames with the keyboard until q or end of input. */
static void show_interactive(FILE *out, const viewer_model *m, int seat, const viewer_style *st)
{
    uint32_t fr = 0, last = m->n_frames - 1;
    for (;;) {
        fputs("\033[H\033[2J\033[?25l", out);
        viewer_text_header(out, m, seat, st);
        if (seat >= 0)
            fprintf(out, "view: seat %d only (what it saw)\n", seat);
        fputc('\n', out);
        viewer_text_frame(out, m, fr, seat, st);
        if (fr == last) {
            fputc('\n', out);
            viewer_text_outcome(out, m, st);
        }
        if (seat >= 0)
            fprintf(out, "\n[seat %d] right/l/space next", seat);
        else
            fprintf(out, "\n[%u/%u] right/l/space next", fr, last);
        fprintf(out, ", left/h back, n/p fault, g/G first/last, q quit\n");
        fflush(out);
        int k = read_key();
        switch (k) {
        case -1: case 'q': case 'Q': case 3:
            return;
        case 'R': case 'l': case ' ': case '\n': case '\r': case 'j':
            while (fr < last && !viewer_seat_sees(m, ++fr, seat))
                ;
            break;
        case 'L': case 'h': case 127: case 8: case 'k':
            while (fr > 0 && !viewer_seat_sees(m, --fr, seat))
                ;
            break;
        case 'H': case 'g':
            fr = 0;
            break;
        case 'E': case 'G':
            fr = last;
            break;
        case 'n':
            for (uint32_t x = fr + 1; x <= last; x++)
                if (frame_has_fault(m, x, seat)) {
                    fr = x;
                    break;
                }
            break;
        case 'p':
            for (uint32_t x = fr; x-- > 0;)
                if (frame_has_fault(m, x, seat)) {
                    fr = x;
                    break;
                }
            break;
        default:
            break;
        }
    }
}

/* The replay at path and its model, with its line printed and the exit
 * status on failure: a load's failure is the file's (a corrupt length may
 * ask for more memory than there is), memory running out re-simulating is
 * not. */
static int open_model(const char *path, ref_replay **r, viewer_model *m)
{
    char err[8192];
    memset(m, 0, sizeof *m);
    int rc = viewer_load(path, r, err, sizeof err);
    if (rc != JA_OK) {
        arena_error("%s", err);
        return EXIT_USAGE;
    }
    if ((rc = viewer_resimulate(path, *r, m, err, sizeof err)) != JA_OK) {
        arena_error("%s", err);
        ref_replay_free(r);
        return rc == JA_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
    return EXIT_OK;
}

int arena_replay_show(FILE *out, const char *path, bool have_seat, uint32_t seat_u)
{
    ref_replay *r;
    viewer_model m;
    int rc = open_model(path, &r, &m);
    if (rc != EXIT_OK)
        return rc;
    if (have_seat && seat_u >= m.n_seats) {
        arena_error("replay show: --seat %u is out of range (the match has seats 0..%u)",
                    (unsigned)seat_u, (unsigned)m.n_seats - 1);
        viewer_close(&r, &m);
        return EXIT_USAGE;
    }
    int seat = have_seat ? (int)seat_u : -1;
    viewer_style st = viewer_style_for(out);
    if (out == stdout && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && tty_raw()) {
        show_interactive(out, &m, seat, &st);
        tty_restore();
    } else {
        viewer_text_dump(out, &m, seat, &st);
    }
    viewer_close(&r, &m);
    return fflush(out) == 0 ? EXIT_OK : EXIT_RUNTIME;
}

/* ---- html ------------------------------------------------------------------ */

int arena_replay_html(const char *path, const char *out_path)
{
    ref_replay *r;
    viewer_model m;
    int rc = open_model(path, &r, &m);
    if (rc != EXIT_OK)
        return rc;
    char err[1200];
    rc = viewer_html_replay(&m, out_path, NULL, false, err, sizeof err);
    viewer_close(&r, &m);
    if (rc != JA_OK) {
        arena_error("%s", err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
