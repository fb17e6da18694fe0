/* Bot processes: the `cmd:` bots that the arena (or, later, a referee
 * worker) starts next to the referee that runs their matches.
 *
 * A command is run by /bin/sh -c "COMMAND ARGS", so quoting, pipes and
 * environment assignments work as in a shell, in a process group of its own
 * (a terminal's Ctrl-C reaches the arena, not the bot). Its keeper,
 * ja_reap (referee/host/ja_reap.c), starts the shell as its child and is the
 * subreaper of everything the command starts: every process of the bot,
 * also one that left the group or the session, ends when the command's own
 * process ends, when the bot is stopped, and when the arena dies, however
 * it dies. The keeper is found like the sandbox programs (sandbox_prog.h;
 * $JACKARENA_REAP), and exits as the command's process did, so what is said
 * below of "the process" is said of it. Its standard output goes to
 * the arena's standard error (it must never corrupt `--json` output); its
 * standard input is /dev/null; no other descriptor of the arena leaks into
 * it. The variables given are added to the arena's environment.
 *
 * With a ref_tail, its standard output and error go through a pipe instead:
 * a reader thread copies every byte to the arena's standard error, as
 * before, and keeps the last bytes in the tail (a bot's stderr tail for its
 * reproduction bundle). A tail outlives the processes written into it, so
 * a restarted bot keeps writing into the same one.
 *
 * Threading: one thread at a time per ref_proc. */
#ifndef REF_PROC_H
#define REF_PROC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ref_proc ref_proc;
typedef struct ref_tail ref_tail;

/* A ring of the last cap bytes written into it (cap >= 1); thread-safe.
 * JA_OK; owned by the caller: ref_tail_destroy, after every process
 * spawned with it has been stopped. */
int ref_tail_new(size_t cap, ref_tail **out);
/* Copies the tail into buf, NUL-terminated; returns its length. */
size_t ref_tail_get(ref_tail *t, char *buf, size_t cap);

/* Bytes a tail keeps of what came since the last ref_tail_take (a cmd:
 * bot's output during one decision: JA_DECLOG_MAX, its decision log). */
#define REF_TAIL_FRESH 4096

/* Moves what came into t since the last take (at most REF_TAIL_FRESH and
 * cap bytes of it, not NUL-terminated) into buf and forgets it; returns
 * its length, *cut true when more came. */
size_t ref_tail_take(ref_tail *t, char *buf, size_t cap, bool *cut);

/* Takes into t what the process writing into t had written by now and is
 * still in its pipe, so that the output a bot wrote before its answer is
 * taken with that answer, whatever the reader thread's pace. Reads at most
 * what the pipe held on entry (a flooding bot cannot keep it reading) and
 * never waits for the reader: it reads the pipe itself, under the lock the
 * reader reads under, so each byte is either still in the pipe or already
 * in t. */
void ref_tail_sync(ref_tail *t);
/* NULL allowed; nulls the pointer. */
void ref_tail_destroy(ref_tail **t);

/* Starts command with the extra variables env ("KEY=VALUE", n_env of them).
 * JA_OK with *out owned by the caller (ref_proc_stop), or JA_EIO with a
 * one-line message. */
int ref_proc_spawn(const char *command, const char *const *env, size_t n_env, ref_proc **out,
                   char *err, size_t cap);
/* ref_proc_spawn with the output kept in tail as well (NULL: none). hold
 * (with a tail): the output is also held back from the arena's standard
 * error (up to 64 KiB, then let through) until ref_proc_release, so that a
 * bot refusing its parameters at start-up is reported in one line. */
int ref_proc_spawn_tail(const char *command, const char *const *env, size_t n_env,
                        ref_tail *tail, bool hold, ref_proc **out, char *err, size_t cap);
/* ref_proc_spawn_tail with a launcher (NULL: none): the program
 * launcher[0] is run with the arguments launcher[1...] (NULL-terminated)
 * and command as its last one, in place of /bin/sh -c command. The
 * launcher runs the command itself (arena/run/confine.c: ja_confine confines
 * itself, then executes /bin/sh -c command). */
int ref_proc_spawn_via(const char *const *launcher, const char *command, const char *const *env,
                       size_t n_env, ref_tail *tail, bool hold, ref_proc **out, char *err,
                       size_t cap);

/* Ends the holding back of p's output: echo writes what was held to the
 * arena's standard error, else it is dropped (it stays in the tail); what
 * comes later goes through as it comes. When p has exited, everything it
 * wrote is read into the tail first. */
void ref_proc_release(ref_proc *p, bool echo);

/* True once the process has exited (reaped); *how describes it ("exited with
 * status 2", "killed by signal 9"). how may be NULL. */
bool ref_proc_exited(ref_proc *p, char *how, size_t cap);

/* The exit status of a process that has exited normally (ref_proc_exited),
 * else -1. */
int ref_proc_exit_code(ref_proc *p);

/* The process id of its keeper (the group id too): every process of the
 * bot descends from it. */
int ref_proc_pid(const ref_proc *p);

/* Stops p: waits up to grace_ms for it to exit on its own (after the
 * referee's `bye`), then has its keeper send SIGTERM to every process of
 * the bot, waits up to grace_ms again, then has it kill them all; reaps it
 * (no zombie) and frees p; NULL allowed; nulls the pointer. */
void ref_proc_stop(ref_proc **p, int grace_ms);

/* ref_proc_stop for n processes at once: the grace periods run together.
 * Entries may be NULL; each is nulled. */
void ref_proc_stop_all(ref_proc **ps, size_t n, int grace_ms);

#endif /* REF_PROC_H */
