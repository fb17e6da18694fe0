/* Crashes of in-process plugins, named (plugin_guard.h). */
#include "plugin_guard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The signals that kill a process at a fault of its code, and how the line
 * names each. */
static const struct {
    int sig;
    const char *name;
} SIGNALS[] = {
    {SIGSEGV, "SIGSEGV (invalid memory access)"},
    {SIGBUS, "SIGBUS (bus error)"},
    {SIGFPE, "SIGFPE (arithmetic error)"},
    {SIGILL, "SIGILL (illegal instruction)"},
    {SIGABRT, "SIGABRT (abort)"},
};
#define N_SIGNALS (sizeof SIGNALS / sizeof SIGNALS[0])

/* Bytes of an alternate signal stack: the handler's line buffer and
 * write(2), with room for what a sanitizer's runtime adds to a frame. */
#define ALT_STACK (64u * 1024u)

static struct sigaction old_actions[N_SIGNALS];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;

/* The calling thread's guarded call (NULL: none), and its alternate stack
 * (set up on its first guarded call). */
static _Thread_local ref_guard *volatile current;
static _Thread_local int stack_ready;

static int signal_index(int sig)
{
    for (size_t i = 0; i < N_SIGNALS; i++)
        if (SIGNALS[i].sig == sig)
            return (int)i;
    return -1;
}

/* ---- the line -------------------------------------------------------------- */

/* Appends n bytes of s at *len in buf (cap bytes), as far as they fit.
 * Async-signal-safe. */
static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    while (n-- && *len < cap)
        buf[(*len)++] = *s++;
}

static void put_str(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    put(buf, cap, len, s, n);
}

/* Appends v in decimal. Async-signal-safe. */
static void put_u32(char *buf, size_t cap, size_t *len, uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        put(buf, cap, len, &digits[--n], 1);
}

/* Appends at most max bytes of s (NULL: none) at *len in buf (cap bytes),
 * as far as they fit, control characters as '?' (the line stays one line).
 * No stdio: a seat's line is prepared at every match (ref_guard_set_seat). */
