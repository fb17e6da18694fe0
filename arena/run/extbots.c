/* External bots in the arena (extbots.h). */
#include "run/extbots.h"
#include "run/confine_read.h"
#include "proc.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

int arena_ext_check(const arena_ext *e, const arena_bots *bs, char *err, size_t cap)
{
    const ref_hub_config hc = {.endpoint = e->listen, .curve = e->curve,
                               .plain_tcp = e->plain_tcp,
                               .plain_tcp_remote = e->plain_tcp_remote};
    int rc = ref_hub_check_endpoint(&hc, err, cap);
    if (rc != JA_OK)
        return rc;
    for (int i = 0; !e->listen && i < bs->n; i++)
        if (strcmp(bs->b[i].kind, "zmq") == 0) {
            snprintf(err, cap, "bot '%s' (zmq:%s) connects to the arena by itself: give --listen "
                     "ENDPOINT so the bot can connect (ipc://PATH or tcp://HOST:PORT)",
                     bs->b[i].name, bs->b[i].target);
            return JA_EINVAL;
        }
    return JA_OK;
}

uint32_t arena_ext_max_faults(const arena_ext *e)
{
    if (!e || !e->have_max_faults)
        return REF_DEFAULT_MAX_FAULTS;
    return e->max_faults == 0 ? REF_MAX_FAULTS_NEVER : e->max_faults;
}

/* ---- Curve keys ---------------------------------------------------------------- */

/* Reads one Z85 key (40 characters) from the first line of path. */
static bool read_key(const char *path, char out[REF_HUB_KEY_Z85])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[128] = "";
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    uint8_t bin[32];
    if (!ok || strlen(line) != 40 || !zmq_z85_decode(bin, line))
        return false;
    memcpy(out, line, REF_HUB_KEY_Z85);
    return true;
}

/* Creates path (never an existing file, never through a link) with its
 * final mode from the start: a secret key is never readable by others, not
 * even for an instant. */
static bool write_key(const char *path, const char *key, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return false;
    }
    bool ok = fchmod(fd, mode) == 0 && fprintf(f, "%s\n", key) > 0;
    return fclose(f) == 0 && ok;
}

static bool mkdir_p(const char *dir)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0700);
            *p = '/';
        }
    return mkdir(buf, 0700) == 0 || errno == EEXIST;
}

/* The key pair in dir: arena.pub (public) and arena.key (secret, 0600),
 * made with zmq_curve_keypair when neither exists. */
static int load_keys(const char *dir, ref_hub_config *hc, char *err, size_t cap)
{
    char pub[1100], sec[1100];
    snprintf(pub, sizeof pub, "%s/arena.pub", dir);
    snprintf(sec, sizeof sec, "%s/arena.key", dir);
    struct stat sb;
    bool have_pub = stat(pub, &sb) == 0, have_sec = stat(sec, &sb) == 0;
    if (!have_pub && !have_sec) {
        if (!mkdir_p(dir)) {
            snprintf(err, cap, "--curve: cannot create key directory '%s': %s", dir,
                     strerror(errno));
            return JA_EIO;
        }
        if (zmq_curve_keypair(hc->curve_public, hc->curve_secret) != 0 ||
            !write_key(sec, hc->curve_secret, 0600) || !write_key(pub, hc->curve_public, 0644)) {
            snprintf(err, cap, "--curve: cannot write the key pair into '%s': %s", dir,
                     strerror(errno));
            return JA_EIO;
        }
        /* A notice, not an error: the user learns where the key is. */
        fprintf(stderr, "arena: made a CurveZMQ key pair in %s (public key %s)\n", dir,
                hc->curve_public);
        return JA_OK;
    }
    if (!read_key(pub, hc->curve_public) || !read_key(sec, hc->curve_secret)) {
        snprintf(err, cap, "--curve: '%s' and '%s' must each hold one Z85 key (40 characters)",
                 pub, sec);
        return JA_EFORMAT;
    }
    uint8_t p_bin[32], s_bin[32], derived[32];
    zmq_z85_decode(p_bin, hc->curve_public);
    zmq_z85_decode(s_bin, hc->curve_secret);
    char derived_z85[REF_HUB_KEY_Z85];
    if (zmq_curve_public(derived_z85, hc->curve_secret) != 0 ||
        !zmq_z85_decode(derived, derived_z85) || memcmp(derived, p_bin, 32) != 0) {
        snprintf(err, cap, "--curve: '%s' is not the public key of '%s'", pub, sec);
        return JA_EFORMAT;
    }
    return JA_OK;
}

