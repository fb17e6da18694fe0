/* A tournament as a Slurm job array (slurm.h). */
#include "run/slurm.h"
#include "core/db_lock.h"
#include "run/executor.h"
#include "core/util.h"

#include "run/export.h"
#include "jackarena/ja_error.h"
#include "ja_mp.h"
#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>
#include <zmq.h>

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

bool arena_slurm_flag_workers(arena_slurm *s, const char *arg)
{
    if (!arena_parse_u32(arg, &s->workers) || s->workers == 0 ||
        s->workers > ARENA_SLURM_MAX_SHARDS) {
        arena_error("--slurm-workers needs a number of workers from 1 to %d, not '%s'",
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
    if (!s->n && !s->workers) {
        if (s->n_opts) {
            arena_error("--slurm-opt '%s' needs --slurm N or --slurm-workers N", s->opts[0]);
            return false;
        }
        return true;
    }
    const char *flag = s->n ? "--slurm" : "--slurm-workers";
    if (s->n && !s->drop && s->argc > 0) {
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
            arena_error("%s: '%s' is not on PATH (Slurm's client commands are needed "
                        "where the arena runs; Debian: slurm-client)", flag, progs[i]);
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
                         uint64_t seed, bool export, char *err, size_t cap)
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
    fprintf(f, " --seed %s -q --shard \"$SLURM_ARRAY_TASK_ID/%u\" --tournament-id %lld \\\n    --db ",
            ladder_seed_format(seed, seed_s), s->n, (long long)tid);
    sh_quote(f, dir);
    fprintf(f, "\"/t%lld-${SLURM_ARRAY_TASK_ID}of%u.db\"", (long long)tid, s->n);
    if (export) {
        /* One file per task and attempt (the job id): a task run again
         * does not overwrite what an earlier attempt exported. */
        fputs(" \\\n    --export-decisions ", f);
        sh_quote(f, dir);
        fprintf(f, "\"/t%lld-${SLURM_ARRAY_TASK_ID}of%u.${SLURM_JOB_ID}.mp\"", (long long)tid,
                s->n);
    }
    fputc('\n', f);
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

/* Submits script: sbatch --parsable --array=ARRAY --job-name=NAME
 * --output=OUT [--slurm-opt words] SCRIPT; job gets the job id. */
static int sbatch(const arena_slurm *s, const char *script, const char *array, const char *name,
                  const char *output, char *job, size_t job_cap, char *err, size_t cap)
{
    char a_array[64 + 8 * ARENA_SLURM_MAX_SHARDS], a_name[128], a_out[PATH_MAX + 64], out[4096];
    snprintf(a_array, sizeof a_array, "--array=%s", array);
    snprintf(a_name, sizeof a_name, "--job-name=%s", name);
    snprintf(a_out, sizeof a_out, "--output=%s", output);
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
        snprintf(err, cap, "%s: out of memory", s->n ? "--slurm" : "--slurm-workers");
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
        snprintf(err, cap, "%s: sbatch refused the job: %s", s->n ? "--slurm" : "--slurm-workers",
                 out[0] ? out : "no job id");
        return JA_EINVAL;
    }
    memcpy(job, last, len);
    job[len] = '\0';
    return JA_OK;
}

/* Writes the shards' script and submits it: sbatch --parsable
 * --array=LIST --job-name=arena-tT --output=DIR/tT-%aofN.log [--slurm-opt
 * words] SCRIPT. spec_s gets LIST (room for 8 * n + 16 bytes), job the job
 * id. */
static int submit(const arena_slurm *s, const char *script, const char *dir, int64_t tid,
                  uint64_t seed, bool export, const bool *todo, char *spec_s, char *job,
                  size_t job_cap, char *err, size_t cap)
{
    const uint32_t n = s->n;
    if (!write_script(s, script, dir, tid, seed, export, err, cap))
        return JA_EIO;
    array_spec(todo, n, spec_s, 8 * (size_t)n + 16);
    char name[64], out[PATH_MAX + 64];
    snprintf(name, sizeof name, "arena-t%lld", (long long)tid);
    snprintf(out, sizeof out, "%s/t%lld-%%aof%u.log", dir, (long long)tid, n);
    return sbatch(s, script, spec_s, name, out, job, job_cap, err, cap);
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
        uint32_t done = done0;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t c = 0;
            if (todo[k] && ladder_merge_count_done(shard[k], &c) == JA_OK && c > base[k])
                done += c - base[k] < left[k] ? c - base[k] : left[k];
        }
        if (progress)
            progress(pctx, done, total);
        /* Every tenth of the time waited so far, from 0.25 s to 5 s: at
         * most a tenth more than the job takes, and few queries to the
         * controller in a long run. Once the shards hold every match, the
         * tasks are only exiting: every 0.25 s. */
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = ((long)(t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000) / 10;
        sleep_ms(ms < 250 || done >= total ? 250 : ms > 5000 ? 5000 : ms);
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

/* dir gets DB.slurm (absolute), made when missing. One line in err on
 * failure. */
static bool staging_dir(const char *db_path, const char *flag, char *dir, size_t dcap, char *err,
                        size_t cap)
{
    char abs_db[PATH_MAX];
    if (!realpath(db_path, abs_db)) {
        snprintf(err, cap, "%s: cannot resolve '%s': %s", flag, db_path, strerror(errno));
        return false;
    }
    snprintf(dir, dcap, "%s.slurm", abs_db);
    struct stat sb;
    errno = 0;
    if (lstat(dir, &sb) == 0 ? !S_ISDIR(sb.st_mode) : mkdir(dir, 0777) != 0) {
        snprintf(err, cap, "%s: '%s' must be a directory (the jobs' scripts and logs go "
                 "there)%s%s", flag, dir, errno ? ": " : "", errno ? strerror(errno) : "");
        return false;
    }
    return true;
}

/* ---- the shards' exported decisions ------------------------------------------ */

/* One match's chunk in a shard's export file: its match map and the
 * decision maps after it. */
typedef struct xchunk {
    uint32_t match, file;
    size_t off, len;
} xchunk;

static int xchunk_cmp(const void *a, const void *b)
{
    const xchunk *x = a, *y = b;
    if (x->match != y->match)
        return x->match < y->match ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the whole chunks of buf (one export file, docs/training-data.md) to
 * *c; a truncated or malformed tail ends the file (a task killed while it
 * wrote: its complete matches count). */
static int scan_export(const char *buf, size_t len, uint32_t file, xchunk **c, size_t *n,
                       size_t *capc)
{
    size_t off = 0;
    while (off < len) {
        size_t end = 0;
        if (ja_mp_scan(buf, len, off, &end) != 1)
            break;
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        size_t o = off;
        uint64_t match = 0, dec = 0;
        char type[16] = "";
        bool ok = msgpack_unpack_next(&u, buf, end, &o) == MSGPACK_UNPACK_SUCCESS &&
                  u.data.type == MSGPACK_OBJECT_MAP &&
                  ja_mp_get_str(&u.data, "type", type, sizeof type) &&
                  strcmp(type, "match") == 0 && ja_mp_get_u64(&u.data, "match", &match) &&
                  ja_mp_get_u64(&u.data, "decisions", &dec) && match <= UINT32_MAX;
        msgpack_unpacked_destroy(&u);
        if (!ok)
            break;
        size_t e = end;
        for (uint64_t d = 0; ok && d < dec; d++)
            ok = ja_mp_scan(buf, len, e, &e) == 1;
        if (!ok)
            break;
        if (*n == *capc) {
            size_t nc = *capc ? 2 * *capc : 256;
            xchunk *g = realloc(*c, nc * sizeof *g);
            if (!g)
                return JA_ENOMEM;
            *c = g;
            *capc = nc;
        }
        (*c)[(*n)++] = (xchunk){(uint32_t)match, file, off, e - off};
        off = e;
    }
    return JA_OK;
}

/* Appends to xf, in match order and each once, the chunks of the matches
 * pending[0..np) (ascending) found in the export files dir/tT-*.mp of the
 * shards; *missing counts the matches without one. */
static int export_shards(const char *dir, int64_t tid, const uint32_t *pending, uint32_t np,
                         arena_export *xf, uint32_t *missing, char *err, size_t cap)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t%lld-", (long long)tid);
    size_t pl = strlen(prefix);
    char **names = NULL;
    size_t nn = 0;
    int rc = JA_OK;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, cap, "--export-decisions: cannot read '%s': %s", dir, strerror(errno));
        return JA_EIO;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l < pl + 3 || strncmp(e->d_name, prefix, pl) != 0 ||
            strcmp(e->d_name + l - 3, ".mp") != 0)
            continue;
        char **g = realloc(names, (nn + 1) * sizeof *g);
        if (!g || !(g[nn] = strdup(e->d_name))) {
            names = g ? g : names;
            rc = JA_ENOMEM;
            break;
        }
        names = g;
        nn++;
    }
    closedir(d);
    /* In name order: where a match was exported twice (a task run again
     * after a kill), the same file wins on every run. */
    if (names)
        qsort(names, nn, sizeof *names, name_cmp);
    char **map = calloc(nn ? nn : 1, sizeof *map);
    size_t *maplen = calloc(nn ? nn : 1, sizeof *maplen);
    xchunk *c = NULL;
    size_t n_c = 0, cap_c = 0;
    if (!map || !maplen)
        rc = JA_ENOMEM;
    for (size_t i = 0; rc == JA_OK && i < nn; i++) {
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            snprintf(err, cap, "--export-decisions: cannot read '%s': %s", path,
                     fd < 0 ? strerror(errno) : "not a regular file");
            if (fd >= 0)
                close(fd);
            rc = JA_EIO;
            break;
        }
        if (sb.st_size > 0) {
            void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m == MAP_FAILED) {
                snprintf(err, cap, "--export-decisions: cannot read '%s': %s", path,
                         strerror(errno));
                rc = JA_EIO;
            } else {
                map[i] = m;
                maplen[i] = (size_t)sb.st_size;
                rc = scan_export(m, maplen[i], (uint32_t)i, &c, &n_c, &cap_c);
            }
        }
        close(fd);
    }
    if (rc == JA_ENOMEM)
        snprintf(err, cap, "--export-decisions: out of memory");
    if (rc == JA_OK) {
        if (c)
            qsort(c, n_c, sizeof *c, xchunk_cmp);
        *missing = 0;
        size_t j = 0;
        for (uint32_t i = 0; rc == JA_OK && i < np; i++) {
            while (j < n_c && c[j].match < pending[i])
                j++;
            if (j == n_c || c[j].match != pending[i]) {
                ++*missing;
                continue;
            }
            if (arena_export_append(xf, map[c[j].file] + c[j].off, c[j].len) != JA_OK) {
                snprintf(err, cap, "--export-decisions: cannot write the exported decisions of "
                         "match %u", (unsigned)pending[i]);
                rc = JA_EIO;
            }
        }
    }
    for (size_t i = 0; i < nn; i++) {
        if (map && map[i])
            munmap(map[i], maplen[i]);
        free(names[i]);
    }
    free(names);
    free(map);
    free(maplen);
    free(c);
    return rc;
}