static void put_clean(char *buf, size_t cap, size_t *len, const char *s, size_t max)
{
    for (size_t i = 0; s && i < max && s[i] && *len < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[(*len)++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
}

/* The head's name and what parts are cut where the line's own buffers of
 * old cut them (127 and 159 bytes); the specifier at 319. */
#define NAME_MAX_LEN 127u
#define WHAT_MAX_LEN 159u
#define SPEC_MAX_LEN 319u

/* A head up to its what part, "PROGRAM: bot 'NAME' (", at *len in buf (cap
 * bytes). Async-signal-safe. */
static void put_head_start(char *buf, size_t cap, size_t *len, const char *name)
{
    put_str(buf, cap, len, program_invocation_short_name);
    put_str(buf, cap, len, ": bot '");
    put_clean(buf, cap, len, name, NAME_MAX_LEN);
    put_str(buf, cap, len, "' (");
}

/* g's head up to its what part. */
static size_t head_start(ref_guard *g, const char *name)
{
    size_t len = 0;
    put_head_start(g->head, sizeof g->head - 1, &len, name);
    return len;
}

static void head_end(ref_guard *g, size_t len)
{
    g->like = NULL;
    g->head[len] = '\0';
    g->head_len = len;
    g->call = NULL;
    g->decision = 0;
}

void ref_guard_set(ref_guard *g, const char *name, const char *what, const char *spec)
{
    size_t len = head_start(g, name);
    put_clean(g->head, sizeof g->head - 1, &len, what, WHAT_MAX_LEN);
    head_end(g, len);
    size_t t = 0, cap = sizeof g->tail - 1;
    put_str(g->tail, cap, &t, ", and takes the ");
    put_str(g->tail, cap, &t, program_invocation_short_name);
    put_str(g->tail, cap, &t, " process with it (in-process plugins share it): run it as hosted:");
    put_clean(g->tail, cap, &t, spec, SPEC_MAX_LEN);
    put_str(g->tail, cap, &t, " to contain a crash (a fault of its seat there, and the match "
                              "goes on)\n");
    if (t && g->tail[t - 1] != '\n')
        g->tail[t - 1] = '\n'; /* cut short: still one whole line */
    g->tail[t] = '\0';
    g->tail_len = t;
}

void ref_guard_set_seat(ref_guard *g, const char *name, int32_t seat, const char *match_id,
                        const ref_guard *like)
{
    g->like = like;
    g->name = name;
    g->match_id = match_id;
    g->seat = seat;
    g->call = NULL;
    g->decision = 0;
}

/* A seat's head, "PROGRAM: bot 'NAME' (seat N, match 'ID'", into buf (cap
 * bytes) as ref_guard_set would have prepared it: what ("seat N, match
 * 'ID'") cut as a what part is, the whole cut as the head's buffer is.
 * Async-signal-safe. */
static size_t seat_head(const ref_guard *g, char *buf, size_t cap)
{
    char what[WHAT_MAX_LEN + 1];
    size_t w = 0;
    put_str(what, WHAT_MAX_LEN, &w, "seat ");
    if (g->seat < 0)
        put_str(what, WHAT_MAX_LEN, &w, "-");
    put_u32(what, WHAT_MAX_LEN, &w, g->seat < 0 ? 0u - (uint32_t)g->seat : (uint32_t)g->seat);
    put_str(what, WHAT_MAX_LEN, &w, ", match '");
    put_str(what, WHAT_MAX_LEN, &w, g->match_id ? g->match_id : "");
    put_str(what, WHAT_MAX_LEN, &w, "'");
    size_t len = 0;
    if (cap > sizeof g->head - 1)
        cap = sizeof g->head - 1;
    put_head_start(buf, cap, &len, g->name);
    put_clean(buf, cap, &len, what, w);
    return len;
}

size_t ref_guard_line(const ref_guard *g, int sig, char *buf, size_t cap)
{
    int i = signal_index(sig);
    size_t len = 0;
    if (g->like)
        len = seat_head(g, buf, cap);
    else
        put(buf, cap, &len, g->head, g->head_len);
    if (g->decision) {
        put_str(buf, cap, &len, ", decision ");
        put_u32(buf, cap, &len, g->decision);
    }
    put_str(buf, cap, &len, ") crashed with ");
    put_str(buf, cap, &len, i >= 0 ? SIGNALS[i].name : "a signal");
    put_str(buf, cap, &len, " in ");
    put_str(buf, cap, &len, g->call ? g->call : "a call");
    const ref_guard *t = g->like ? g->like : g;
    put(buf, cap, &len, t->tail, t->tail_len);
    return len;
}

/* ---- the handler ------------------------------------------------------------- */

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    int i = signal_index(sig);
    ref_guard *g = current;
    int saved = errno;
    if (i < 0)
        return;
    if (!g) {
        /* Not a plugin's: what was there before takes it. A fault runs its
         * instruction again into the old handler (with its own siginfo); a
         * sent signal is sent again. */
        sigaction(sig, &old_actions[i], NULL);
        if (info && info->si_code <= 0)
            raise(sig);
        errno = saved;
        return;
    }
    (void)uc;
    char line[1400];
    size_t len = ref_guard_line(g, sig, line, sizeof line);
    for (size_t off = 0; off < len;) {
        ssize_t w = write(STDERR_FILENO, line + off, len - off);
        if (w <= 0 && errno != EINTR)
            break;
        off += w > 0 ? (size_t)w : 0;
    }
    /* Die of it: the default disposition, the signal pending (blocked in
     * here) and delivered as the handler returns. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* A thread's alternate signal stack, unmapped when the thread ends. */
static void stack_free(void *stack)
{
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    munmap(stack, ALT_STACK);
}

static void install(void)
{
    pthread_key_create(&stack_key, stack_free);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_SIGNALS; i++)
        sigaction(SIGNALS[i].sig, &sa, &old_actions[i]);
}

void ref_guard_install(void)
{
    pthread_once(&install_once, install);
}

/* The calling thread's alternate stack: its own, if it has one (a
 * sanitizer's), else one mapped now. Without it (no memory), a stack
 * overflow dies without its line; every other crash still has it. */
__attribute__((noinline, cold)) static void ensure_stack(void)
{
    ref_guard_install(); /* the key of the stacks, and the handlers */
    stack_ready = 1;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
        return;
    void *mem = mmap(NULL, ALT_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return;
    stack_t st;
    memset(&st, 0, sizeof st);
    st.ss_sp = mem;
    st.ss_size = ALT_STACK;
    if (sigaltstack(&st, NULL) != 0) {
        munmap(mem, ALT_STACK);
        return;
    }
    pthread_setspecific(stack_key, mem);
}

void ref_guard_enter(ref_guard *g, const char *call, uint32_t decision)
{
    if (!stack_ready)
        ensure_stack();
    g->call = call;
    g->decision = decision;
    atomic_signal_fence(memory_order_seq_cst);
    current = g;
    atomic_signal_fence(memory_order_seq_cst);
}

void ref_guard_leave(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    current = NULL;
    atomic_signal_fence(memory_order_seq_cst);
}
