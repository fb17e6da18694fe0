/* A tournament as a Slurm job array (slurm.h). */
#include "run/slurm.h"
#include "core/db_lock.h"
#include "run/executor.h"
#include "core/util.h"

#include "run/export.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
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

int arena_slurm_flag_n(arena_slurm *s, const char *arg, char *err, size_t cap)
{
    if (!arena_parse_u32(arg, &s->n) || s->n == 0 || s->n > ARENA_SLURM_MAX_SHARDS) {
        snprintf(err, cap, "--slurm needs a number of shards from 1 to %d, not '%s'",
                 ARENA_SLURM_MAX_SHARDS, arg);
        return JA_EINVAL;
    }
    return JA_OK;
}

int arena_slurm_flag_workers(arena_slurm *s, const char *arg, char *err, size_t cap)
{
    if (!arena_parse_u32(arg, &s->workers) || s->workers == 0 ||
        s->workers > ARENA_SLURM_MAX_SHARDS) {
        snprintf(err, cap, "--slurm-workers needs a number of workers from 1 to %d, not '%s'",
                 ARENA_SLURM_MAX_SHARDS, arg);
        return JA_EINVAL;
    }
    return JA_OK;
}

int arena_slurm_flag_opt(arena_slurm *s, const char *arg, char *err, size_t cap)
{
    if (s->n_opts == ARENA_SLURM_MAX_OPTS) {
        snprintf(err, cap, "--slurm-opt: at most %d of them (put several words in one)",
                 ARENA_SLURM_MAX_OPTS);
        return JA_EINVAL;
    }
    s->opts[s->n_opts++] = arg;
    return JA_OK;
}

