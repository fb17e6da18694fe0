/* A tournament as a Slurm job array (slurm.h). */
#include "slurm.h"
#include "db_lock.h"
#include "util.h"

#include "jackarena/ja_error.h"
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

extern char **environ;

bool arena_slurm_flag_n(arena_slurm *s, const char *arg)
{
    if (!arena_parse_u32(arg, &s->n) || s->n == 0 || s->n > ARENA_SLURM_MAX_SHARDS) {
        arena_error("--slurm needs a number of shards from 1 to %d, not '%s'",
                    ARENA_SLURM_MAX_SHARDS, arg);
        return false;
    }
    return true;
}

bool arena_slurm_flag_opt(arena_slurm *s, const char *arg)
{
    if (s->n_opts == ARENA_SLURM_MAX_OPTS) {
        arena_error("--slurm-opt: at most %d of them (put several words in one)",
                    ARENA_SLURM_MAX_OPTS);
        return false;
    }
    s->opts[s->n_opts++] = arg;
    return true;
}

static void drop(arena_slurm *s, const char *p, int argc)
{
    if (!s->drop && !(s->drop = calloc((size_t)argc + 1, sizeof *s->drop)))
        return; /* out of memory: arena_slurm_check says so */
    if (s->n_drop < argc)
        s->drop[s->n_drop++] = p;
}

void arena_slurm_mark(arena_slurm *s, char **argv, int argc, int ind, const char *arg)
{
    if (ind < 1 || ind > argc)
        return;
    drop(s, argv[ind - 1], argc);
    /* "--db FILE": the value is its own element, the flag the one before. */
    if (arg && arg == argv[ind - 1] && ind >= 2)
        drop(s, argv[ind - 2], argc);
}

void arena_slurm_free(arena_slurm *s)
{
    free(s->drop);
    s->drop = NULL;
    s->n_drop = 0;
}

/* Splits one --slurm-opt string into w: words as the shell splits them
 * (quotes, backslashes), no command substitution. One usage line on
 * failure. */
static bool split_opt(const char *opt, wordexp_t *w)
{
    int rc = wordexp(opt, w, WRDE_NOCMD);
    if (rc == 0)
        return true;
    const char *why = rc == WRDE_BADCHAR ? "an unquoted | & ; < > ( ) { } or newline"
                      : rc == WRDE_CMDSUB ? "command substitution ($(...) or `...`)"
                      : rc == WRDE_SYNTAX ? "unbalanced quotes"
                                          : "a word that cannot be expanded";
    arena_error("--slurm-opt '%s' has %s: give sbatch options as plain words", opt, why);
    if (rc == WRDE_NOSPACE)
        wordfree(w);
    return false;
}

/* Whether prog is an executable file in a directory of PATH. */
static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return false;
    char *copy = strdup(path), *save = NULL;
    bool found = false;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char f[PATH_MAX];
        struct stat sb;
        snprintf(f, sizeof f, "%s/%s", *d ? d : ".", prog);
        found = stat(f, &sb) == 0 && S_ISREG(sb.st_mode) && access(f, X_OK) == 0;
    }
    free(copy);
    return found;
}

