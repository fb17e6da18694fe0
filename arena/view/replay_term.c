/* The keyboard view of `arena replay show` (replay_term.h): raw mode, keys
 * read with a timeout so that autoplay and keys mix, and each screen fitted
 * to the terminal's width and height. */
#include "view/replay_term.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* ---- the terminal ------------------------------------------------------------ */

static struct termios g_saved_tio;
static volatile sig_atomic_t g_raw = 0;
static volatile sig_atomic_t g_resized = 0;

void replay_term_restore(void)
{
    if (g_raw) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved_tio);
        g_raw = 0;
        /* Shows the cursor again. */
        (void)!write(STDOUT_FILENO, "\033[?25h", 6);
    }
}

/* Restores the terminal, then dies of the same signal. */
static void on_signal(int sig)
{
    replay_term_restore();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Marks the screen for a redraw at the new size; the key wait it
 * interrupts (poll is never restarted) returns at once. */
static void on_winch(int sig)
{
    (void)sig;
    g_resized = 1;
}

bool replay_term_raw(void)
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
    atexit(replay_term_restore);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], on_signal);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_winch;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGWINCH, &sa, NULL);
    return true;
}

/* The terminal's size from TIOCGWINSZ; 80 by 24 when it tells none. */
static void term_size(int *rows, int *cols)
{
    struct winsize ws;
    bool ok = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0;
    *rows = ok && ws.ws_row > 0 ? ws.ws_row : 24;
    *cols = ok && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* ---- keys -------------------------------------------------------------------- */

/* Keys beyond a byte: arrows, home and end, page up and down, a lone
 * escape; no key before the timeout; a resize. */
enum {
    K_EOF = -1,
    K_RIGHT = 0x101,
    K_LEFT,
    K_UP,
    K_DOWN,
    K_HOME,
    K_END,
    K_PGUP,
    K_PGDN,
    K_ESC,
    K_TIMEOUT,
    K_RESIZE,
    K_OTHER
};

/* One byte of input within ms milliseconds (-1: no limit): the byte, or
 * K_TIMEOUT, K_RESIZE (interrupted by SIGWINCH) or K_EOF. */
static int read_byte(int ms)
{
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    int n = poll(&p, 1, ms);
    if (n < 0)
        return errno == EINTR && g_resized ? K_RESIZE : errno == EINTR ? K_TIMEOUT : K_EOF;
    if (n == 0)
        return K_TIMEOUT;
    unsigned char c;
    ssize_t r;
    do
        r = read(STDIN_FILENO, &c, 1);
    while (r < 0 && errno == EINTR);
    return r == 1 ? c : K_EOF;
}

/* The key of an escape sequence whose ESC was read: ESC [ or ESC O, a
 * number, a final byte. A lone escape is K_ESC. */
static int read_escape(void)
{
    int c = read_byte(50);
    if (c != '[' && c != 'O')
        return c == K_EOF ? K_EOF : K_ESC;
    int num = 0;
    for (int i = 0; i < 8; i++) {
        c = read_byte(50);
        if (c >= '0' && c <= '9') {
            num = num * 10 + (c - '0');
            continue;
        }
        switch (c) {
        case 'A': return K_UP;
        case 'B': return K_DOWN;
        case 'C': return K_RIGHT;
        case 'D': return K_LEFT;
        case 'H': return K_HOME;
        case 'F': return K_END;
        case '~':
            return num == 1 || num == 7 ? K_HOME
                   : num == 4 || num == 8 ? K_END
                   : num == 5           ? K_PGUP
                   : num == 6           ? K_PGDN
                                        : K_OTHER;
        case ';': continue;
        default: return c == K_EOF ? K_EOF : K_OTHER;
        }
    }
    return K_OTHER;
}

/* The next key, waiting at most ms milliseconds (-1: no limit). */
static int read_key(int ms)
{
    if (g_resized)
        return K_RESIZE;
    int c = read_byte(ms);
    return c == 27 ? read_escape() : c;
}

/* ---- the state --------------------------------------------------------------- */

/* The autoplay speeds, in milliseconds a frame. */
static const int SPEED_MS[] = {250, 500, 1000, 2000, 4000};
#define N_SPEEDS (int)(sizeof SPEED_MS / sizeof SPEED_MS[0])
#define SPEED_DEFAULT 2

typedef struct term_view {
    FILE *out;
    const viewer_model *m;
    const viewer_style *st;
    uint32_t fr;     /* the frame shown */
    int seat;        /* the view: a seat, VIEWER_ALL or VIEWER_PUBLIC */
    bool playing;    /* autoplay */
    int speed;       /* index of SPEED_MS */
    bool help;       /* the key help instead of the frame */
    bool jumping;    /* reading a decision number after g */
    char num[12];    /* the number read so far */
    char note[96];   /* a line for the status line, until the next key */
    int scroll;      /* the first line of a frame taller than the screen */
    int rows, cols;  /* the terminal's size */
} term_view;

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

/* The frame a moving key k leads to from frame fr, among those the view
 * sees; -1 for a key that does not move. */
static int64_t frame_after_key(const viewer_model *m, uint32_t fr, int seat, int k)
{
    uint32_t last = m->n_frames - 1;
    switch (k) {
    case K_RIGHT: case 'l': case '\n': case '\r': case 'j':
        while (fr < last && !viewer_seat_sees(m, ++fr, seat))
            ;
        return fr;
    case K_LEFT: case 'h': case 127: case 8: case 'k':
        while (fr > 0 && !viewer_seat_sees(m, --fr, seat))
            ;
        return fr;
    case K_HOME: case '<':
        return 0;
    case K_END: case '>': case 'G':
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
        return -1;
    }
}

/* The view after v's in the cycle everything, public (if the game has
 * one), seat 0, seat 1, ...; dir -1 goes the other way. */
static int next_view(const viewer_model *m, int seat, int dir)
{
    /* The cycle in order: VIEWER_ALL (-1), VIEWER_PUBLIC (-2), 0, 1, ... */
    int order = seat == VIEWER_ALL ? 0 : seat == VIEWER_PUBLIC ? 1 : seat + 2;
    int n = (int)m->n_seats + 2;
    do
        order = (order + dir + n) % n;
    while (order == 1 && !m->pub);
    return order == 0 ? VIEWER_ALL : order == 1 ? VIEWER_PUBLIC : order - 2;
}

/* Switches to view seat, on the frame shown or the last before it that the
 * view sees. */
static void set_view(term_view *v, int seat)
{
    v->seat = seat;
    while (v->fr > 0 && !viewer_seat_sees(v->m, v->fr, seat))
        v->fr--;
}

/* ---- keys to actions ----------------------------------------------------------- */

/* The keys of the decision number after g: digits, backspace; enter goes
 * there, escape or g again gives up. */
static void jump_key(term_view *v, int k)
{
    size_t n = strlen(v->num);
    uint32_t last = v->m->n_frames - 1;
    if (k >= '0' && k <= '9' && n + 1 < sizeof v->num) {
        v->num[n] = (char)k;
        v->num[n + 1] = '\0';
    } else if ((k == 127 || k == 8) && n > 0) {
        v->num[n - 1] = '\0';
    } else if (k == '\n' || k == '\r') {
        v->jumping = false;
        unsigned long long d = strtoull(v->num, NULL, 10);
        if (!v->num[0])
            return;
        if (d > last) {
            snprintf(v->note, sizeof v->note, "no decision %s (the last is %u)", v->num,
                     (unsigned)last);
            return;
        }
        v->fr = (uint32_t)d;
        v->playing = false;
    } else if (k == K_ESC || k == 'g' || k == 'q') {
        v->jumping = false;
    }
}

/* g: reads a decision number, in the omniscient view only (the other
 * views have no decision numbers). */
static void start_jump(term_view *v)
{
    if (v->seat != VIEWER_ALL) {
        snprintf(v->note, sizeof v->note, "g: decision numbers are the everything view's (v)");
        return;
    }
    v->jumping = true;
    v->num[0] = '\0';
}

/* space: plays from the frame shown (from the first at the last), or
 * pauses. */
static void toggle_play(term_view *v)
{
    if (!v->playing && v->fr == v->m->n_frames - 1)
        v->fr = 0;
    v->playing = !v->playing;
}

/* A digit: seat N's view. */
static void seat_key(term_view *v, int k)
{
    int s = k - '0';
    if (s < (int)v->m->n_seats)
        set_view(v, s);
    else
        snprintf(v->note, sizeof v->note, "no seat %d (seats 0..%u)", s,
                 (unsigned)v->m->n_seats - 1);
}

/* Acts on key k; false for a key that quits. */
static bool on_key(term_view *v, int k)
{
    v->note[0] = '\0';
    if (k == K_EOF || k == 3)
        return false;
    if (v->jumping) {
        jump_key(v, k);
        return true;
    }
    bool was_help = v->help;
    v->help = false;
    switch (k) {
    case 'q': case 'Q': return false;
    case '?': v->help = !was_help; return true;
    case ' ': toggle_play(v); return true;
    case '+': case '=': v->speed -= v->speed > 0; return true;
    case '-': case '_': v->speed += v->speed < N_SPEEDS - 1; return true;
    case 'v': set_view(v, next_view(v->m, v->seat, 1)); return true;
    case 'V': set_view(v, next_view(v->m, v->seat, -1)); return true;
    case 'g': start_jump(v); return true;
    case K_UP: v->scroll -= 1; return true;
    case K_DOWN: v->scroll += 1; return true;
    case K_PGUP: v->scroll -= v->rows / 2; return true;
    case K_PGDN: v->scroll += v->rows / 2; return true;
    default: break;
    }
    if (k >= '0' && k <= '9') {
        seat_key(v, k);
        return true;
    }
    int64_t to = frame_after_key(v->m, v->fr, v->seat, k);
    if (to >= 0) {
        v->fr = (uint32_t)to;
        v->playing = false;
    }
    return true;
}

/* Autoplay's step: the next frame the view sees; it stops at the last. */
static void autoplay_step(term_view *v)
{
    int64_t to = frame_after_key(v->m, v->fr, v->seat, K_RIGHT);
    v->fr = (uint32_t)to;
    if (v->fr == v->m->n_frames - 1)
        v->playing = false;
}

/* ---- the screen -------------------------------------------------------------- */

static const char HELP_TEXT[] =
    "== keys ==\n"
    "  right l j enter     next frame (of those the view shows)\n"
    "  left h k backspace  previous frame\n"
    "  space               play or pause (from the first frame at the last)\n"
    "  + -                 faster or slower: 0.25, 0.5, 1, 2 or 4 s a frame\n"
    "  v V                 next or previous view: everything, public, each seat\n"
    "  0-9                 seat N's view (what it saw)\n"
    "  g N enter           go to decision N (the everything view; esc gives up)\n"
    "  < > Home End G      first or last frame\n"
    "  n p                 next or previous fault\n"
    "  up down PgUp PgDn   scroll a frame taller than the screen\n"
    "  ?                   this help (any key closes it)\n"
    "  q                   quit\n";

/* text (lines) wrapped to cols columns, in a new string (NULL: no memory). */
static char *wrapped(const char *text, int cols)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return NULL;
    viewer_text_wrap(mem, text ? text : "", cols);
    fclose(mem);
    return buf;
}