static void drop(arena_slurm *s, const char *p, int argc)
{
    if (!s->drop)
        s->drop = ja_xcalloc((size_t)argc + 1, sizeof *s->drop);
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
 * (quotes, backslashes), no command substitution. False with one line in
 * err. */
static bool split_opt(const char *opt, wordexp_t *w, char *err, size_t cap)
{
    int rc = wordexp(opt, w, WRDE_NOCMD);
    if (rc == 0)
        return true;
    const char *why = rc == WRDE_BADCHAR ? "an unquoted | & ; < > ( ) { } or newline"
                      : rc == WRDE_CMDSUB ? "command substitution ($(...) or `...`)"
                      : rc == WRDE_SYNTAX ? "unbalanced quotes"
                                          : "a word that cannot be expanded";
    snprintf(err, cap, "--slurm-opt '%s' has %s: give sbatch options as plain words", opt, why);
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
    char *copy = ja_xstrdup(path), *save = NULL;
    bool found = false;
    for (char *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char f[PATH_MAX];
        struct stat sb;
        snprintf(f, sizeof f, "%s/%s", *d ? d : ".", prog);
        found = stat(f, &sb) == 0 && S_ISREG(sb.st_mode) && access(f, X_OK) == 0;
    }
    free(copy);
    return found;
}

int arena_slurm_check(const arena_slurm *s, char *err, size_t cap)
{
    if (!s->n && !s->workers) {
        if (s->n_opts) {
            snprintf(err, cap, "--slurm-opt '%s' needs --slurm N or --slurm-workers N",
                     s->opts[0]);
            return JA_EINVAL;
        }
        return JA_OK;
    }
    const char *flag = s->n ? "--slurm" : "--slurm-workers";
    for (uint32_t i = 0; i < s->n_opts; i++) {
        wordexp_t w;
        if (!split_opt(s->opts[i], &w, err, cap))
            return JA_EINVAL;
        wordfree(&w);
    }
    static const char *const progs[] = {"sbatch", "squeue", "scancel"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        if (!on_path(progs[i])) {
            snprintf(err, cap, "%s: '%s' is not on PATH (Slurm's client commands are needed "
                     "where the arena runs; Debian: slurm-client)", flag, progs[i]);
            return JA_EINVAL;
        }
    return JA_OK;
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
    char *copy = ja_xstrdup(s);
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
 * dropped flags, with the tournament's seed and seating (ti: the stored
 * ones, whatever this run's default), its shard and its database. */
static bool write_script(const arena_slurm *s, const char *script, const char *dir, int64_t tid,
                         const ladder_tournament_info *ti, bool export, char *err, size_t cap)
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
    fprintf(f, " --seed %s --seating %s -q --shard \"$SLURM_ARRAY_TASK_ID/%u\" --tournament-id "
               "%lld \\\n    --db ",
            ladder_seed_format(ti->seed, seed_s), ladder_seating_name(ti->seating), s->n,
            (long long)tid);
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
    for (; n_w < s->n_opts; n_w++) {
        if (!split_opt(s->opts[n_w], &w[n_w], err, cap)) { /* arena_slurm_check split it */
            snprintf(err, cap, "--slurm-opt '%s' cannot be split into words", s->opts[n_w]);
            for (uint32_t j = 0; j < n_w; j++)
                wordfree(&w[j]);
            return JA_EINVAL;
        }
        n_args += w[n_w].we_wordc;
    }
    char **av = ja_xcalloc(n_args + 1, sizeof *av);
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
    int st = run(av, out, sizeof out);
    free(av);
    for (uint32_t j = 0; j < n_w; j++)
        wordfree(&w[j]);
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
                  const ladder_tournament_info *ti, bool export, const bool *todo, char *spec_s,
                  char *job, size_t job_cap, char *err, size_t cap)
{
    const uint32_t n = s->n;
    if (!write_script(s, script, dir, tid, ti, export, err, cap))
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
static void scan_export(const char *buf, size_t len, uint32_t file, xchunk **c, size_t *n,
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
            *capc = *capc ? 2 * *capc : 256;
            *c = ja_xrealloc(*c, *capc * sizeof **c);
        }
        (*c)[(*n)++] = (xchunk){(uint32_t)match, file, off, e - off};
        off = e;
    }
}

/* The shards' export files of tournament tid in dir (tT-*.mp), mapped,
 * and the whole chunks found in them. */
typedef struct xfiles {
    char **names;               /* in name order */
    size_t n;
    char **map;                 /* each file's bytes; NULL: empty */
    size_t *maplen;
    xchunk *c;
    size_t n_c, cap_c;
} xfiles;

/* x->names: the export files of tournament tid in dir, in name order:
 * where a match was exported twice (a task run again after a kill), the
 * same file wins on every run. */
static int list_exports(const char *dir, int64_t tid, xfiles *x, char *err, size_t cap)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t%lld-", (long long)tid);
    size_t pl = strlen(prefix);
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
        x->names = ja_xrealloc(x->names, (x->n + 1) * sizeof *x->names);
        x->names[x->n++] = ja_xstrdup(e->d_name);
    }
    closedir(d);
    if (x->names)
        qsort(x->names, x->n, sizeof *x->names, name_cmp);
    return JA_OK;
}

/* Maps export file i of dir and adds its whole chunks. */
static int map_export(const char *dir, xfiles *x, size_t i, char *err, size_t cap)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", dir, x->names[i]);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, cap, "--export-decisions: cannot read '%s': %s", path,
                 fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return JA_EIO;
    }
    int rc = JA_OK;
    if (sb.st_size > 0) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            snprintf(err, cap, "--export-decisions: cannot read '%s': %s", path,
                     strerror(errno));
            rc = JA_EIO;
        } else {
            x->map[i] = m;
            x->maplen[i] = (size_t)sb.st_size;
            scan_export(m, x->maplen[i], (uint32_t)i, &x->c, &x->n_c, &x->cap_c);
        }
    }
    close(fd);
    return rc;
}

/* Appends to xf, in match order and each once, the chunk of each match of
 * pending[0..np) (ascending); *missing counts the matches without one. */