static bool is_key(const char *s)
{
    uint8_t bin[32];
    return strlen(s) == 40 && zmq_z85_decode(bin, s);
}

/* Appends key (and its name, NULL for a bare key, when names is given) to
 * the lists. */
static void allow_add(char ***keys, char ***names, uint32_t *n, const char *key,
                      const char *name)
{
    *keys = ja_xrealloc(*keys, (*n + 1) * sizeof **keys);
    (*keys)[*n] = ja_xstrdup(key);
    if (names) {
        *names = ja_xrealloc(*names, (*n + 1) * sizeof **names);
        (*names)[*n] = name ? ja_xstrdup(name) : NULL;
    }
    (*n)++;
}

/* One line of an allow-list (load_allow), split at blanks into *key and,
 * a NAME KEY line when names are taken, *name; both NULL for a line to
 * skip (blank, a comment). JA_EFORMAT with its line in err. */
static int allow_line(char *line, bool names, const char **key, const char **name, char *err,
                      size_t cap)
{
    char *field[3] = {NULL, NULL, NULL};
    int nf = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        field[nf < 3 ? nf : 2] = t;
        nf++;
    }
    *key = *name = NULL;
    if (nf == 0)
        return JA_OK;
    if (nf == 1 && is_key(field[0]))
        *key = field[0];
    else if (field[0][0] == '#')
        return JA_OK;
    else if (nf == 2 && names && is_key(field[1])) {
        *key = field[1];
        *name = field[0];
    }
    if (!*key) {
        snprintf(err, cap, "not a Z85 public key (40 characters)%s", names ? ", nor NAME KEY" : "");
        return JA_EFORMAT;
    }
    if (*name && strlen(*name) >= REF_WIRE_NAME_MAX) {
        snprintf(err, cap, "the name '%.80s' is longer than %d bytes", *name,
                 REF_WIRE_NAME_MAX - 1);
        return JA_EFORMAT;
    }
    return JA_OK;
}

/* An allow-list (extbots.h): lines KEY, NAME KEY when names is given (NULL:
 * keys only), blank lines, and comment lines starting with '#' (Z85 uses
 * '#' too: a line that is one valid key is a key). */
static int load_allow(const char *flag, const char *path, char ***keys, char ***names,
                      uint32_t *n, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, cap, "%s '%s': %s", flag, path, strerror(errno));
        return JA_EIO;
    }
    char line[512], why[200];
    int lineno = 0, rc = JA_OK;
    while (rc == JA_OK && fgets(line, sizeof line, f)) {
        lineno++;
        const char *key, *name;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(why, sizeof why, "longer than %zu bytes", sizeof line - 2);
            rc = JA_EFORMAT;
        } else if ((rc = allow_line(line, names != NULL, &key, &name, why, sizeof why)) == JA_OK &&
                   key) {
            allow_add(keys, names, n, key, name);
        }
        if (rc != JA_OK)
            snprintf(err, cap, "%s '%s' line %d: %s", flag, path, lineno, why);
    }
    fclose(f);
    return rc;
}

int arena_load_allow(const char *flag, const char *path, char ***keys, uint32_t *n, char *err,
                     size_t cap)
{
    return load_allow(flag, path, keys, NULL, n, err, cap);
}

int arena_load_allow_names(const char *flag, const char *path, char ***keys, char ***names,
                           uint32_t *n, char *err, size_t cap)
{
    return load_allow(flag, path, keys, names, n, err, cap);
}

/* The Curve key directory of the flags (--curve-dir, else the default). */
static void curve_dir(const arena_ext *e, char *dir, size_t cap)
{
    const char *home = getenv("JACKARENA_HOME");
    if (e->curve_dir)
        snprintf(dir, cap, "%s", e->curve_dir);
    else if (home && *home)
        snprintf(dir, cap, "%s/curve", home);
    else
        snprintf(dir, cap, "%s/.jackarena/curve", getenv("HOME") ? getenv("HOME") : ".");
}