/* The screen's upper part (the header and the view) if !body, else its
 * lower part (the frame, the result at the last frame, or the key help),
 * wrapped to the width. NULL: no memory. */
static char *render(const term_view *v, bool body)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return NULL;
    const viewer_model *m = v->m;
    if (!body) {
        viewer_text_header(mem, m, v->seat, v->st);
        if (v->seat >= 0)
            fprintf(mem, "view: seat %d only (what it saw)\n", v->seat);
        else if (v->seat == VIEWER_PUBLIC)
            fputs("view: public (what the table shows to everyone)\n", mem);
        fputc('\n', mem);
    } else if (v->help) {
        fputs(HELP_TEXT, mem);
    } else {
        viewer_text_frame(mem, m, v->fr, v->seat, v->st);
        if (v->fr == m->n_frames - 1) {
            fputc('\n', mem);
            viewer_text_outcome(mem, m, v->st);
        }
    }
    fclose(mem);
    char *w = wrapped(buf, v->cols);
    free(buf);
    return w;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Writes n lines of text (lines ending in newlines) from line `from`. */
static void put_lines(FILE *f, const char *text, int from, int n)
{
    for (int i = 0; *text && i < from + n; i++) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) + 1 : strlen(text);
        if (i >= from)
            fwrite(text, 1, len, f);
        text += len;
    }
}

