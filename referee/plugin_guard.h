/* Crashes of in-process plugins, named (seat_plugin.c).
 *
 * An in-process plugin runs in the arena's own process (or a referee
 * worker's): a crash in it (a bad pointer, abort(), a division by zero, a
 * stack overflow) kills the process, and a hosted: seat is how a crash is
 * contained. What this adds is the word before the end: while a plugin
 * call is under guard, a signal that kills (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT) first writes one line to stderr naming the bot, its
 * seat, the match, the decision, the call and the signal, and that
 * `hosted:SPEC` would contain it:
 *
 *   arena: bot 'crash' (seat 1, match 'play', decision 12) crashed with
 *   SIGSEGV (invalid memory access) in act(), and takes the arena process
 *   with it (in-process plugins share it): run it as hosted:./crash.so to
 *   contain a crash (a fault of its seat there, and the match goes on)
 *
 * (one line), then the process dies of that signal: the handler puts the
 * default disposition back and raises it again, so the exit status (and a
 * core dump, where enabled) is the signal's own, as without the handler.
 *
 * Async-signal-safe: the line is prepared before the call (ref_guard_set),
 * or for a seat its parts kept (ref_guard_set_seat); the handler only
 * copies bytes, the seat's number and the decision number into a buffer on
 * its stack and write(2)s it; no malloc, no stdio. Each thread
 * that makes guarded calls gets an alternate signal stack (sigaltstack)
 * the first time, so a stack overflow still gets its line; a thread that
 * already has one (a sanitizer's) keeps it.
 *
 * A signal outside a guarded call is not the plugins': the handler puts
 * back what was there before it (the default, or a sanitizer's handler)
 * and lets the signal take its course, a fault re-executing into the old
 * handler, a sent signal raised again. The handlers are installed once,
 * when the first plugin is loaded in-process (ref_guard_install). */
#ifndef REF_PLUGIN_GUARD_H
#define REF_PLUGIN_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* The prepared line of one seat (or of a plugin being loaded). */
typedef struct ref_guard {
    char head[640];        /* "arena: bot 'NAME' (seat 1, match 'ID'" */
    size_t head_len;
    char tail[640];        /* ", and takes the arena process ... hosted:SPEC ...\n" */
    size_t tail_len;
    /* A seat's guard (ref_guard_set_seat): head and tail are not written;
     * the line is composed from these when it is written. NULL: head and
     * tail are the line's. */
    const struct ref_guard *like;
    const char *name, *match_id;
    int32_t seat;
    const char *call;      /* "act()", "create()" ...: set by each enter */
    uint32_t decision;     /* the match's decision, 1-based; 0 = none (not act) */
} ref_guard;

/* Installs the signal handlers, once per process (thread-safe). */
void ref_guard_install(void);

/* Prepares g for bot `name` (its display name), what (e.g. "seat 1, match
 * 't1-m3'", or "" for a plugin being loaded) and spec, the specifier that
 * would host it ("./crash.so:how=segv", used as hosted:SPEC). Control
 * characters are written as '?': the line stays one line. */
void ref_guard_set(ref_guard *g, const char *name, const char *what, const char *spec);

/* The same for a seat, at every match: what is "seat SEAT, match
 * 'MATCH_ID'", and the tail is like's, a guard set with the bot's spec
 * (ref_guard_set), which no other thread writes meanwhile. Nothing is
 * composed here (a seat is opened at every match and almost never
 * crashes): g keeps the pointers, and the line is composed from them when
 * it is written, so name, match_id and like must outlive g's guarded calls. */
void ref_guard_set_seat(ref_guard *g, const char *name, int32_t seat, const char *match_id,
                        const ref_guard *like);

/* The calling thread makes call (a static string, "act()") under g until
 * ref_guard_leave, at decision (1-based, 0 for none). Not nested. */
void ref_guard_enter(ref_guard *g, const char *call, uint32_t decision);
void ref_guard_leave(void);

/* Writes g's line for signal sig into buf (cap bytes, the handler's own
 * composition); returns its length. For tests. */
size_t ref_guard_line(const ref_guard *g, int sig, char *buf, size_t cap);

#endif /* REF_PLUGIN_GUARD_H */