static int append_chunks(xfiles *x, const uint32_t *pending, uint32_t np, arena_export *xf,
                         uint32_t *missing, char *err, size_t cap)
{
    if (x->c)
        qsort(x->c, x->n_c, sizeof *x->c, xchunk_cmp);
    *missing = 0;
    size_t j = 0;
    for (uint32_t i = 0; i < np; i++) {
        while (j < x->n_c && x->c[j].match < pending[i])
            j++;
        if (j == x->n_c || x->c[j].match != pending[i]) {
            ++*missing;
            continue;
        }
        const xchunk *c = &x->c[j];
        if (arena_export_append(xf, x->map[c->file] + c->off, c->len) != JA_OK) {
            snprintf(err, cap, "--export-decisions: cannot write the exported decisions of "
                     "match %u", (unsigned)pending[i]);
            return JA_EIO;
        }
    }
    return JA_OK;
}

static void xfiles_free(xfiles *x)
{
    for (size_t i = 0; i < x->n; i++) {
        if (x->map && x->map[i])
            munmap(x->map[i], x->maplen[i]);
        free(x->names[i]);
    }
    free(x->names);
    free(x->map);
    free(x->maplen);
    free(x->c);
}

/* Appends to xf, in match order and each once, the chunks of the matches
 * pending[0..np) (ascending) found in the export files dir/tT-*.mp of the
 * shards; *missing counts the matches without one. */
static int export_shards(const char *dir, int64_t tid, const uint32_t *pending, uint32_t np,
                         arena_export *xf, uint32_t *missing, char *err, size_t cap)
{
    xfiles x = {0};
    int rc = list_exports(dir, tid, &x, err, cap);
    if (rc != JA_OK)
        return rc;
    x.map = ja_xcalloc(x.n ? x.n : 1, sizeof *x.map);
    x.maplen = ja_xcalloc(x.n ? x.n : 1, sizeof *x.maplen);
    for (size_t i = 0; rc == JA_OK && i < x.n; i++)
        rc = map_export(dir, &x, i, err, cap);
    if (rc == JA_OK)
        rc = append_chunks(&x, pending, np, xf, missing, err, cap);
    xfiles_free(&x);
    return rc;
}

/* One --slurm run (arena_slurm_play): what it was given, where its files
 * go, and what each shard has left. */
typedef struct slurm_run {
    ladder_db *db;
    const char *db_path;
    int64_t tid;
    const arena_slurm *s;
    arena_export *xf;
    bool quiet;
    volatile sig_atomic_t *stop;
    arena_progress_fn progress;
    void *pctx;
    char *err;
    size_t cap;
    uint32_t n;                        /* shards */
    ladder_tournament_info ti;
    ladder_tournament_spec sp;         /* the tournament, with its seed */
    char dir[PATH_MAX + 8], script[PATH_MAX + 40], stage_path[PATH_MAX + 40];
    ladder_db *stage;                  /* the staging database */
    int64_t stid;                      /* the tournament there; 0: none yet */
    char (*shard)[PATH_MAX + 64];      /* each shard's database */
    uint32_t *left, *base;             /* each shard's matches left, and recorded before */
    bool *todo;                        /* the shards submitted */
    char *spec_s;                      /* shards as a list (8 * n + 16 bytes) */
    const char *job;                   /* the job submitted (job_s); NULL: none */
    char job_s[64];
    uint32_t *pending, np;             /* what the final merge records */
} slurm_run;

/* The staging directory DB.slurm/ and its files' names, each shard's
 * lists, and the staging database open. The shards' databases are merged
 * into it (DB.slurm/tT-all.db), and that into --db once every match is
 * there: one merge in match order, so that the live Elo is the one of an
 * unsharded run. */