/* The status line: where (the decision number, in the everything view
 * only), the view, playing or paused and the speed, the number being
 * read after g, a note. */
static void status_line(const term_view *v, char *b, size_t cap)
{
    const viewer_model *m = v->m;
    size_t n;
    if (v->seat >= 0)
        n = (size_t)snprintf(b, cap, "[seat %d] view: seat %d (%s)", v->seat, v->seat,
                             m->r->h.players[v->seat].name);
    else if (v->seat == VIEWER_PUBLIC)
        n = (size_t)snprintf(b, cap, "[public] view: public");
    else
        n = (size_t)snprintf(b, cap, "[%u/%u] view: everything", (unsigned)v->fr,
                             (unsigned)m->n_frames - 1);
    if (n < cap)
        n += (size_t)snprintf(b + n, cap - n, " | %s %g s/frame",
                              v->playing ? "playing" : "paused", SPEED_MS[v->speed] / 1000.0);
    if (n < cap && v->jumping)
        n += (size_t)snprintf(b + n, cap - n, " | go to decision: %s_", v->num);
    if (n < cap && v->note[0])
        snprintf(b + n, cap - n, " | %s", v->note);
}

/* The screen: the header (only its first line when the frame needs the
 * room), the frame, scrolled when it is taller than the rest of the
 * screen, then the status line and the key line, the last of the screen,
 * no line wider than it. */