int arena_ext_curve_keys(const arena_ext *e, char pub[41], char sec[41], char *err, size_t cap)
{
    char dir[1024];
    ref_hub_config hc;
    memset(&hc, 0, sizeof hc);
    curve_dir(e, dir, sizeof dir);
    int rc = load_keys(dir, &hc, err, cap);
    if (rc == JA_OK) {
        snprintf(pub, 41, "%s", hc.curve_public);
        snprintf(sec, 41, "%s", hc.curve_secret);
    }
    sodium_memzero(hc.curve_secret, sizeof hc.curve_secret);
    return rc;
}

/* The hub's log of refused hellos: the arena's standard error. */
static void log_refusal(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "arena: %s\n", line);
}

int arena_ext_start(arena_ext *e, char *err, size_t cap)
{
    if (e->hub)
        return JA_OK;
    ref_hub_config hc;
    memset(&hc, 0, sizeof hc);
    hc.endpoint = e->listen;
    hc.curve = e->curve;
    hc.plain_tcp = e->plain_tcp;
    hc.plain_tcp_remote = e->plain_tcp_remote;
    hc.wire_flags = e->wire_flags;
    hc.log = log_refusal;
    char **allow = NULL, **names = NULL;
    uint32_t n_allow = 0;
    int rc = JA_OK;
    if (e->curve) {
        char dir[1024];
        curve_dir(e, dir, sizeof dir);
        rc = load_keys(dir, &hc, err, cap);
        if (rc == JA_OK && e->curve_allow)
            rc = arena_load_allow_names("--curve-allow", e->curve_allow, &allow, &names, &n_allow,
                                        err, cap);
        hc.allow = (const char *const *)allow;
        hc.allow_names = (const char *const *)names;
        hc.n_allow = n_allow;
    }
    if (rc == JA_OK)
        rc = ref_hub_start(&hc, &e->hub, err, cap);
    for (uint32_t i = 0; i < n_allow; i++) {
        free(allow[i]);
        free(names[i]);
    }
    free(allow);
    free(names);
    sodium_memzero(hc.curve_secret, sizeof hc.curve_secret);
    return rc;
}

/* ---- participants ---------------------------------------------------------------- */

static int proc_gone(void *ctx)
{
    return ref_proc_exited(ctx, NULL, 0);
}