static int open_staging(slurm_run *r)
{
    const uint32_t n = r->n;
    if (!staging_dir(r->db_path, "--slurm", r->dir, sizeof r->dir, r->err, r->cap))
        return JA_EIO;
    snprintf(r->script, sizeof r->script, "%s/t%lld.sh", r->dir, (long long)r->tid);
    snprintf(r->stage_path, sizeof r->stage_path, "%s/t%lld-all.db", r->dir, (long long)r->tid);
    r->left = ja_xcalloc(n, sizeof *r->left);
    r->base = ja_xcalloc(n, sizeof *r->base);
    r->todo = ja_xcalloc(n, sizeof *r->todo);
    r->shard = ja_xcalloc(n, sizeof *r->shard);
    r->spec_s = ja_xmalloc(8 * (size_t)n + 16);
    for (uint32_t k = 0; k < n; k++)
        snprintf(r->shard[k], sizeof r->shard[k], "%s/t%lld-%uof%u.db", r->dir,
                 (long long)r->tid, k + 1, n);
    int rc = ladder_db_open(r->stage_path, &r->stage);
    if (rc != JA_OK)
        snprintf(r->err, r->cap, "--slurm: %s",
                 r->stage ? ladder_db_errmsg(r->stage) : ja_strerror(rc));
    return rc;
}

/* Merges the shards' databases (those of todo, or all when todo is NULL;
 * base: see merge_shards) into the staging one and counts what each shard
 * has left. */
static int merge_and_count(slurm_run *r, const bool *todo, uint32_t *base)
{
    int rc = merge_shards(r->stage, r->shard, r->n, todo, base, &r->sp, &r->stid, r->err,
                          r->cap);
    if (rc == JA_OK)
        rc = count_left(r->db, r->tid, r->stage, r->stid, r->n, r->left, r->err, r->cap);
    return rc;
}

/* Submits the shards with matches left (unless stopped), waits for their
 * job and merges what they recorded. */
static int run_shards(slurm_run *r)
{
    const uint32_t n = r->n;
    uint32_t n_todo = 0, n_left = 0;
    for (uint32_t k = 0; k < n; k++) {
        n_todo += r->todo[k] = r->left[k] > 0;
        n_left += r->left[k];
    }
    if (!n_todo || *r->stop)
        return JA_OK;
    int rc = submit(r->s, r->script, r->dir, r->tid, &r->ti, r->xf != NULL, r->todo,
                    r->spec_s, r->job_s, sizeof r->job_s, r->err, r->cap);
    if (rc != JA_OK)
        return rc;
    r->job = r->job_s;
    if (!r->quiet)
        fprintf(stderr, "arena: Slurm job %s: %u shard%s of %u (%s), logs %s/t%lld-*of%u.log\n",
                r->job, n_todo, n_todo == 1 ? "" : "s", n, r->spec_s, r->dir,
                (long long)r->tid, n);
    rc = wait_job(r->job, n, r->todo, r->left, r->base, r->shard, r->ti.n_matches - n_left,
                  r->ti.n_matches, r->quiet, r->stop, r->progress, r->pctx, r->err, r->cap);
    if (rc == JA_OK)
        rc = merge_and_count(r, r->todo, NULL);
    return rc;
}

/* The shards with matches left (failed, or cancelled) as a list in
 * spec_s: how many, the first (from 0) in *first, and in *recorded the
 * matches the shards hold beyond those recorded in db. */
static uint32_t failed_shards(slurm_run *r, uint32_t *first, uint32_t *recorded)
{
    const uint32_t n = r->n;
    size_t len = 0, cap = 8 * (size_t)n + 16;
    uint32_t n_failed = 0;
    *first = 0;
    *recorded = r->ti.n_matches - r->ti.n_done;
    for (uint32_t k = 0; k < n; k++) {
        *recorded -= r->left[k];
        if (!r->left[k])
            continue;
        if (!n_failed++)
            *first = k;
        int wr = snprintf(r->spec_s + len, cap - len, "%s%u", len ? "," : "", k + 1);
        if (wr > 0 && (size_t)wr < cap - len)
            len += (size_t)wr;
    }
    return n_failed;
}