static void draw(term_view *v, const char *head, const char *body)
{
    FILE *f = v->out;
    int nh = count_lines(head), nb = count_lines(body);
    int avail = v->rows > 3 ? v->rows - 2 : 1;
    if (nh + nb > avail)
        nh = nh > 0 && avail > 2 ? 1 : 0;
    int room = avail - nh, shown = nb > room ? room - 1 : nb;
    if (v->scroll > nb - shown)
        v->scroll = nb - shown;
    if (v->scroll < 0 || nb <= room)
        v->scroll = 0;
    fputs("\033[H\033[2J\033[?25l", f);
    put_lines(f, head, 0, nh);
    put_lines(f, body, v->scroll, shown);
    char b[256];
    if (nb > room) {
        snprintf(b, sizeof b, "-- lines %d-%d of %d: up/down scroll --", v->scroll + 1,
                 v->scroll + shown, nb);
        fprintf(f, "%.*s\n", v->cols, b);
    }
    status_line(v, b, sizeof b);
    fprintf(f, "%.*s\n", v->cols, b);
    int n = snprintf(b, sizeof b, "space play  +/- speed  v/V view  %sn/p fault  ? help  q quit",
                     v->seat == VIEWER_ALL ? "g jump  " : "");
    /* Narrower, the line keeps the help and quit keys. */
    if (n > v->cols)
        n = snprintf(b, sizeof b, "%s", v->cols >= 34 ? "space play  v view  ? help  q quit"
                                                      : "? help  q quit");
    fprintf(f, "%.*s", v->cols, b);
    fflush(f);
}

/* Draws the screen of v's state. */
static void redraw(term_view *v)
{
    char *head = render(v, false), *body = render(v, true);
    draw(v, head ? head : "", body ? body : "(out of memory)\n");
    free(head);
    free(body);
}

void replay_term_run(FILE *out, const viewer_model *m, int seat, const viewer_style *st)
{
    term_view v;
    memset(&v, 0, sizeof v);
    v.out = out;
    v.m = m;
    v.st = st;
    v.seat = seat;
    v.speed = SPEED_DEFAULT;
    term_size(&v.rows, &v.cols);
    for (;;) {
        redraw(&v);
        int k = read_key(v.playing ? SPEED_MS[v.speed] : -1);
        if (k == K_RESIZE) {
            g_resized = 0;
            term_size(&v.rows, &v.cols);
        } else if (k == K_TIMEOUT) {
            if (v.playing)
                autoplay_step(&v);
        } else if (!on_key(&v, k)) {
            break;
        }
    }
}