int arena_slurm_play(ladder_db *db, const char *db_path, int64_t tid,
                     const ladder_tournament_spec *spec, const arena_slurm *s,
                     arena_export *xf, bool quiet, volatile sig_atomic_t *stop,
                     arena_progress_fn progress, void *pctx, char *err, size_t cap)
{
    const uint32_t n = s->n;
    char dir[PATH_MAX + 8], script[PATH_MAX + 40], stage_path[PATH_MAX + 40];
    ladder_tournament_info ti;
    if (ladder_db_tournament_get(db, tid, &ti) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return JA_EIO;
    }
    if (ti.done)
        return JA_OK;
    if (!staging_dir(db_path, "--slurm", dir, sizeof dir, err, cap))
        return JA_EIO;
    snprintf(script, sizeof script, "%s/t%lld.sh", dir, (long long)tid);
    snprintf(stage_path, sizeof stage_path, "%s/t%lld-all.db", dir, (long long)tid);
    ladder_tournament_spec sp = *spec;
    sp.seed = ti.seed;
    ladder_db *stage = NULL;
    uint32_t *left = calloc(n, sizeof *left), *base = calloc(n, sizeof *base);
    bool *todo = calloc(n, sizeof *todo);
    char (*shard)[PATH_MAX + 64] = calloc(n, sizeof *shard);
    char *spec_s = malloc(8 * (size_t)n + 16);
    uint32_t *pending = NULL, np = 0;
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
        if ((rc = submit(s, script, dir, tid, ti.seed, xf != NULL, todo, spec_s, job_s,
                         sizeof job_s, err, cap)) != JA_OK)
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
        /* The matches this merge records: their decisions are exported. */
        if (xf && (rc = ladder_db_pending(db, tid, &pending, &np)) != JA_OK) {
            snprintf(err, cap, "%s", ladder_db_errmsg(db));
            goto done;
        }
        if ((rc = ladder_db_merge(db, stage_path, &r, merr, sizeof merr)) != JA_OK) {
            snprintf(err, cap, "--slurm: cannot merge '%s': %s", stage_path, merr);
            goto done;
        }
        uint32_t missing = 0;
        if (xf && (rc = export_shards(dir, tid, pending, np, xf, &missing, err, cap)) != JA_OK)
            goto done;
        if (missing && !quiet)
            fprintf(stderr, "arena: note: --export-decisions: no shard exported the decisions "
                    "of %u of the %u matches merged (played by a run without "
                    "--export-decisions); the file has the others\n", missing, np);
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
    free(pending);
    free(left);
    free(base);
    free(todo);
    free(shard);
    free(spec_s);
    return rc;
}

