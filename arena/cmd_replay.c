/* `arena replay verify|show|html`: re-simulate a replay under the rules and
 * print the digest of its game content; watch it in the terminal; write its
 * self-contained HTML page. */
#include "cli.h"

#include "jackarena/ja_error.h"
#include "replay.h"
#include "viewer.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static const char HELP[] =
    "usage: arena replay verify FILE [--json]\n"
    "       arena replay show FILE [--seat S]\n"
    "       arena replay html FILE -o OUT.html\n"
    "\n"
    "verify: "
    "Re-simulate every decision of a replay under its game's rules, check every\n"
    "action, the outcome and the recorded digest, and print the digest of the\n"
    "match's game content (the same seed and choices give the same digest on any\n"
    "machine). Exit status 0 when the replay verifies, 1 when it does not, 2 when\n"
    "the file is missing or not a readable replay.\n"
    "\n"
    "show: draw the match in the terminal (omniscient: every seat's cards), or\n"
    "only what seat S saw with --seat S. On a terminal, keys step through it:\n"
    "right/l/space/enter next, left/h/backspace back, n/p next/previous fault,\n"
    "g/G first/last, q quit. Not on a terminal, the whole match is printed.\n"
    "\n"
    "html: write one self-contained page (no network, no other file) that plays\n"
    "the match back in a browser, to OUT.html (written whole at the end; if it is\n"
    "there, it must be a regular file, not a link, FIFO or device) or, with -o -,\n"
    "to the standard output.\n"
    "\n"
    "show and html refuse (exit 2) a replay that is missing, corrupt, truncated,\n"
    "of another format or rules version, or that does not re-simulate.\n";

static int verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'j') {
            json = true;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_error("replay verify: unknown option '%s'", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("replay verify takes one FILE (usage: arena replay verify FILE [--json])");
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
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
        jw_init(&w, stdout);
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
        printf("ok: %s, %u seats, seed %llu, %u decisions\ndigest %s\n", r->h.game,
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
static void show_interactive(const viewer_model *m, int seat, const viewer_style *st)
{
    uint32_t fr = 0, last = m->n_frames - 1;
    for (;;) {
        fputs("\033[H\033[2J\033[?25l", stdout);
        viewer_text_header(stdout, m, seat, st);
        if (seat >= 0)
            printf("view: seat %d only (what it saw)\n", seat);
        putchar('\n');
        viewer_text_frame(stdout, m, fr, seat, st);
        if (fr == last) {
            putchar('\n');
            viewer_text_outcome(stdout, m, st);
        }
        if (seat >= 0)
            printf("\n[seat %d] right/l/space next", seat);
        else
            printf("\n[%u/%u] right/l/space next", fr, last);
        printf(", left/h back, n/p fault, g/G first/last, q quit\n");
        fflush(stdout);
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

static int show(int argc, char **argv)
{
    static const struct option opts[] = {{"seat", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0, 0, 0, 0}};
    const char *seat_arg = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's') {
            seat_arg = optarg;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_getopt_error("replay show", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("replay show takes one FILE (usage: arena replay show FILE [--seat S])");
        return EXIT_USAGE;
    }
    uint32_t seat_u = 0;
    if (seat_arg && !arena_parse_u32(seat_arg, &seat_u)) {
        arena_error("replay show: --seat '%s' is not a seat number", seat_arg);
        return EXIT_USAGE;
    }
    ref_replay *r;
    viewer_model m;
    int rc = viewer_open(argv[optind], &r, &m);
    if (rc != EXIT_OK)
        return rc;
    if (seat_arg && seat_u >= m.n_seats) {
        arena_error("replay show: --seat %u is out of range (the match has seats 0..%u)",
                    (unsigned)seat_u, (unsigned)m.n_seats - 1);
        viewer_close(&r, &m);
        return EXIT_USAGE;
    }
    int seat = seat_arg ? (int)seat_u : -1;
    viewer_style st = viewer_style_for(stdout);
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && tty_raw()) {
        show_interactive(&m, seat, &st);
        tty_restore();
    } else {
        viewer_text_dump(stdout, &m, seat, &st);
    }
    viewer_close(&r, &m);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_RUNTIME;
}

/* ---- html ------------------------------------------------------------------ */

static int html(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (c == 'o') {
            out = optarg;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_getopt_error("replay html", argv);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1 || !out || !*out) {
        arena_error("replay html takes one FILE and -o OUT.html (usage: arena replay html FILE -o OUT.html)");
        return EXIT_USAGE;
    }
    const arena_output o = {"-o", out, ARENA_OUT_STDOUT};
    if (!arena_outputs_check(&o, 1, NULL))
        return EXIT_USAGE;
    ref_replay *r;
    viewer_model m;
    int rc = viewer_open(argv[optind], &r, &m);
    if (rc != EXIT_OK)
        return rc;
    char err[1200];
    rc = viewer_html_replay(&m, out, NULL, err, sizeof err);
    viewer_close(&r, &m);
    if (rc != JA_OK) {
        arena_error("%s", err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cmd_replay(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(HELP, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "verify") == 0)
        return verify(argc - 1, argv + 1);
    if (strcmp(argv[1], "show") == 0)
        return show(argc - 1, argv + 1);
    if (strcmp(argv[1], "html") == 0)
        return html(argc - 1, argv + 1);
    arena_error("unknown replay command '%s' (available: verify, show, html)", argv[1]);
    return EXIT_USAGE;
}