/* The last non-empty line of a tail, as one printable line. */
static void last_line(ref_tail *t, char *out, size_t cap)
{
    char buf[ARENA_TAIL_BYTES + 1];
    size_t n = ref_tail_get(t, buf, sizeof buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    char *line = memrchr(buf, '\n', n);
    line = line ? line + 1 : buf;
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    snprintf(out, cap, "%s", line);
}

/* The tcp port of an endpoint tcp://HOST:PORT, else 0. */
static unsigned tcp_port(const char *endpoint)
{
    const char *colon = strrchr(endpoint, ':');
    uint32_t port = 0;
    if (strncmp(endpoint, "tcp://", 6) != 0 || !colon || !arena_parse_u32(colon + 1, &port) ||
        port > 65535)
        return 0;
    return port;
}

/* Starts a cmd: participant's process with the endpoint, a fresh token
 * (granted its name first, so the hub knows it before any hello; one per
 * process: a restart replaces it) and its parameters in its environment
 * (JACKARENA_PARAMS, "" for none, so that none is inherited), its output
 * held back until its hello (ref_proc_release); confined (confine.h),
 * through ja_confine with its scratch TMPDIR. token gets the token. */
static int spawn_cmd(arena_ext *e, arena_bot *b, char token[REF_HUB_TOKEN_CHARS + 1], char *err,
                     size_t cap)
{
    char ep[600], nm[128], key[128], pid[48], prm[sizeof b->params + 32], tmp[PATH_MAX + 8];
    char tk[REF_HUB_TOKEN_CHARS + 32];
    arena_confine *c = &e->confine;
    if (!arena_confine_enabled(c) && c->n_reads) {
        snprintf(err, cap, "--confine-read is for confined bots: add --confine");
        return JA_EINVAL;
    }
    int rc = JA_OK;
    if (b->token[0]) { /* granted before any cmd: bot started (arena_ext_reserve) */
        memcpy(token, b->token, REF_HUB_TOKEN_CHARS + 1);
        sodium_memzero(b->token, sizeof b->token);
    } else if (ref_hub_new_token(token) != JA_OK) {
        snprintf(err, cap, "cannot make its token (libsodium does not start)");
        return JA_EIO;
    } else if ((rc = ref_hub_grant(e->hub, b->name, token, err, cap)) != JA_OK) {
        return rc;
    }
    snprintf(ep, sizeof ep, "JACKARENA_ENDPOINT=%s", ref_hub_endpoint(e->hub));
    snprintf(nm, sizeof nm, "JACKARENA_NAME=%s", b->name);
    snprintf(tk, sizeof tk, "JACKARENA_TOKEN=%s", token);
    snprintf(pid, sizeof pid, "JACKARENA_ARENA_PID=%ld", (long)getpid());
    snprintf(prm, sizeof prm, "JACKARENA_PARAMS=%s", b->params);
    const char *env[8] = {ep, nm, tk, pid, prm, NULL};
    size_t n_env = 5;
    if (ref_hub_server_key(e->hub)) {
        snprintf(key, sizeof key, "JACKARENA_SERVER_KEY=%s", ref_hub_server_key(e->hub));
        env[n_env++] = key;
    }
    char **launcher = NULL;
    if (arena_confine_enabled(c)) {
        char keys[1024];
        curve_dir(e, keys, sizeof keys);
        rc = arena_confine_launcher(c, b, tcp_port(ref_hub_endpoint(e->hub)), keys, &launcher,
                                    tmp, sizeof tmp, err, cap);
        if (rc != JA_OK) {
            sodium_memzero(tk, sizeof tk);
            return rc;
        }
        env[n_env++] = tmp;
    }
    if (!b->tail)
        ref_tail_new(ARENA_TAIL_BYTES, &b->tail); /* JA_OK: ja_xalloc */
    rc = ref_proc_spawn_via((const char *const *)launcher, b->target, env, n_env, b->tail, true,
                            &b->proc, err, cap);
    arena_confine_argv_free(launcher);
    sodium_memzero(tk, sizeof tk);
    return rc;
}

/* Waits until the hub sees the connection named `name` as wanted
 * (connected or not), the deadline passes, or proc (may be NULL) exits. */
static bool wait_status(arena_ext *e, const char *name, bool connected, int64_t deadline,
                        ref_proc *proc)
{
    for (;;) {
        ref_hub_bot_status st;
        bool now = ref_hub_bot_status_get(e->hub, name, &st) == JA_OK && st.connected;
        if (now == connected)
            return true;
        if (ref_now_ns() >= deadline || (proc && ref_proc_exited(proc, NULL, 0)))
            return false;
        struct timespec ts = {0, 5000000}; /* 5 ms: a start-up, not a hot path */
        nanosleep(&ts, NULL);
    }
}

bool arena_ext_restart(arena_ext *e, arena_bot *b, char *err, size_t cap)
{
    uint32_t startup = e->startup_ms ? e->startup_ms : ARENA_STARTUP_MS;
    const char *hello = ref_bot_get_info(b->bot)->name;
    /* The old connection must be gone first, or the next seat could reach
     * it instead of the new process. */
    wait_status(e, hello, false, ref_now_ns() + (int64_t)startup * 1000000, NULL);
    ref_proc_stop(&b->proc, 0);
    char token[REF_HUB_TOKEN_CHARS + 1];
    int rc = spawn_cmd(e, b, token, err, cap);
    sodium_memzero(token, sizeof token);
    if (rc != JA_OK)
        return false;
    bool up = wait_status(e, hello, true, ref_now_ns() + (int64_t)startup * 1000000, b->proc);
    ref_proc_release(b->proc, true);
    if (!up) {
        char how[128] = "";
        if (ref_proc_exited(b->proc, how, sizeof how))
            snprintf(err, cap, "bot '%s' (cmd:%s) %s before saying hello again", b->name,
                     b->target, how);
        else
            snprintf(err, cap, "bot '%s' (cmd:%s) restarted but never said hello as '%s' within "
                     "%u ms", b->name, b->target, hello, (unsigned)startup);
        return false;
    }
    return true;
}

_Static_assert(sizeof ((arena_bot *)0)->token == REF_HUB_TOKEN_CHARS + 1, "arena_bot.token");

int arena_ext_reserve(arena_ext *e, arena_bot *b, char *err, size_t cap)
{
    int rc = arena_ext_start(e, err, cap);
    if (rc != JA_OK)
        return rc;
    if (arena_confine_enabled(&e->confine))
        arena_confine_own(&e->confine, b);
    char why[512];
    rc = ref_hub_new_token(b->token);
    if (rc != JA_OK)
        snprintf(why, sizeof why, "cannot make its token (libsodium does not start)");
    else
        rc = ref_hub_grant(e->hub, b->name, b->token, why, sizeof why);
    if (rc != JA_OK) {
        sodium_memzero(b->token, sizeof b->token);
        snprintf(err, cap, "bot '%s': %s", b->name, why);
    }
    return rc;
}

/* The zmq: participant b, already running: found by its hello name within
 * startup ms. */
static int load_zmq(arena_ext *e, arena_bot *b, ref_hub_claim_req *req, uint32_t startup,
                    char *err, size_t cap)
{
    char why[2400];
    req->name = b->target;
    int rc = ref_hub_claim(e->hub, req, &b->bot, why, sizeof why);
    if (rc == JA_OK) {
        b->owns_bot = true;
        return JA_OK;
    }
    const char *hellos = strstr(why, "a hello as");
    if (!hellos && strstr(why, "hellos came"))
        hellos = why;
    if (rc == JA_ETIMEOUT)
        snprintf(err, cap, "bot '%s' (zmq:%s) did not connect to %s and say hello within %u ms%s%s",
                 b->name, b->target, ref_hub_endpoint(e->hub), (unsigned)startup,
                 hellos ? ": " : "", hellos ? hellos : "");
    else
        snprintf(err, cap, "bot '%s' (zmq:%s): %s", b->name, b->target, why);
    return rc;
}

/* What a confined cmd: bot b's output says its confinement refused it:
 * true with the path (never "") in path. */
static bool refused_path(const arena_bot *b, char *path, size_t cap)
{
    char out[ARENA_TAIL_BYTES + 1];
    if (!b->tail)
        return false;
    ref_tail_get(b->tail, out, sizeof out);
    return confine_refused_path(out, path, cap) && path[0];
}

/* The hint for a confined cmd: bot b that exited before its hello: the
 * path its output says it was refused, and what it may read. */
static void confine_hint(const arena_bot *b, char *out, size_t cap)
{
    char path[PATH_MAX];
    if (refused_path(b, path, sizeof path))
        snprintf(out, cap, " (confined, it was refused '%s': a confined bot reads only the "
                 "system, the paths its command names, the SDK and runtime it runs and "
                 "--confine-read paths, and writes only $TMPDIR; let it read that path with "
                 "--confine-read; docs/security.md)", path);
    else
        snprintf(out, cap, " (confined: it reads only the system, the paths its command names, "
                 "the SDK and runtime it runs and --confine-read paths, and writes only $TMPDIR; "
                 "docs/security.md)");
}

/* The line for a cmd: bot b whose hello never came (rc, the hub's why). */
static void cmd_no_hello(const arena_ext *e, const arena_bot *b, int rc, const char *why,
                         uint32_t startup, char *err, size_t cap)
{
    char how[128] = "", hint[PATH_MAX + 400] = "";
    const char *hellos = strstr(why, "; a hello as");
    if (rc == JA_EBOT && !hellos && arena_confine_enabled(&e->confine))
        confine_hint(b, hint, sizeof hint);
    if (rc == JA_EBOT && ref_proc_exited(b->proc, how, sizeof how))
        snprintf(err, cap, "bot '%s' (cmd:%s) %s before saying hello%s", b->name, b->target, how,
                 hellos ? hellos : hint);
    else if (rc == JA_ETIMEOUT && strncmp(why, "never said hello: ", 18) == 0)
        snprintf(err, cap, "bot '%s' (cmd:%s) never said hello within %u ms: %s", b->name,
                 b->target, (unsigned)startup, why + 18);
    else if (rc == JA_ETIMEOUT)
        snprintf(err, cap, "bot '%s' (cmd:%s) never said hello within %u ms (it must connect to "
                 "$JACKARENA_ENDPOINT)", b->name, b->target, (unsigned)startup);
    else
        snprintf(err, cap, "bot '%s' (cmd:%s): %s", b->name, b->target, why);
}

/* The cmd: participant b: its process started, and its hello with its
 * token awaited within startup ms. */
static int load_cmd(arena_ext *e, arena_bot *b, ref_hub_claim_req *req, uint32_t startup,
                    char *err, size_t cap)
{
    char token[REF_HUB_TOKEN_CHARS + 1], why[2400];
    int rc = spawn_cmd(e, b, token, why, sizeof why);
    if (rc != JA_OK) {
        sodium_memzero(token, sizeof token);
        snprintf(err, cap, "bot '%s': %s", b->name, why);
        return rc;
    }
    req->token = token;
    req->gone = proc_gone;
    req->gone_ctx = b->proc;
    req->pid = ref_proc_pid(b->proc);
    rc = ref_hub_claim(e->hub, req, &b->bot, why, sizeof why);
    sodium_memzero(token, sizeof token);
    /* The protocol's contract (docs/protocol.md): a bot that refuses its
     * parameters prints one line on stderr and exits 2 before its hello;
     * that line is the message, so its output is not echoed too. */
    bool refused = rc == JA_EBOT && b->params[0] && ref_proc_exit_code(b->proc) == 2;
    ref_proc_release(b->proc, !refused);
    if (refused) {
        char line[512];
        last_line(b->tail, line, sizeof line);
        snprintf(err, cap, "bot '%s' (cmd:%s) refused its parameters: %s", b->name, b->target,
                 line[0] ? line : "(it said nothing)");
        return JA_EINVAL;
    }
    if (rc != JA_OK) {
        cmd_no_hello(e, b, rc, why, startup, err, cap);
        return rc;
    }
    b->owns_bot = true;
    ref_bot_zmq_set_tail(b->bot, b->tail);
    /* Its parameters go in every start message and into its identity. */
    ref_bot_zmq_set_params(b->bot, b->params);
    return JA_OK;
}

int arena_ext_load(arena_ext *e, arena_bot *b, char *err, size_t cap)
{
    int rc = arena_ext_start(e, err, cap);
    if (rc != JA_OK)
        return rc;
    uint32_t startup = e->startup_ms ? e->startup_ms : ARENA_STARTUP_MS;
    ref_hub_claim_req req = {.name = b->name,
                             .kind = b->kind,
                             .deadline_ns = ref_now_ns() + (int64_t)startup * 1000000};
    if (strcmp(b->kind, "zmq") == 0)
        return load_zmq(e, b, &req, startup, err, cap);
    return load_cmd(e, b, &req, startup, err, cap);
}

/* A confined cmd: bot that played but whose output says it was refused a
 * path (a library it could not load, every decision then an error): one
 * line each on standard error, once its processes have stopped. */
static void note_refusals(const arena_bots *bs)
{
    char path[PATH_MAX];
    for (int i = 0; i < bs->n; i++)
        if (strcmp(bs->b[i].kind, "cmd") == 0 && bs->b[i].owns_bot &&
            refused_path(&bs->b[i], path, sizeof path))
            fprintf(stderr, "arena: bot '%s' (cmd:%s) was refused '%s' by its confinement "
                    "(Permission denied); if it needs it, let it read it with --confine-read "
                    "(docs/security.md)\n", bs->b[i].name, bs->b[i].target, path);
}

void arena_ext_stop(arena_ext *e, arena_bots *bs)
{
    if (e && e->hub)
        ref_hub_bye_all(e->hub);
    ref_proc *procs[ARENA_MAX_BOTS];
    size_t n = 0;
    for (int i = 0; i < bs->n; i++)
        if (bs->b[i].proc) {
            procs[n++] = bs->b[i].proc;
            bs->b[i].proc = NULL;
        }
    ref_proc_stop_all(procs, n, ARENA_STOP_GRACE_MS);
    if (e && arena_confine_enabled(&e->confine))
        note_refusals(bs);
    if (e)
        arena_confine_cleanup(&e->confine);
    for (int i = 0; i < bs->n; i++)
        if (bs->b[i].owns_bot && strcmp(bs->b[i].kind, "plugin") != 0)
            ref_bot_destroy(&bs->b[i].bot);
    for (int i = 0; i < bs->n; i++)
        ref_tail_destroy(&bs->b[i].tail); /* no process writes into it any more */
    if (e)
        ref_hub_stop(&e->hub);
}