/* ---- --slurm-workers ----------------------------------------------------------- */

struct arena_slurm_workers {
    char job[64];
    char dir[PATH_MAX + 8], key[PATH_MAX + 40];
    uint32_t n;
    int64_t tid;
    volatile sig_atomic_t *stop;
    pthread_t th;
    bool have_th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool quit;  /* under mu: the run is over, stop following */
    bool ended; /* under mu: no task of the job is left while the run went on */
};

int arena_slurm_worker_keys(char pub[41], char sec[41])
{
    return zmq_curve_keypair(pub, sec) == 0 ? JA_OK : JA_EINVAL;
}

void arena_slurm_connect_endpoint(const char *bind_ep, char *out, size_t cap)
{
    const char *host = strncmp(bind_ep, "tcp://", 6) == 0 ? bind_ep + 6 : NULL;
    const char *port = host ? strrchr(host, ':') : NULL;
    char name[256];
    if (port && ((port - host == 7 && strncmp(host, "0.0.0.0", 7) == 0) ||
                 (port - host == 1 && host[0] == '*')) &&
        gethostname(name, sizeof name) == 0) {
        name[sizeof name - 1] = '\0';
        snprintf(out, cap, "tcp://%s%s", name, port);
        return;
    }
    snprintf(out, cap, "%s", bind_ep);
}

