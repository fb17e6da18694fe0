/* External bots in the arena: the flags that configure the referee's
 * endpoint (--listen, CurveZMQ, start-up deadline, fault limit), the hub
 * that serves it, and the `cmd:` processes the arena starts and stops.
 *
 * arena_bots_load (botspec.c) starts the hub the first time a `cmd:` or
 * `zmq:` participant needs it, starts each `cmd:` process with
 * JACKARENA_ENDPOINT, JACKARENA_NAME, JACKARENA_TOKEN (a fresh secret per
 * process, granted the name first: ref_hub_grant), JACKARENA_SERVER_KEY
 * with Curve and JACKARENA_PARAMS (the participant's parameters) in its
 * environment, and waits for the hello carrying that token (a `cmd:` bot
 * that exits 2 first, with parameters, refused them: one line quotes its
 * last line of output); arena_bots_free says `bye` to every bot, stops the
 * processes (bye, then SIGTERM, then SIGKILL after ARENA_STOP_GRACE_MS
 * each) and stops the hub. Hellos the hub refuses are logged on standard
 * error, one line per connection. A confined
 * `cmd:` bot (--confine, confine.h) is started through ja_confine, with its
 * scratch directory as TMPDIR. */
#ifndef ARENA_EXTBOTS_H
#define ARENA_EXTBOTS_H

#include "core/util.h"
#include "run/botspec.h"
#include "run/confine.h"
#include "hub.h"
#include "match.h"

#include <getopt.h>

#define ARENA_STARTUP_MS 10000   /* default --startup-ms */
#define ARENA_STOP_GRACE_MS 2000 /* a process's time to exit after bye, then after SIGTERM */
#define ARENA_TAIL_BYTES 4096    /* a cmd: bot's output kept for its reproduction bundles */

/* getopt_long codes of the external-bot flags. */
enum {
    ARENA_OPT_LISTEN = 0x200,
    ARENA_OPT_CURVE,
    ARENA_OPT_CURVE_DIR,
    ARENA_OPT_CURVE_ALLOW,
    ARENA_OPT_PLAIN_TCP,
    ARENA_OPT_PLAIN_TCP_REMOTE,
    ARENA_OPT_STARTUP_MS,
    ARENA_OPT_MAX_FAULTS,
    ARENA_OPT_BANK_MS,
    ARENA_OPT_ON_FAULT,
    ARENA_OPT_RESTART,
    ARENA_OPT_CONFINE,
    ARENA_OPT_NO_CONFINE,
    ARENA_OPT_CONFINE_WEAK,
    ARENA_OPT_CONFINE_READ
};

/* Entries for a getopt_long table. */
#define ARENA_EXT_LONGOPTS                                                           \
    {"listen", required_argument, NULL, ARENA_OPT_LISTEN},                           \
        {"curve", no_argument, NULL, ARENA_OPT_CURVE},                               \
        {"curve-dir", required_argument, NULL, ARENA_OPT_CURVE_DIR},                 \
        {"curve-allow", required_argument, NULL, ARENA_OPT_CURVE_ALLOW},             \
        {"plain-tcp", no_argument, NULL, ARENA_OPT_PLAIN_TCP},                       \
        {"plain-tcp-remote", no_argument, NULL, ARENA_OPT_PLAIN_TCP_REMOTE},         \
        {"startup-ms", required_argument, NULL, ARENA_OPT_STARTUP_MS},               \
        {"max-faults", required_argument, NULL, ARENA_OPT_MAX_FAULTS},               \
        {"confine", no_argument, NULL, ARENA_OPT_CONFINE},                           \
        {"no-confine", no_argument, NULL, ARENA_OPT_NO_CONFINE},                     \
        {"confine-weak", no_argument, NULL, ARENA_OPT_CONFINE_WEAK},                 \
        {"confine-read", required_argument, NULL, ARENA_OPT_CONFINE_READ}

/* Time control and fault policy of `play` and `tournament` (handled by
 * cli/flags.h's arena_ext_flag too; docs/protocol.md, "Time control" and "Faults"). */
#define ARENA_FAULT_LONGOPTS                                                         \
    {"bank-ms", required_argument, NULL, ARENA_OPT_BANK_MS},                         \
        {"on-fault", required_argument, NULL, ARENA_OPT_ON_FAULT}

#define ARENA_FAULT_HELP                                                                     \
    "  --bank-ms MS      a time bank per seat and match: a decision may use --move-ms\n"      \
    "                    plus what is left of it; time beyond --move-ms is taken from\n"     \
    "                    it (default 0: none; at most 86400000). Plugins are judged\n"     \
    "                    on CPU time\n"                                                      \
    "  --on-fault P      what replaces a faulty answer: default (the game's default\n"      \
    "                    action), random (a random legal action, seeded by the match)\n"   \
    "                    or forfeit (the first fault forfeits the match)\n"