bool arena_slurm_check(const arena_slurm *s)
{
    if (!s->n) {
        if (s->n_opts) {
            arena_error("--slurm-opt '%s' needs --slurm N", s->opts[0]);
            return false;
        }
        return true;
    }
    if (!s->drop && s->argc > 0) {
        arena_error("--slurm: out of memory");
        return false;
    }
    for (uint32_t i = 0; i < s->n_opts; i++) {
        wordexp_t w;
        if (!split_opt(s->opts[i], &w))
            return false;
        wordfree(&w);
    }
    static const char *const progs[] = {"sbatch", "squeue", "scancel"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        if (!on_path(progs[i])) {
            arena_error("--slurm: '%s' is not on PATH (Slurm's client commands are needed "
                        "where the arena runs; Debian: slurm-client)", progs[i]);
            return false;
        }
    return true;
}

/* ---- running Slurm's commands ---------------------------------------------- */

/* Runs argv (argv[0] from PATH) with stdin from /dev/null and its stdout
 * and stderr into out (cut at cap, NUL-terminated), in a process group of
 * its own, so that Ctrl-C at the terminal reaches the arena alone. Returns
 * its exit status, 127 when it could not be started, 128 + the signal that
 * ended it. */
static int run(char *const argv[], char *out, size_t cap)
{
    int fd[2];
    out[0] = '\0';
    if (pipe2(fd, O_CLOEXEC) != 0) {
        snprintf(out, cap, "cannot make a pipe: %s", strerror(errno));
        return 127;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        snprintf(out, cap, "cannot run %s: %s", argv[0], strerror(rc));
        return 127;
    }
    size_t len = 0;
    for (;;) {
        char buf[4096];
        ssize_t n = read(fd[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t k = (size_t)n < cap - 1 - len ? (size_t)n : cap - 1 - len;
        memcpy(out + len, buf, k);
        len += k;
    }
    out[len] = '\0';
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Joins the lines of s (a buffer of cap bytes) into one: "a; b", without
 * the trailing newline and blanks, cut at cap. */
static void one_line(char *s, size_t cap)
{
    char *copy = strdup(s);
    if (!copy) {
        for (char *p = s; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        return;
    }
    size_t n = strlen(copy), len = 0;
    while (n && (copy[n - 1] == '\n' || copy[n - 1] == '\r' || copy[n - 1] == ' '))
        copy[--n] = '\0';
    for (const char *r = copy; *r && len + 1 < cap; r++) {
        if (*r == '\r')
            continue;
        if (*r != '\n') {
            s[len++] = *r;
            continue;
        }
        while (r[1] == '\n' || r[1] == '\r')
            r++;
        if (len + 2 < cap)
            s[len++] = ';';
        s[len++] = ' ';
    }
    s[len] = '\0';
    free(copy);
}

/* Writes s into f quoted for sh: '...' with each ' as '\''. */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

static bool dropped(const arena_slurm *s, const char *p)
{
    for (int i = 0; i < s->n_drop; i++)
        if (s->drop[i] == p)
            return true;
    return false;
}

/* Writes the batch script (dir/tT.sh, through a temporary file and a
 * rename): every task runs the arena's own command line without the
 * dropped flags, with the tournament's seed, its shard and its database. */
static bool write_script(const arena_slurm *s, const char *script, const char *dir, int64_t tid,
                         uint64_t seed, char *err, size_t cap)
{
    char exe[PATH_MAX], cwd[PATH_MAX], tmp[PATH_MAX + 8];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !getcwd(cwd, sizeof cwd)) {
        snprintf(err, cap, "--slurm: cannot find this program's path or the working directory");
        return false;
    }
    exe[n] = '\0';
    snprintf(tmp, sizeof tmp, "%s.tmp", script);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, cap, "--slurm: cannot write '%s': %s", tmp, strerror(errno));
        return false;
    }
    char seed_s[21];
    fprintf(f, "#!/bin/sh\n# Written by `arena tournament --slurm %u` (docs/scale.md): task K of the "
               "job array\n# plays shard K of %u of tournament %lld into its own database.\n",
            s->n, s->n, (long long)tid);
    fputs("cd ", f);
    sh_quote(f, cwd);
    fputs(" || exit 1\nexec ", f);
    sh_quote(f, exe);
    for (int i = 0; i < s->argc; i++) {
        if (dropped(s, s->argv[i]))
            continue;
        fputc(' ', f);
        sh_quote(f, s->argv[i]);
    }
    fprintf(f, " --seed %s -q --shard \"$SLURM_ARRAY_TASK_ID/%u\" \\\n    --db ",
            ladder_seed_format(seed, seed_s), s->n);
    sh_quote(f, dir);
    fprintf(f, "\"/t%lld-${SLURM_ARRAY_TASK_ID}of%u.db\"\n", (long long)tid, s->n);
    bool ok = fflush(f) == 0 && !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok || chmod(tmp, 0755) != 0 || rename(tmp, script) != 0) {
        snprintf(err, cap, "--slurm: cannot write '%s': %s", script, strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

/* Merges shard database path into db under the shard's lock (a task still
 * playing into it holds it). *in_file: the finished matches of the file.
 * A missing file is nothing to merge. */
static int merge_shard(ladder_db *db, const char *path, uint32_t *in_file, char *err, size_t cap)
{
    struct stat sb;
    *in_file = 0;
    if (stat(path, &sb) != 0)
        return JA_OK;
    arena_db_lock lock = {.fd = -1};
    char lerr[600];
    int rc = arena_db_lock_take(path, &lock, lerr, sizeof lerr);
    if (rc == JA_EBUSY) {
        snprintf(err, cap, "--slurm: %s (a task of an earlier run still playing? wait for it or "
                 "scancel it, then run the same command again)", lerr);
        return rc;
    }
    ladder_merge_result r;
    char merr[1200];
    rc = ladder_db_merge(db, path, &r, merr, sizeof merr);
    arena_db_lock_release(&lock);
    if (rc != JA_OK) {
        snprintf(err, cap, "--slurm: cannot merge shard database '%s': %s", path, merr);
        return rc;
    }
    *in_file = r.matches + r.already;
    return JA_OK;
}

/* left[k] (k from 0): the matches M with M % n == k that are pending in
 * tournament tid of db and not recorded in the staging database (its
 * tournament stid; 0: none yet). */
static int count_left(ladder_db *db, int64_t tid, ladder_db *stage, int64_t stid, uint32_t n,
                      uint32_t *left, char *err, size_t cap)
{
    uint32_t *pending = NULL, np = 0, *spend = NULL, ns = 0;
    int rc = ladder_db_pending(db, tid, &pending, &np);
    if (rc == JA_OK && stid)
        rc = ladder_db_pending(stage, stid, &spend, &ns);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(stid && pending ? stage : db));
        free(pending);
        return rc;
    }
    memset(left, 0, n * sizeof *left);
    /* Both lists are in ascending order. */
    for (uint32_t i = 0, j = 0; i < np; i++) {
        while (stid && j < ns && spend[j] < pending[i])
            j++;
        if (!stid || (j < ns && spend[j] == pending[i]))
            left[pending[i] % n]++;
    }
    free(pending);
    free(spend);
    return JA_OK;
}

/* The shards K (from 1) with todo[K-1] as a --array list of ranges
 * ("1-3,5"); false when it does not fit. */
static bool array_spec(const bool *todo, uint32_t n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (uint32_t k = 0; k < n; k++) {
        if (!todo[k])
            continue;
        uint32_t e = k;
        while (e + 1 < n && todo[e + 1])
            e++;
        int w = e > k ? snprintf(out + len, cap - len, "%s%u-%u", len ? "," : "", k + 1, e + 1)
                      : snprintf(out + len, cap - len, "%s%u", len ? "," : "", k + 1);
        if (w < 0 || (size_t)w >= cap - len)
            return false;
        len += (size_t)w;
        k = e;
    }
    return true;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL); /* a signal ends it early: the loop looks at *stop */
}

/* Writes the script and submits it: sbatch --parsable --array=LIST
 * --job-name=arena-tT --output=DIR/tT-%aofN.log [--slurm-opt words] SCRIPT.
 * spec_s gets LIST (room for 8 * n + 16 bytes), job the job id. */
static int submit(const arena_slurm *s, const char *script, const char *dir, int64_t tid,
                  uint64_t seed, const bool *todo, char *spec_s, char *job, size_t job_cap,
                  char *err, size_t cap)
{
    const uint32_t n = s->n;
    if (!write_script(s, script, dir, tid, seed, err, cap))
        return JA_EIO;
    array_spec(todo, n, spec_s, 8 * (size_t)n + 16);
    char a_array[64 + 8 * ARENA_SLURM_MAX_SHARDS], a_name[64], a_out[PATH_MAX + 64], out[4096];
    snprintf(a_array, sizeof a_array, "--array=%s", spec_s);
    snprintf(a_name, sizeof a_name, "--job-name=arena-t%lld", (long long)tid);
    snprintf(a_out, sizeof a_out, "--output=%s/t%lld-%%aof%u.log", dir, (long long)tid, n);
    wordexp_t w[ARENA_SLURM_MAX_OPTS];
    uint32_t n_w = 0;
    size_t n_args = 6;
    int rc = JA_OK;
    for (; n_w < s->n_opts; n_w++) {
        if (!split_opt(s->opts[n_w], &w[n_w])) { /* arena_slurm_check split it before */
            snprintf(err, cap, "--slurm-opt '%s' cannot be split into words", s->opts[n_w]);
            rc = JA_EINVAL;
            break;
        }
        n_args += w[n_w].we_wordc;
    }
    char **av = rc == JA_OK ? calloc(n_args + 1, sizeof *av) : NULL;
    int st = -1;
    if (av) {
        size_t i = 0;
        av[i++] = "sbatch";
        av[i++] = "--parsable";
        av[i++] = a_array;
        av[i++] = a_name;
        av[i++] = a_out;
        for (uint32_t j = 0; j < n_w; j++)
            for (size_t m = 0; m < w[j].we_wordc; m++)
                av[i++] = w[j].we_wordv[m];
        av[i++] = (char *)script;
        av[i] = NULL;
        st = run(av, out, sizeof out);
        free(av);
    } else if (rc == JA_OK) {
        snprintf(err, cap, "--slurm: out of memory");
        rc = JA_ENOMEM;
    }
    for (uint32_t j = 0; j < n_w; j++)
        wordfree(&w[j]);
    if (rc != JA_OK)
        return rc;
    /* --parsable: "JOBID" or "JOBID;CLUSTER" on the last line (warnings
     * may come before it). */
    const char *last = out;
    for (const char *p = out; *p; p++)
        if (p[0] == '\n' && p[1])
            last = p + 1;
    size_t len = st == 0 ? strspn(last, "0123456789") : 0;
    if (len == 0 || len >= job_cap) {
        one_line(out, sizeof out);
        snprintf(err, cap, "--slurm: sbatch refused the job: %s", out[0] ? out : "no job id");
        return JA_EINVAL;
    }
    memcpy(job, last, len);
    job[len] = '\0';
    return JA_OK;
}

/* Waits until no task of job is left in the queue (squeue, not sacct: a
 * cluster may keep no accounting), reporting progress from the shards'
 * databases: done0 matches before, plus what shard k (todo[k]) recorded
 * beyond base[k], up to its left[k]. *stop cancels the job (scancel) and
 * goes on waiting until its tasks are gone. */
static int wait_job(const char *job, uint32_t n, const bool *todo, const uint32_t *left,
                    const uint32_t *base, char (*shard)[PATH_MAX + 64], uint32_t done0,
                    uint32_t total, bool quiet, volatile sig_atomic_t *stop,
                    arena_progress_fn progress, void *pctx, char *err, size_t cap)
{
    char out[4096];
    char *const sq[] = {"squeue", "-h", "-r", "-j", (char *)job, "-o", "%K %T", NULL};
    char *const sc[] = {"scancel", (char *)job, NULL};
    bool cancelled = false;
    int fails = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (*stop && !cancelled) {
            cancelled = true;
            if (run(sc, out, sizeof out) != 0 && !quiet) {
                one_line(out, sizeof out);
                fprintf(stderr, "arena: scancel %s: %s\n", job, out);
            }
        }
        int st = run(sq, out, sizeof out);
        if (st == 0 && !out[0])
            return JA_OK;
        if (st != 0 && strstr(out, "Invalid job id"))
            return JA_OK; /* over, and already forgotten by the controller */
        if (st != 0 && ++fails >= 30) {
            one_line(out, sizeof out);
            snprintf(err, cap, "--slurm: squeue fails (%s); Slurm job %s may still run: when it "
                     "is over, run the same command again", out, job);
            return JA_EIO;
        }
        if (st == 0)
            fails = 0;
        if (progress) {
            uint32_t done = done0;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t c = 0;
                if (todo[k] && ladder_merge_count_done(shard[k], &c) == JA_OK && c > base[k])
                    done += c - base[k] < left[k] ? c - base[k] : left[k];
            }
            progress(pctx, done, total);
        }
        /* Every tenth of the time waited so far, from 0.25 s to 5 s: at
         * most a tenth more than the job takes, and few queries to the
         * controller in a long run. */
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = ((long)(t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000) / 10;
        sleep_ms(ms < 250 ? 250 : ms > 5000 ? 5000 : ms);
    }
}