/* Every match is in the staging database: it goes into db, and the
 * decisions of the matches this merge records are exported. */
static int merge_into_db(slurm_run *r)
{
    ladder_db_close(&r->stage);
    ladder_merge_result mr;
    char merr[1200];
    int rc;
    if (r->xf && (rc = ladder_db_pending(r->db, r->tid, &r->pending, &r->np)) != JA_OK) {
        snprintf(r->err, r->cap, "%s", ladder_db_errmsg(r->db));
        return rc;
    }
    if ((rc = ladder_db_merge(r->db, r->stage_path, &mr, merr, sizeof merr)) != JA_OK) {
        snprintf(r->err, r->cap, "--slurm: cannot merge '%s': %s", r->stage_path, merr);
        return rc;
    }
    uint32_t missing = 0;
    if (r->xf && (rc = export_shards(r->dir, r->tid, r->pending, r->np, r->xf, &missing, r->err,
                                     r->cap)) != JA_OK)
        return rc;
    if (missing && !r->quiet)
        fprintf(stderr, "arena: note: --export-decisions: no shard exported the decisions "
                "of %u of the %u matches merged (played by a run without "
                "--export-decisions); the file has the others\n", missing, r->np);
    if (r->progress && ladder_db_tournament_get(r->db, r->tid, &r->ti) == JA_OK)
        r->progress(r->pctx, r->ti.n_done, r->ti.n_matches);
    return JA_OK;
}

/* After the job: the final merge when every shard is done; otherwise,
 * stopped, a note of what the shards hold, or the shards that did not
 * finish as the run's error. */
static int finish(slurm_run *r)
{
    uint32_t first, recorded;
    uint32_t n_failed = failed_shards(r, &first, &recorded);
    if (!n_failed)
        return merge_into_db(r);
    if (*r->stop) {
        if (!r->quiet)
            fprintf(stderr, "arena: the shards hold %u more of the %u matches (in %s); they go "
                    "into %s when every shard is done\n", recorded, r->ti.n_matches, r->dir,
                    r->db_path);
        return JA_OK;
    }
    snprintf(r->err, r->cap, "--slurm: shard%s %s of %u did not finish (Slurm job %s; see "
             "%s/t%lld-%uof%u.log%s); run the same command again to submit %s again",
             n_failed == 1 ? "" : "s", r->spec_s, r->n, r->job ? r->job : "-", r->dir,
             (long long)r->tid, first + 1, r->n, n_failed > 1 ? " and the others" : "",
             n_failed == 1 ? "it" : "them");
    return JA_EIO;
}

int arena_slurm_play(ladder_db *db, const char *db_path, int64_t tid,
                     const ladder_tournament_spec *spec, const arena_slurm *s,
                     arena_export *xf, bool quiet, volatile sig_atomic_t *stop,
                     arena_progress_fn progress, void *pctx, char *err, size_t cap)
{
    slurm_run run = {.db = db, .db_path = db_path, .tid = tid, .s = s, .xf = xf,
                     .quiet = quiet, .stop = stop, .progress = progress, .pctx = pctx,
                     .err = err, .cap = cap, .n = s->n, .sp = *spec};
    slurm_run *r = &run;
    int rc = JA_OK;
    if (ladder_db_tournament_get(db, tid, &r->ti) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        rc = JA_EIO;
    } else if (!r->ti.done) {
        r->sp.seed = r->ti.seed;
        r->sp.seating = r->ti.seating;
        /* What the shards recorded in an earlier run is merged first: only
         * the shards with matches left are submitted. */
        rc = open_staging(r);
        if (rc == JA_OK)
            rc = merge_and_count(r, NULL, r->base);
        if (rc == JA_OK)
            rc = run_shards(r);
        if (rc == JA_OK)
            rc = finish(r);
    }
    ladder_db_close(&r->stage);
    free(r->pending);
    free(r->left);
    free(r->base);
    free(r->todo);
    free(r->shard);
    free(r->spec_s);
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

/* Writes the workers' batch script (through a temporary file and a
 * rename): each task runs the referee worker program, connecting to
 * endpoint with the key file when there is one. */
static bool write_workers_script(const arena_slurm_workers *w, const char *script,
                                 const char *referee, const char *endpoint, char *err, size_t cap)
{
    char tmp[PATH_MAX + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp", script);
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "#!/bin/sh\n# Written by `arena tournament --slurm-workers %u` (docs/scale.md): "
                "each task of the job\n# array is a referee worker of tournament %lld, playing "
                "the matches the arena\n# hands out (a slot per CPU of the task).\nexec ",
                w->n, (long long)w->tid);
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
        return false;
    }
    return true;
}