/* Help lines for those flags. */
#define ARENA_EXT_HELP                                                                       \
    "  --max-faults N    a seat with more faults in one match forfeits it (default 10;\n"     \
    "                    0 = never)\n"                                                        \
    "external bots (cmd:COMMAND, zmq:NAME; docs/protocol.md):\n"                              \
    "  --listen ENDPOINT where bots connect: ipc://PATH or tcp://HOST:PORT (tcp needs\n"    \
    "                    --curve or --plain-tcp); default: a private ipc endpoint,\n"      \
    "                    given to cmd: bots only, so zmq:NAME needs --listen\n"            \
    "  --curve           CurveZMQ: load or make the key pair in --curve-dir; bots get\n"      \
    "                    the public key (JACKARENA_SERVER_KEY for cmd: bots)\n"               \
    "  --curve-dir DIR   key pair files arena.pub and arena.key (default\n"                   \
    "                    $JACKARENA_HOME/curve, else ~/.jackarena/curve)\n"                   \
    "  --curve-allow FILE  only these client public keys: lines KEY (Z85) or NAME KEY;\n"    \
    "                    a NAME KEY line binds the hello name NAME to KEY: no other key\n"   \
    "                    may say hello as NAME, and a key listed only with names says\n"     \
    "                    only those; a bare KEY may say any name bound to no key\n"         \
    "  --plain-tcp       allow tcp without Curve on a loopback address\n"                     \
    "  --plain-tcp-remote  ... and on any address (unsafe)\n"                                 \
    "  --startup-ms MS   how long a bot has to say hello (default 10000, at most\n"       \
    "                    86400000)\n"                                                     \
    "  --confine         confine cmd: bots (the default of `tournament`): limits, no\n"     \
    "                    privileges; they read only the system, the paths their\n"         \
    "                    command names, the SDK and runtime they run, and write\n"         \
    "                    only $TMPDIR (docs/security.md)\n"                                \
    "  --no-confine      run cmd: bots with the arena's rights\n"                           \
    "  --confine-weak    confine, also on a kernel without Landlock (limits only)\n"        \
    "  --confine-read PATH  one more path confined bots may read; repeatable\n"

typedef struct arena_ext {
    const char *listen;
    bool curve;
    const char *curve_dir, *curve_allow;
    bool plain_tcp, plain_tcp_remote;
    uint32_t startup_ms;         /* 0: ARENA_STARTUP_MS */
    uint32_t max_faults;         /* for ref_match_config.max_faults */
    bool have_max_faults;
    uint32_t bank_ms;            /* --bank-ms; 0 = none */
    uint8_t on_fault;            /* --on-fault: ref_on_fault */
    bool restart;                /* --restart (tournament) */
    unsigned wire_flags;         /* REF_WIRE_PROBE (conformance) */
    arena_confine confine;       /* --confine and friends (confine.h); a command
                                  * registers its output files there */
    /* state */
    ref_hub *hub;
} arena_ext;

/* The functions below that take err return JA_OK or the code of their
 * failure with one line in err (docs/architecture.md, "Errors"); they print
 * no error. (The flags are parsed by cli/flags.h's arena_ext_flag.) */

/* Checks the external-bot flags with the participants before anything
 * runs, whether or not a bot is external: --listen's endpoint (ipc://PATH,
 * or tcp://HOST:PORT with --curve, or --plain-tcp on a loopback address),
 * and a `zmq:` bot only with --listen (it cannot find a private endpoint).
 * Its failures are the user's. */
int arena_ext_check(const arena_ext *e, const arena_bots *bs, char *err, size_t cap);

/* Starts a `cmd:` participant's process again after it exited (--restart)
 * and waits for its hello; the participant keeps its ref_bot, which
 * reaches whichever connection holds its name. false (with a one-line
 * message in err) when the new process never says hello. */
bool arena_ext_restart(arena_ext *e, arena_bot *b, char *err, size_t cap);

/* ref_match_config.max_faults from the flags. */
uint32_t arena_ext_max_faults(const arena_ext *e);

/* Starts the hub if it is not running: binds the endpoint, loads or makes
 * the Curve keys (a key pair made is noted on standard error), reads the
 * allow-list. Its failures (endpoint, key files) are the user's. */
int arena_ext_start(arena_ext *e, char *err, size_t cap);

/* The arena's Curve key pair (Z85) from --curve-dir or the default
 * directory, made if missing, for the referee workers' endpoint
 * (docs/scale.md). Its failures (the key files) are the user's. */
int arena_ext_curve_keys(const arena_ext *e, char pub[41], char sec[41], char *err, size_t cap);

/* Grants cmd: participant b its token (b->token) before any cmd: bot
 * starts, so that its name is bound from the start: a bot started earlier
 * cannot say hello under it. Its failures are the user's. */
int arena_ext_reserve(arena_ext *e, arena_bot *b, char *err, size_t cap);

/* Starts (cmd:) or finds (zmq:) participant b and waits for its hello.
 * Fails, with a line naming the bot, when it never says hello or its
 * process exits first. */
int arena_ext_load(arena_ext *e, arena_bot *b, char *err, size_t cap);

/* Says bye to every bot, stops every process of bs, destroys the external
 * participants' bots, stops the hub. */
void arena_ext_stop(arena_ext *e, arena_bots *bs);

/* Reads an allow-list of CurveZMQ client keys (one Z85 public key a line;
 * blank lines and '#' comment lines that are not keys skipped) into *keys
 * (malloc'ed copies, appended; the caller frees). A failure's line names
 * flag, file and line. */
int arena_load_allow(const char *flag, const char *path, char ***keys, uint32_t *n, char *err,
                     size_t cap);

/* The same with lines NAME KEY too (--curve-allow): the key bound to that
 * hello name. *names gets, in step with *keys, a copy of each line's name,
 * or NULL for a bare KEY line (ref_hub_config.allow_names). A name is 1 to
 * 63 bytes without blanks and does not start with '#'. */
int arena_load_allow_names(const char *flag, const char *path, char ***keys, char ***names,
                           uint32_t *n, char *err, size_t cap);

#endif /* ARENA_EXTBOTS_H */