/* Writes the key file (through a temporary file made 0600 and a rename). */
static bool write_keys(const char *path, const char *server, const char *pub, const char *sec,
                       char *err, size_t cap)
{
    char tmp[PATH_MAX + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    char buf[320];
    int len = snprintf(buf, sizeof buf, "# the workers' keys of one arena run (docs/scale.md)\n"
                       "server %s\npublic %s\nsecret %s\n", server, pub, sec);
    bool ok = fd >= 0 && fchmod(fd, 0600) == 0 && write(fd, buf, (size_t)len) == len;
    sodium_memzero(buf, sizeof buf);
    if (fd >= 0)
        ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, cap, "--slurm-workers: cannot write the key file '%s': %s", path,
                 strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

/* Follows the job with squeue until told to quit; sets *stop and ended
 * when no task of it is left. */
static void *follow_workers(void *arg)
{
    arena_slurm_workers *w = arg;
    char out[4096];
    char *const sq[] = {"squeue", "-h", "-r", "-j", w->job, "-o", "%K %T", NULL};
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_mutex_lock(&w->mu);
    while (!w->quit) {
        /* Every tenth of the time so far, from 0.25 s to 5 s (as wait_job). */
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = ((long)(t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000) / 10;
        ms = ms < 250 ? 250 : ms > 5000 ? 5000 : ms;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += ms / 1000;
        until.tv_nsec += (ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->cv, &w->mu, &until);
        if (w->quit)
            break;
        pthread_mutex_unlock(&w->mu);
        int st = run(sq, out, sizeof out);
        bool gone = (st == 0 && !out[0]) || (st != 0 && strstr(out, "Invalid job id"));
        pthread_mutex_lock(&w->mu);
        if (gone && !w->quit) {
            w->ended = true;
            *w->stop = 1;
            break;
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int arena_slurm_workers_start(const arena_slurm *s, int64_t tid, const char *endpoint,
                              const char *server_pub, const char *pub, const char *sec,
                              bool quiet, volatile sig_atomic_t *stop,
                              arena_slurm_workers **out, char *err, size_t cap)
{
    *out = NULL;
    arena_slurm_workers *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, cap, "--slurm-workers: out of memory");
        return JA_ENOMEM;
    }
    w->n = s->workers;
    w->tid = tid;
    w->stop = stop;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    char referee[PATH_MAX], script[PATH_MAX + 40], tmp[PATH_MAX + 48];
    if (!staging_dir(s->db_path, "--slurm-workers", w->dir, sizeof w->dir, err, cap)) {
        arena_slurm_workers_end(&w);
        return JA_EIO;
    }
    if (!arena_find_referee(referee, sizeof referee)) {
        snprintf(err, cap, "--slurm-workers: cannot find the referee worker program '%s' (set "
                 "JACKARENA_REFEREE)", referee);
        arena_slurm_workers_end(&w);
        return JA_ENOTFOUND;
    }
    snprintf(w->key, sizeof w->key, "%s/t%lld-workers.key", w->dir, (long long)tid);
    snprintf(script, sizeof script, "%s/t%lld-workers.sh", w->dir, (long long)tid);
    if (server_pub && !write_keys(w->key, server_pub, pub, sec, err, cap)) {
        w->key[0] = '\0';
        arena_slurm_workers_end(&w);
        return JA_EIO;
    }
    if (!server_pub)
        w->key[0] = '\0';
    snprintf(tmp, sizeof tmp, "%s.tmp", script);
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "#!/bin/sh\n# Written by `arena tournament --slurm-workers %u` (docs/scale.md): "
                "each task of the job\n# array is a referee worker of tournament %lld, playing "
                "the matches the arena\n# hands out (a slot per CPU of the task).\nexec ",
                w->n, (long long)tid);
        sh_quote(f, referee);
        fputs(" --connect ", f);
        sh_quote(f, endpoint);
        if (w->key[0]) {
            fputs(" --key-file ", f);
            sh_quote(f, w->key);
        }
        fputs(" --slots \"${SLURM_CPUS_PER_TASK:-1}\"\n", f);
    }
    bool ok = f && fflush(f) == 0 && !ferror(f);
    ok &= f && fclose(f) == 0;
    if (!ok || chmod(tmp, 0755) != 0 || rename(tmp, script) != 0) {
        snprintf(err, cap, "--slurm-workers: cannot write '%s': %s", script, strerror(errno));
        unlink(tmp);
        arena_slurm_workers_end(&w);
        return JA_EIO;
    }
    char array[32], name[64], log[PATH_MAX + 64];
    snprintf(array, sizeof array, "1-%u", w->n);
    snprintf(name, sizeof name, "arena-t%lld-workers", (long long)tid);
    snprintf(log, sizeof log, "%s/t%lld-w%%aof%u.log", w->dir, (long long)tid, w->n);
    int rc = sbatch(s, script, array, name, log, w->job, sizeof w->job, err, cap);
    if (rc != JA_OK) {
        arena_slurm_workers_end(&w);
        return rc;
    }
    if (!quiet)
        fprintf(stderr, "arena: Slurm job %s: %u referee worker%s joining %s, logs "
                "%s/t%lld-w*of%u.log\n", w->job, w->n, w->n == 1 ? "" : "s", endpoint, w->dir,
                (long long)tid, w->n);
    w->have_th = pthread_create(&w->th, NULL, follow_workers, w) == 0;
    *out = w;
    return JA_OK;
}

static void unfollow(arena_slurm_workers *w)
{
    if (!w->have_th)
        return;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    w->have_th = false;
}

bool arena_slurm_workers_failed(arena_slurm_workers *w, char *err, size_t cap)
{
    if (!w)
        return false;
    unfollow(w);
    bool ended = w->ended;
    if (ended)
        snprintf(err, cap, "--slurm-workers: the workers' Slurm job %s ended while matches were "
                 "left (see %s/t%lld-w1of%u.log); run the same command again", w->job, w->dir,
                 (long long)w->tid, w->n);
    return ended;
}

void arena_slurm_workers_end(arena_slurm_workers **wp)
{
    arena_slurm_workers *w = *wp;
    if (!w)
        return;
    *wp = NULL;
    unfollow(w);
    if (w->job[0]) {
        /* The workers quit when the arena says so; tasks not started yet
         * (or not told) are cancelled. Then wait until none is left. */
        char out[4096];
        char *const sc[] = {"scancel", w->job, NULL};
        char *const sq[] = {"squeue", "-h", "-r", "-j", w->job, "-o", "%K", NULL};
        if (run(sc, out, sizeof out) != 0) {
            one_line(out, sizeof out);
            fprintf(stderr, "arena: scancel %s: %s\n", w->job, out);
        }
        for (int fails = 0; fails < 30;) {
            int st = run(sq, out, sizeof out);
            if ((st == 0 && !out[0]) || (st != 0 && strstr(out, "Invalid job id")))
                break;
            fails = st == 0 ? 0 : fails + 1;
            sleep_ms(250);
        }
    }
    if (w->key[0])
        unlink(w->key);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

/* ---- a worker's key file ------------------------------------------------------------ */

int arena_key_file_read(const char *path, char server[41], char pub[41], char sec[41],
                        char *err, size_t cap)
{
    server[0] = pub[0] = sec[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(err, cap, "--key-file '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return JA_EIO;
    }
    if (!S_ISREG(sb.st_mode) || (sb.st_mode & 077) != 0) {
        snprintf(err, cap, "--key-file '%s': %s", path,
                 !S_ISREG(sb.st_mode) ? "not a regular file"
                                      : "others may read or write it (chmod 600 it)");
        close(fd);
        return JA_EINVAL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, cap, "--key-file '%s': %s", path, strerror(errno));
        close(fd);
        return JA_EIO;
    }
    char line[256];
    int rc = JA_OK;
    unsigned no = 0;
    while (rc == JA_OK && fgets(line, sizeof line, f)) {
        no++;
        char name[16], key[64], extra;
        const char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        uint8_t bin[32];
        int k = sscanf(p, "%15s %63s %c", name, key, &extra);
        char *dst = k != 2 ? NULL : strcmp(name, "server") == 0 ? server
                                  : strcmp(name, "public") == 0 ? pub
                                  : strcmp(name, "secret") == 0 ? sec : NULL;
        if (!dst || strlen(key) != 40 || !zmq_z85_decode(bin, key)) {
            snprintf(err, cap, "--key-file '%s': line %u is not `server|public|secret KEY` with "
                     "a Z85 key of 40 characters", path, no);
            rc = JA_EINVAL;
        } else {
            memcpy(dst, key, 41);
        }
        sodium_memzero(key, sizeof key);
    }
    sodium_memzero(line, sizeof line);
    fclose(f);
    if (rc == JA_OK && !server[0]) {
        snprintf(err, cap, "--key-file '%s': no `server KEY` line (the arena's public key)", path);
        rc = JA_EINVAL;
    }
    if (rc == JA_OK && !pub[0] != !sec[0]) {
        snprintf(err, cap, "--key-file '%s': give both `public` and `secret`, or neither", path);
        rc = JA_EINVAL;
    }
    if (rc != JA_OK)
        sodium_memzero(sec, 41);
    return rc;
}