int arena_slurm_workers_start(const arena_slurm *s, int64_t tid, const char *endpoint,
                              const char *server_pub, const char *pub, const char *sec,
                              bool quiet, volatile sig_atomic_t *stop,
                              arena_slurm_workers **out, char *err, size_t cap)
{
    *out = NULL;
    arena_slurm_workers *w = ja_xcalloc(1, sizeof *w);
    w->n = s->workers;
    w->tid = tid;
    w->stop = stop;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    char referee[PATH_MAX], script[PATH_MAX + 40];
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
    if (!write_workers_script(w, script, referee, endpoint, err, cap)) {
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

/* How long arena_slurm_workers_end waits for the workers' tasks to leave
 * the queue after scancel (SIGTERM: a worker ends its matches and exits),
 * then after scancel --signal=KILL (a worker stuck in a bot's call ignores
 * the first), before it stops waiting. */
#define WORKERS_TERM_WAIT_MS 5000
#define WORKERS_KILL_WAIT_MS 30000

/* Waits up to ms for the workers' tasks to leave the queue (or squeue to
 * fail 30 times in a row): true when they did. */
static bool tasks_gone(const arena_slurm_workers *w, long ms)
{
    char out[4096];
    char *const sq[] = {"squeue", "-h", "-r", "-j", (char *)w->job, "-o", "%K", NULL};
    for (long waited = 0, fails = 0; fails < 30; waited += 250) {
        int st = run(sq, out, sizeof out);
        if ((st == 0 && !out[0]) || (st != 0 && strstr(out, "Invalid job id")))
            return true;
        fails = st == 0 ? 0 : fails + 1;
        if (waited >= ms)
            return false;
        sleep_ms(250);
    }
    return true;
}

/* scancel [--full how] job, its failure said in one line (not a job that
 * has just ended, or is ending, meanwhile). */
static void cancel_job(const arena_slurm_workers *w, const char *how)
{
    char out[4096];
    char *const plain[] = {"scancel", (char *)w->job, NULL};
    char *const sig[] = {"scancel", "--full", (char *)how, (char *)w->job, NULL};
    if (run(how ? sig : plain, out, sizeof out) != 0 && !strstr(out, "Invalid job id") &&
        !strstr(out, "already completing")) {
        one_line(out, sizeof out);
        fprintf(stderr, "arena: scancel %s%s%s: %s\n", how ? how : "", how ? " " : "", w->job, out);
    }
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
         * (or not told) are cancelled. Then wait until none is left: a
         * worker that does not end (stuck in a bot) is killed; one still
         * listed after that is said and not waited for. */
        cancel_job(w, NULL);
        if (!tasks_gone(w, WORKERS_TERM_WAIT_MS)) {
            cancel_job(w, "--signal=KILL");
            if (!tasks_gone(w, WORKERS_KILL_WAIT_MS))
                fprintf(stderr, "arena: Slurm job %s: tasks still in the queue %d s after "
                        "scancel --signal=KILL; not waiting for them (squeue -j %s)\n", w->job,
                        WORKERS_KILL_WAIT_MS / 1000, w->job);
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