/* Merges every shard database (with todo[k], or all when todo is NULL)
 * into stage; base[k] gets the finished matches of shard k's file, when
 * base is given. Then finds stage's copy of the tournament (*stid, 0 when
 * no shard has recorded anything yet). */
static int merge_shards(ladder_db *stage, char (*shard)[PATH_MAX + 64], uint32_t n,
                        const bool *todo, uint32_t *base, const ladder_tournament_spec *spec,
                        int64_t *stid, char *err, size_t cap)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = 0;
        int rc = todo && !todo[k] ? JA_OK : merge_shard(stage, shard[k], &c, err, cap);
        if (rc != JA_OK)
            return rc;
        if (base)
            base[k] = c;
    }
    int rc = ladder_db_tournament_find(stage, spec, 0, stid);
    if (rc == JA_ENOTFOUND) {
        *stid = 0;
        return JA_OK;
    }
    if (rc != JA_OK)
        snprintf(err, cap, "%s", ladder_db_errmsg(stage));
    return rc;
}

int arena_slurm_play(ladder_db *db, const char *db_path, int64_t tid,
                     const ladder_tournament_spec *spec, const arena_slurm *s, bool quiet,
                     volatile sig_atomic_t *stop, arena_progress_fn progress, void *pctx,
                     char *err, size_t cap)
{
    const uint32_t n = s->n;
    char abs_db[PATH_MAX], dir[PATH_MAX + 8], script[PATH_MAX + 40], stage_path[PATH_MAX + 40];
    ladder_tournament_info ti;
    if (ladder_db_tournament_get(db, tid, &ti) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return JA_EIO;
    }
    if (ti.done)
        return JA_OK;
    if (!realpath(db_path, abs_db)) {
        snprintf(err, cap, "--slurm: cannot resolve '%s': %s", db_path, strerror(errno));
        return JA_EIO;
    }
    snprintf(dir, sizeof dir, "%s.slurm", abs_db);
    snprintf(script, sizeof script, "%s/t%lld.sh", dir, (long long)tid);
    snprintf(stage_path, sizeof stage_path, "%s/t%lld-all.db", dir, (long long)tid);
    struct stat sb;
    errno = 0;
    if (lstat(dir, &sb) == 0 ? !S_ISDIR(sb.st_mode) : mkdir(dir, 0777) != 0) {
        snprintf(err, cap, "--slurm: '%s' must be a directory (the shards' databases and logs "
                 "go there)%s%s", dir, errno ? ": " : "", errno ? strerror(errno) : "");
        return JA_EIO;
    }
    ladder_tournament_spec sp = *spec;
    sp.seed = ti.seed;
    ladder_db *stage = NULL;
    uint32_t *left = calloc(n, sizeof *left), *base = calloc(n, sizeof *base);
    bool *todo = calloc(n, sizeof *todo);
    char (*shard)[PATH_MAX + 64] = calloc(n, sizeof *shard);
    char *spec_s = malloc(8 * (size_t)n + 16);
    int64_t stid = 0;
    int rc = JA_ENOMEM;
    if (!left || !base || !todo || !shard || !spec_s) {
        snprintf(err, cap, "--slurm: out of memory");
        goto done;
    }
    /* The shards' databases are merged into a staging database
     * (DB.slurm/tT-all.db), and that into --db once every match is there:
     * one merge in match order, so that the live Elo is the one of an
     * unsharded run. What the shards recorded in an earlier run is merged
     * first: only the shards with matches left are submitted. */
    if ((rc = ladder_db_open(stage_path, &stage)) != JA_OK) {
        snprintf(err, cap, "--slurm: %s", stage ? ladder_db_errmsg(stage) : ja_strerror(rc));
        goto done;
    }
    for (uint32_t k = 0; k < n; k++)
        snprintf(shard[k], sizeof shard[k], "%s/t%lld-%uof%u.db", dir, (long long)tid, k + 1, n);
    if ((rc = merge_shards(stage, shard, n, NULL, base, &sp, &stid, err, cap)) != JA_OK ||
        (rc = count_left(db, tid, stage, stid, n, left, err, cap)) != JA_OK)
        goto done;
    uint32_t n_todo = 0, n_left = 0;
    for (uint32_t k = 0; k < n; k++) {
        n_todo += todo[k] = left[k] > 0;
        n_left += left[k];
    }
    const char *job = NULL;
    char job_s[64] = "";
    if (n_todo && !*stop) {
        if ((rc = submit(s, script, dir, tid, ti.seed, todo, spec_s, job_s, sizeof job_s, err,
                         cap)) != JA_OK)
            goto done;
        job = job_s;
        if (!quiet)
            fprintf(stderr, "arena: Slurm job %s: %u shard%s of %u (%s), logs %s/t%lld-*of%u.log\n",
                    job, n_todo, n_todo == 1 ? "" : "s", n, spec_s, dir, (long long)tid, n);
        rc = wait_job(job, n, todo, left, base, shard, ti.n_matches - n_left, ti.n_matches,
                      quiet, stop, progress, pctx, err, cap);
        if (rc != JA_OK)
            goto done;
        if ((rc = merge_shards(stage, shard, n, todo, NULL, &sp, &stid, err, cap)) != JA_OK ||
            (rc = count_left(db, tid, stage, stid, n, left, err, cap)) != JA_OK)
            goto done;
    }
    /* Shards with matches left failed, or were cancelled. */
    size_t len = 0;
    uint32_t n_failed = 0, first = 0, recorded = ti.n_matches - ti.n_done;
    for (uint32_t k = 0; k < n; k++) {
        recorded -= left[k];
        if (!left[k])
            continue;
        if (!n_failed++)
            first = k;
        int wr = snprintf(spec_s + len, 8 * (size_t)n + 16 - len, "%s%u", len ? "," : "", k + 1);
        if (wr > 0 && (size_t)wr < 8 * (size_t)n + 16 - len)
            len += (size_t)wr;
    }
    if (!n_failed) {
        ladder_db_close(&stage);
        ladder_merge_result r;
        char merr[1200];
        if ((rc = ladder_db_merge(db, stage_path, &r, merr, sizeof merr)) != JA_OK) {
            snprintf(err, cap, "--slurm: cannot merge '%s': %s", stage_path, merr);
            goto done;
        }
        if (progress && ladder_db_tournament_get(db, tid, &ti) == JA_OK)
            progress(pctx, ti.n_done, ti.n_matches);
    } else if (*stop) {
        if (!quiet)
            fprintf(stderr, "arena: the shards hold %u more of the %u matches (in %s); they go "
                    "into %s when every shard is done\n", recorded, ti.n_matches, dir, db_path);
    } else {
        snprintf(err, cap, "--slurm: shard%s %s of %u did not finish (Slurm job %s; see %s/t%lld-"
                 "%uof%u.log%s); run the same command again to submit %s again",
                 n_failed == 1 ? "" : "s", spec_s, n, job ? job : "-", dir, (long long)tid,
                 first + 1, n, n_failed > 1 ? " and the others" : "", n_failed == 1 ? "it" : "them");
        rc = JA_EIO;
    }
done:
    ladder_db_close(&stage);
    free(left);
    free(base);
    free(todo);
    free(shard);
    free(spec_s);
    return rc;
}
