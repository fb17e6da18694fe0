/* The worker executor: hands jobs to `referee` worker processes over
 * ZeroMQ (executor.h; docs/scale.md). Local parallelism (--jobs J: J
 * workers started here, on an ipc endpoint in a private directory) and
 * remote workers (--workers tcp://...) are the same code path: a ROUTER
 * socket owned by the calling thread, with every worker a DEALER peer.
 *
 * Exactly once: a job stays outstanding until the first result for its
 * number arrives; that result is handed out by next() and the job is
 * forgotten, so a second result for the same number (the job went out
 * again after its worker looked lost, or a worker died after sending it) is
 * ignored. The tournament loop's recording is idempotent by match number as
 * well, which covers a result recorded by an earlier run.
 *
 * Lost workers: a local worker's death is seen by waitpid (checked on every
 * wake of the poll, at least once per heartbeat interval); a remote worker
 * is lost after WORKER_LOST_MS without a message. Its outstanding jobs go
 * out again, and a local worker is restarted. A job whose worker is lost
 * JOB_MAX_LOSSES times (a bot that crashes the process on that deal) fails
 * with an error instead of taking down every worker in turn.
 *
 * Everything happens in the caller's thread, inside submit() and next():
 * the executor has no thread of its own. */
#include "run/executor.h"
#include "outfile.h"
#include "run/worker_msg.h"
#include "zap.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define JOB_MAX_LOSSES 3
#define MAX_WORKERS 1024
/* Once the run is told to stop, how long the matches already at the
 * workers have to come back before they are left unplayed (a second stop:
 * no longer): a worker whose bot never answers keeps sending heartbeats,
 * so it is never lost, and waiting for it would never end. */
#define STOP_GRACE_MS 10000

typedef struct wk {
    uint8_t id[256];             /* ZeroMQ routing id */
    size_t id_len;
    char host[256];
    pid_t pid;                   /* a local worker's process; 0 remote */
    uint32_t slots, out;         /* announced slots; jobs handed to it */
    uint32_t depth;              /* announced jobs a slot it takes (credit) */
    int64_t last_seen;
    int64_t last_result_us, gap_us; /* its last result; the mean gap between them */
    bool alive;
} wk;

typedef struct ojob {
    arena_job job;
    int worker;                  /* index in workers, -1 waiting */
    uint32_t losses;
    int fail_rc;                 /* != 0: give this error as its result */
    char fail[256];
} ojob;

typedef struct workers_x {
    arena_executor base;
    arena_workers_opts o;
    void *zctx, *router;
    void *zap;                   /* the ZAP handler's socket (--workers-allow), or NULL */
    char **allow;                /* copies of o.allow */
    char dir[PATH_MAX];          /* private directory of the ipc endpoint */
    char endpoint[PATH_MAX + 16];
    char *setup;                 /* the packed tournament settings */
    size_t setup_len;
    msgpack_sbuffer sb;
    wk *w;
    uint32_t n_w;
    uint32_t hellos;             /* workers taken so far (on_hello) */
    pid_t *child;                /* local worker processes; 0 = none */
    uint32_t restarts;
    ojob *jobs;                  /* outstanding */
    uint32_t n_jobs, cap_jobs;
    int64_t last_hb;
    int64_t last_wait;           /* when the local workers were last looked at (waitpid) */
    uint32_t unknown_said;       /* bad messages from unknown workers reported */
    int64_t stop_ms;             /* when the stop was first seen here; 0 before */
    char referee[PATH_MAX];
} workers_x;

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_ms(void)
{
    return now_us() / 1000;
}

/* --workers-allow: the ZAP handler's question (zap.h). */
static bool worker_key_allowed(void *ctx, const char *z85)
{
    const workers_x *e = ctx;
    return ref_zap_key_listed(e->o.allow, e->o.n_allow, z85);
}

bool arena_find_referee(char *out, size_t cap)
{
    const char *env = getenv("JACKARENA_REFEREE");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return false;
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(out, cap, "%s/referee", exe);
    }
    return access(out, X_OK) == 0;
}

static bool spawn(workers_x *e, uint32_t i)
{
    char slots[16];
    snprintf(slots, sizeof slots, "%u", (unsigned)(e->o.local_slots ? e->o.local_slots : 1));
    /* One slot: the worker plays in the thread that talks to the arena
     * (--inline): its death is seen here by waitpid, never by silence. */
    bool one = !e->o.local_slots || e->o.local_slots == 1;
    char *argv[] = {"referee", "--connect", e->endpoint, "--slots", slots,
                    one ? "--inline" : NULL, NULL};
    /* The worker's scratch directory goes inside the arena's private one,
     * so that it is removed with it even if the worker is killed. Built
     * before fork: the child may only exec. */
    extern char **environ;
    size_t n_env = 0;
    while (environ[n_env])
        n_env++;
    char **envp = ja_xmalloc((n_env + 2) * sizeof *envp);
    char tmpdir[sizeof e->dir + 8];
    snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", e->dir);
    size_t k = 0;
    for (size_t v = 0; v < n_env; v++)
        if (strncmp(environ[v], "TMPDIR=", 7) != 0)
            envp[k++] = environ[v];
    envp[k++] = tmpdir;
    envp[k] = NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        free(envp);
    if (pid < 0)
        return false;
    if (pid == 0) {
        /* Out of the terminal's process group: Ctrl-C stops the arena, which
         * collects the matches in flight and then tells its workers to quit.
         * Killed when the arena dies, however it dies. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        execve(e->referee, argv, envp);
        _exit(127);
    }
    e->child[i] = pid;
    return true;
}

/* ---- workers ------------------------------------------------------------------ */

#define UNKNOWN_SAID 8

/* Jobs worker w may hold, queued and running: 2 a slot, so that a slot
 * never waits for its next job, and up to the depth it announced while its
 * matches are short (results less than SHORT_US apart a slot, on average):
 * then a worker holds a few results back to send them together
 * (worker.c, hold_result) and needs the jobs to play meanwhile. Long
 * matches keep 2 a slot, so that the last matches of a run are not queued
 * behind each other on one worker while another has nothing to do. */
#define SHORT_US 2000
static uint32_t credit(const wk *w)
{
    bool shorts = w->gap_us > 0 && w->gap_us * (int64_t)w->slots < SHORT_US;
    return (shorts ? w->depth : WORKER_DEPTH_MIN) * w->slots;
}

static uint32_t free_credit(const wk *w)
{
    uint32_t c = credit(w);
    return w->out < c ? c - w->out : 0;
}

/* The mean gap between worker w's results (an exponential moving average,
 * weight 1/8), for credit(). */
static void note_result(wk *w)
{
    int64_t t = now_us();
    if (w->last_result_us) {
        int64_t gap = t - w->last_result_us;
        w->gap_us = w->gap_us ? w->gap_us + (gap - w->gap_us) / 8 : gap;
        if (w->gap_us < 1)
            w->gap_us = 1;
    }
    w->last_result_us = t;
}

static void lose_worker(workers_x *e, uint32_t wi, const char *why)
{
    wk *w = &e->w[wi];
    if (!w->alive)
        return;
    w->alive = false;
    if (w->pid)
        kill(w->pid, SIGKILL); /* waitpid sees it and starts another */
    uint32_t back = 0;
    for (uint32_t j = 0; j < e->n_jobs; j++) {
        ojob *oj = &e->jobs[j];
        if (oj->worker != (int)wi)
            continue;
        oj->worker = -1;
        back++;
        if (++oj->losses >= JOB_MAX_LOSSES && !oj->fail_rc) {
            oj->fail_rc = JA_EBOT;
            snprintf(oj->fail, sizeof oj->fail,
                     "%u referee workers were lost while playing it (last: %s, %s)",
                     (unsigned)oj->losses, w->host, why);
        }
    }
    w->out = 0;
    if (!e->o.quiet_notes)
        fprintf(stderr, "arena: worker %s %s; %u match%s handed out again\n", w->host, why,
                (unsigned)back, back == 1 ? "" : "es");
}

static int find_worker(const workers_x *e, zmq_msg_t *id)
{
    size_t n = zmq_msg_size(id);
    for (uint32_t i = 0; i < e->n_w; i++)
        if (e->w[i].alive && e->w[i].id_len == n && memcmp(e->w[i].id, zmq_msg_data(id), n) == 0)
            return (int)i;
    return -1;
}

static bool send_to(workers_x *e, uint32_t wi)
{
    wk *w = &e->w[wi];
    if (zmq_send(e->router, w->id, w->id_len, ZMQ_SNDMORE) < 0 ||
        zmq_send(e->router, e->sb.data, e->sb.size, 0) < 0) {
        lose_worker(e, wi, "cannot be reached");
        return false;
    }
    return true;
}

/* Checks the local processes and the remote heartbeats. The local ones at
 * most every CHILD_CHECK_MS: a waitpid for each after every result cost
 * two system calls a match, and a worker's death seen a few milliseconds
 * later loses nothing (its jobs go to another worker then). */
#define CHILD_CHECK_MS 10
static void check_workers(workers_x *e, int64_t t)
{
    bool look = t - e->last_wait >= CHILD_CHECK_MS;
    if (look)
        e->last_wait = t;
    for (uint32_t i = 0; look && i < e->o.local; i++) {
        int st;
        if (e->child[i] <= 0 || waitpid(e->child[i], &st, WNOHANG) != e->child[i])
            continue;
        pid_t dead = e->child[i];
        e->child[i] = 0;
        char why[64];
        if (WIFSIGNALED(st))
            snprintf(why, sizeof why, "was killed by signal %d", WTERMSIG(st));
        else
            snprintf(why, sizeof why, "exited with status %d", WEXITSTATUS(st));
        bool said_hello = false;
        for (uint32_t k = 0; k < e->n_w; k++)
            if (e->w[k].pid == dead) {
                said_hello = true;
                lose_worker(e, k, why);
            }
        /* A worker that fails before its hello (bad binary, no memory) is
         * restarted a few times at most. */
        if (e->restarts < 4 * e->o.local + 4 && (said_hello || e->restarts < 3)) {
            e->restarts++;
            spawn(e, i);
        } else if (!e->o.quiet_notes) {
            fprintf(stderr, "arena: local referee worker %s; not restarted\n", why);
        }
    }
    for (uint32_t i = 0; i < e->n_w; i++)
        if (e->w[i].alive && !e->w[i].pid && t - e->w[i].last_seen > WORKER_LOST_MS)
            lose_worker(e, i, "missed its heartbeats");
    if (t - e->last_hb >= WORKER_HB_MS) {
        e->last_hb = t;
        worker_pack_simple(&e->sb, WORKER_HB);
        for (uint32_t i = 0; i < e->n_w; i++)
            if (e->w[i].alive)
                send_to(e, i);
    }
}

/* Whether any worker may still come: a live or restartable local process,
 * a live worker, or an endpoint remote workers join. */
static bool any_hope(const workers_x *e)
{
    if (e->o.listen)
        return true;
    for (uint32_t i = 0; i < e->o.local; i++)
        if (e->child[i] > 0)
            return true;
    for (uint32_t i = 0; i < e->n_w; i++)
        if (e->w[i].alive)
            return true;
    return false;
}

static void dispatch(workers_x *e)
{
    for (uint32_t j = 0; j < e->n_jobs; j++) {
        ojob *oj = &e->jobs[j];
        if (oj->worker >= 0 || oj->fail_rc)
            continue;
        int best = -1;
        uint32_t best_free = 0;
        for (uint32_t i = 0; i < e->n_w; i++) {
            uint32_t f = e->w[i].alive ? free_credit(&e->w[i]) : 0;
            if (f > best_free) {
                best_free = f;
                best = (int)i;
            }
        }
        if (best < 0)
            break; /* no room anywhere: and is there any worker left at all? */
        worker_pack_job(&e->sb, e->setup, e->setup_len, &oj->job, e->base.export != NULL);
        if (send_to(e, (uint32_t)best)) {
            oj->worker = best;
            e->w[best].out++;
        } else {
            j--; /* the worker is lost: try this job on another */
        }
    }
    if (!any_hope(e))
        for (uint32_t j = 0; j < e->n_jobs; j++)
            if (e->jobs[j].worker < 0 && !e->jobs[j].fail_rc) {
                e->jobs[j].fail_rc = JA_EBOT;
                snprintf(e->jobs[j].fail, sizeof e->jobs[j].fail,
                         "no referee worker is left to play it (see the messages above)");
            }
}

static void on_hello(workers_x *e, zmq_msg_t *id, const worker_msg *m)
{
    if (zmq_msg_size(id) > sizeof e->w[0].id)
        return;
    /* A lost worker's entry holds no job any more: reuse it. */
    uint32_t k = 0;
    while (k < e->n_w && e->w[k].alive)
        k++;
    if (k == MAX_WORKERS)
        return;
    wk *w = &e->w[k];
    memset(w, 0, sizeof *w);
    memcpy(w->id, zmq_msg_data(id), zmq_msg_size(id));
    w->id_len = zmq_msg_size(id);
    snprintf(w->host, sizeof w->host, "%s", m->host);
    w->slots = m->slots;
    w->depth = m->depth;
    w->alive = true;
    w->last_seen = now_ms();
    for (uint32_t i = 0; i < e->o.local; i++)
        if (e->child[i] > 0 && e->child[i] == (pid_t)m->pid)
            w->pid = e->child[i];
    if (k == e->n_w)
        e->n_w++;
    e->hellos++;
}

/* Writes a replay the worker sent where the in-process executor would have
 * written it, the same way (outfile.h: whole or absent, synced). */
static int write_replay(workers_x *e, arena_job_result *out, const char *data, size_t len)
{
    const arena_exec_ctx *c = e->base.ctx;
    arena_replay_name(out->replay_path, sizeof out->replay_path, c->replay_dir, c->tournament_id,
                      out->number);
    if (ref_out_write_file("cannot write replay", out->replay_path, REF_OUT_SYNC, data, len,
                           out->err, sizeof out->err) == JA_OK)
        return JA_OK;
    out->replay_path[0] = '\0';
    return JA_EIO;
}

static void remove_job(workers_x *e, uint32_t j)
{
    if (e->jobs[j].worker >= 0 && e->w[e->jobs[j].worker].out)
        e->w[e->jobs[j].worker].out--;
    e->jobs[j] = e->jobs[--e->n_jobs];
}

/* A result frame from worker wi: true when it filled *out. */
static bool on_result(workers_x *e, uint32_t wi, const worker_msg *m, arena_job_result *out)
{
    uint32_t j = 0;
    while (j < e->n_jobs && e->jobs[j].job.number != m->res.number)
        j++;
    if (j == e->n_jobs)
        return false; /* already handed out: the duplicate is ignored */
    if (m->res.rc == JA_OK && m->res.res.outcome.n_seats != e->jobs[j].job.n_seats) {
        if (!e->o.quiet_notes)
            fprintf(stderr, "arena: worker %s sent a result of match %u for another seat "
                    "count; ignored\n", e->w[wi].host, (unsigned)m->res.number);
        return false;
    }
    arena_job job = e->jobs[j].job;
    remove_job(e, j);
    *out = m->res;
    out->job = job; /* not sent back: the arena's own plan entry */
    out->stderr_tails = NULL; /* stays in the worker (docs/scale.md) */
    out->replay_path[0] = '\0';
    out->export_data = NULL;
    out->export_len = 0;
    if (out->rc != JA_OK)
        return true;
    bool want_replay = e->base.ctx->replay_dir != NULL;
    if (want_replay && !m->replay) {
        out->rc = JA_EFORMAT;
        snprintf(out->err, sizeof out->err, "worker %s sent no replay", e->w[wi].host);
        return true;
    }
    if (want_replay && (out->rc = write_replay(e, out, m->replay, m->replay_len)) != JA_OK)
        return true;
    if (e->base.export && m->res.export_data) {
        /* Its size is that of bytes received in one frame: ZMQ_MAXMSGSIZE
         * (WORKER_MAX_MSG) bounds it. */
        out->export_data = ja_xmalloc(m->res.export_len ? m->res.export_len : 1);
        memcpy(out->export_data, m->res.export_data, m->res.export_len);
        out->export_len = m->res.export_len;
    }
    return true;
}

/* ---- ops ------------------------------------------------------------------------ */

static uint32_t workers_capacity(arena_executor *x)
{
    workers_x *e = (workers_x *)x;
    uint32_t cap = WORKER_DEPTH_MIN * e->o.local * (e->o.local_slots ? e->o.local_slots : 1);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < e->n_w; i++)
        if (e->w[i].alive)
            sum += credit(&e->w[i]);
    if (sum > cap)
        cap = sum;
    return cap < 2 ? 2 : cap;
}

static int workers_submit(arena_executor *x, const arena_job *job)
{
    workers_x *e = (workers_x *)x;
    if (e->n_jobs == e->cap_jobs) {
        uint32_t c = e->cap_jobs ? 2 * e->cap_jobs : 64;
        e->jobs = ja_xrealloc(e->jobs, c * sizeof *e->jobs);
        e->cap_jobs = c;
    }
    ojob *oj = &e->jobs[e->n_jobs++];
    memset(oj, 0, sizeof *oj);
    oj->job = *job;
    oj->worker = -1;
    dispatch(e);
    return JA_OK;
}

/* Once the run is told to stop, the jobs not yet handed to a worker are
 * dropped (they stay pending in the database). */
static void drop_unsent(workers_x *e)
{
    if (!e->o.stop || !*e->o.stop)
        return;
    for (uint32_t j = 0; j < e->n_jobs; j++)
        if (e->jobs[j].worker < 0 && !e->jobs[j].fail_rc)
            remove_job(e, j--);
}

/* After a stop, the matches still at the workers STOP_GRACE_MS later (or
 * at a second stop) are given up: they stay pending in the database, said
 * in one line. True when they were (no job is left). */
static bool give_up_after_stop(workers_x *e, int64_t t)
{
    if (!e->o.stop || !*e->o.stop || e->n_jobs == 0)
        return false;
    if (!e->stop_ms)
        e->stop_ms = t;
    if (*e->o.stop < 2 && t - e->stop_ms < STOP_GRACE_MS)
        return false;
    char after[64];
    if (*e->o.stop < 2)
        snprintf(after, sizeof after, "%d s after the interrupt", STOP_GRACE_MS / 1000);
    else
        snprintf(after, sizeof after, "at the second interrupt");
    fprintf(stderr, "arena: interrupted: %u match%s still at the workers %s left unplayed %s (the "
            "same command plays %s)\n", e->n_jobs, e->n_jobs == 1 ? "" : "es",
            e->n_jobs == 1 ? "is" : "are", after, e->n_jobs == 1 ? "it" : "them");
    while (e->n_jobs)
        remove_job(e, 0);
    return true;
}

/* A job that failed here (its workers lost, or none left) as its result
 * into *out: true when there was one. */
static bool take_failed(workers_x *e, arena_job_result *out)
{
    for (uint32_t j = 0; j < e->n_jobs; j++) {
        if (!e->jobs[j].fail_rc)
            continue;
        memset(out, 0, sizeof *out);
        out->number = e->jobs[j].job.number;
        out->job = e->jobs[j].job;
        out->rc = e->jobs[j].fail_rc;
        snprintf(out->err, sizeof out->err, "%s", e->jobs[j].fail);
        remove_job(e, j);
        return true;
    }
    return false;
}

/* Waits up to a quarter of a heartbeat for the router (serving the ZAP
 * socket meanwhile): above 0 when frames may be there. With nowait,
 * straight to the receive, which does not wait either: a poll first would
 * be one more system call a result. The ZAP socket is served by the next
 * call that waits. */
static int wait_for_frames(workers_x *e, bool nowait)
{
    if (nowait)
        return 1;
    zmq_pollitem_t items[2] = {{e->router, 0, ZMQ_POLLIN, 0}, {e->zap, 0, ZMQ_POLLIN, 0}};
    int n = zmq_poll(items, e->zap ? 2 : 1, WORKER_HB_MS / 4);
    if (n > 0 && e->zap && (items[1].revents & ZMQ_POLLIN)) {
        ref_zap_serve(e->zap, worker_key_allowed, e);
        n = items[0].revents & ZMQ_POLLIN ? 1 : 0;
    }
    return n;
}

/* Says a bad message from worker wi (-1: one not taken yet) and loses
 * that worker. From a worker not yet taken (a refused hello: a worker of
 * another version) it is why no worker plays, so said even with -q, at
 * most UNKNOWN_SAID times a run. */
static void on_bad_message(workers_x *e, int wi, const char *why)
{
    bool said = wi < 0 ? e->unknown_said < UNKNOWN_SAID : !e->o.quiet_notes;
    if (said)
        fprintf(stderr, "arena: a bad message from worker %s: %s%s\n",
                wi >= 0 ? e->w[wi].host : "(unknown)", why,
                wi < 0 && ++e->unknown_said == UNKNOWN_SAID
                    ? " (further ones from unknown workers not shown)"
                    : "");
    if (wi >= 0)
        lose_worker(e, (uint32_t)wi, "sent a malformed message");
}

/* One message body from the worker of routing id `id`, received at t: a
 * hello takes a new worker, anything else from a known one is a sign of
 * life, and a result fills *out (true). */
static bool on_message(workers_x *e, zmq_msg_t *id, zmq_msg_t *body, int64_t t,
                       arena_job_result *out)
{
    worker_msg m;
    char why[256];
    int wi = find_worker(e, id);
    if (worker_msg_decode(zmq_msg_data(body), zmq_msg_size(body), &m, why, sizeof why) !=
        JA_OK) {
        on_bad_message(e, wi, why);
        return false;
    }
    if (m.type == WORKER_HELLO && wi < 0) {
        on_hello(e, id, &m);
        return false;
    }
    if (wi < 0)
        return false;
    e->w[wi].last_seen = t;
    if (m.type != WORKER_RESULT)
        return false;
    note_result(&e->w[wi]);
    return on_result(e, (uint32_t)wi, &m, out);
}

/* Receives, without waiting, the messages there until one is a result
 * (into *out: true) or none is left. n: what wait_for_frames said. */
static bool receive(workers_x *e, int n, int64_t t, arena_job_result *out)
{
    zmq_msg_t id, body;
    bool got = false;
    while (n > 0 && !got) {
        zmq_msg_init(&id);
        zmq_msg_init(&body);
        if (zmq_msg_recv(&id, e->router, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&id);
            zmq_msg_close(&body);
            break;
        }
        int more = zmq_msg_more(&id);
        if (more && zmq_msg_recv(&body, e->router, 0) >= 0 && !zmq_msg_more(&body)) {
            got = on_message(e, &id, &body, t, out);
        } else {
            /* a multi-part body is no worker's message: drain the rest */
            while (zmq_msg_more(&body) && zmq_msg_recv(&body, e->router, 0) >= 0)
                ;
        }
        zmq_msg_close(&id);
        zmq_msg_close(&body);
    }
    return got;
}

/* The next finished job; with nowait, one look at what has come (no
 * waiting): JA_EAGAIN when no result is there. Waiting, ARENA_EXEC_ROOM
 * when a worker joined and the capacity is above the jobs held: the
 * caller hands over more (they go to the new worker at once) and asks
 * again, so a worker that joins while every job is on another one (a
 * slow match, a worker started before the rest) does not wait for a
 * result to get work. */
static int workers_take(arena_executor *x, arena_job_result *out, bool nowait)
{
    workers_x *e = (workers_x *)x;
    for (bool looked = false;; looked = true) {
        if (nowait && looked)
            return JA_EAGAIN;
        drop_unsent(e);
        if (e->n_jobs == 0)
            return JA_EAGAIN;
        if (take_failed(e, out))
            return JA_OK;
        if (give_up_after_stop(e, now_ms()))
            return JA_EAGAIN;
        dispatch(e);
        uint32_t hellos = e->hellos;
        int n = wait_for_frames(e, nowait);
        int64_t t = now_ms();
        bool got = receive(e, n, t, out);
        check_workers(e, t);
        if (got)
            return JA_OK;
        if (!nowait && e->hellos != hellos && e->n_jobs < workers_capacity(x))
            return ARENA_EXEC_ROOM;
    }
}

static int workers_next(arena_executor *x, arena_job_result *out)
{
    return workers_take(x, out, false);
}

static int workers_next_ready(arena_executor *x, arena_job_result *out)
{
    return workers_take(x, out, true);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    remove(path);
    return 0;
}

/* The private directory of local workers is TMPDIR/ja-arena-XXXXXX, with a
 * file `pid` naming the arena that made it. An arena killed with SIGKILL
 * cannot remove its directory (its workers die with it, by
 * PR_SET_PDEATHSIG); the next arena to start local workers removes every
 * such directory of this user whose arena is no longer running. A directory
 * without a readable pid file is left alone: it may be one that another
 * arena has just made. (A recycled pid keeps a stale directory a while
 * longer; that is harmless.) */
static void sweep_stale_dirs(const char *tmp)
{
    DIR *dir = opendir(tmp);
    if (!dir)
        return;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, "ja-arena-", 9) != 0 || strlen(de->d_name) != 15)
            continue;
        char path[PATH_MAX], pidf[PATH_MAX + 8], buf[32];
        snprintf(path, sizeof path, "%s/%s", tmp, de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        snprintf(pidf, sizeof pidf, "%s/pid", path);
        int fd = open(pidf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        char *end;
        long pid = strtol(buf, &end, 10);
        if (pid <= 0 || pid == (long)getpid() || (*end && *end != '\n'))
            continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    }
    closedir(dir);
}

static void workers_destroy(arena_executor *x)
{
    workers_x *e = (workers_x *)x;
    worker_pack_simple(&e->sb, WORKER_QUIT);
    for (uint32_t i = 0; i < e->n_w; i++)
        if (e->w[i].alive)
            send_to(e, i);
    int linger = 1000;
    if (e->router) {
        zmq_setsockopt(e->router, ZMQ_LINGER, &linger, sizeof linger);
        zmq_close(e->router);
    }
    if (e->zap)
        zmq_close(e->zap);
    for (uint32_t i = 0; e->allow && i < e->o.n_allow; i++)
        free(e->allow[i]);
    free(e->allow);
    /* Workers exit on quit; one that does not within ~2 s is killed. */
    for (uint32_t i = 0; e->child && i < e->o.local; i++) {
        if (e->child[i] <= 0)
            continue;
        for (int tries = 0; tries < 200 && waitpid(e->child[i], NULL, WNOHANG) == 0; tries++) {
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL);
            if (tries == 199) {
                kill(e->child[i], SIGKILL);
                waitpid(e->child[i], NULL, 0);
            }
        }
    }
    if (e->zctx)
        zmq_ctx_term(e->zctx);
    if (e->dir[0])
        nftw(e->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    msgpack_sbuffer_destroy(&e->sb);
    free(e->setup);
    free(e->w);
    free(e->child);
    free(e->jobs);
    free(e);
}

static const arena_executor_ops workers_ops = {
    workers_capacity, workers_submit, workers_next, workers_destroy, workers_next_ready,
};

/* A new executor for ctx and o, with the settings every job carries
 * packed once; nothing opened yet. */
static workers_x *new_executor(const arena_exec_ctx *ctx, const arena_workers_opts *o)
{
    workers_x *e = ja_xcalloc(1, sizeof *e);
    e->base.ops = &workers_ops;
    e->base.ctx = ctx;
    e->o = *o;
    msgpack_sbuffer_init(&e->sb);
    e->w = ja_xcalloc(MAX_WORKERS, sizeof *e->w);
    e->child = ja_xcalloc(o->local ? o->local : 1, sizeof *e->child);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &e->sb, msgpack_sbuffer_write);
    worker_setup_pack(&pk, ctx, o->n_bots, o->specs);
    e->setup = ja_xmalloc(e->sb.size);
    memcpy(e->setup, e->sb.data, e->sb.size);
    e->setup_len = e->sb.size;
    return e;
}

/* The ROUTER every worker talks to. */
static int open_router(workers_x *e, char *err, size_t cap)
{
    e->zctx = zmq_ctx_new();
    e->router = e->zctx ? zmq_socket(e->zctx, ZMQ_ROUTER) : NULL;
    if (!e->router) {
        snprintf(err, cap, "cannot make a ZeroMQ socket: %s", zmq_strerror(errno));
        return JA_EIO;
    }
    int one = 1;
    int64_t maxmsg = WORKER_MAX_MSG;
    zmq_setsockopt(e->router, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    zmq_setsockopt(e->router, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    return JA_OK;
}

/* The local workers' endpoint: an ipc socket in a private directory (see
 * sweep_stale_dirs), bound. */
static int bind_local(workers_x *e, char *err, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    sweep_stale_dirs(tmp);
    snprintf(e->dir, sizeof e->dir, "%s/ja-arena-XXXXXX", tmp);
    if (!mkdtemp(e->dir)) {
        snprintf(err, cap, "cannot make a temporary directory: %s", strerror(errno));
        e->dir[0] = '\0';
        return JA_EIO;
    }
    /* The pid file appears whole, for sweep_stale_dirs(). */
    char pidf[sizeof e->dir + 8], pid[32], perr[sizeof e->dir + 128];
    snprintf(pidf, sizeof pidf, "%s/pid", e->dir);
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    ref_out_write_file(NULL, pidf, 0, pid, (size_t)n, perr, sizeof perr);
    snprintf(e->endpoint, sizeof e->endpoint, "ipc://%s/w.sock", e->dir);
    if (zmq_bind(e->router, e->endpoint) != 0) {
        snprintf(err, cap, "cannot bind %s: %s", e->endpoint, zmq_strerror(errno));
        return JA_EIO;
    }
    return JA_OK;
}

/* --workers-allow: a ZAP handler in this context vets each worker's public
 * key during the Curve handshake (zap.h), against copies of the keys. */
static int start_zap(workers_x *e, char *err, size_t cap)
{
    const arena_workers_opts *o = &e->o;
    e->allow = ja_xcalloc(o->n_allow, sizeof *e->allow);
    for (uint32_t i = 0; i < o->n_allow; i++)
        e->allow[i] = ja_xstrdup(o->allow[i]);
    e->o.allow = (const char *const *)e->allow;
    e->zap = zmq_socket(e->zctx, ZMQ_REP);
    if (!e->zap || zmq_bind(e->zap, REF_ZAP_ENDPOINT) != 0) {
        snprintf(err, cap, "cannot start the workers' ZAP handler: %s", zmq_strerror(errno));
        return JA_EIO;
    }
    return JA_OK;
}

/* The endpoint remote workers join (--workers), with Curve when there is a
 * secret key. */
static int bind_listen(workers_x *e, char *err, size_t cap)
{
    const arena_workers_opts *o = &e->o;
    if (o->curve_secret && o->n_allow) {
        int rc = start_zap(e, err, cap);
        if (rc != JA_OK)
            return rc;
    }
    if (o->curve_secret) {
        int server = 1;
        zmq_setsockopt(e->router, ZMQ_CURVE_SERVER, &server, sizeof server);
        zmq_setsockopt(e->router, ZMQ_CURVE_SECRETKEY, o->curve_secret, 40);
    }
    if (zmq_bind(e->router, o->listen) != 0) {
        snprintf(err, cap, "--workers '%s': %s", o->listen, zmq_strerror(errno));
        return JA_EINVAL;
    }
    return JA_OK;
}

/* Opens the executor: the referee program found (for local workers), the
 * router bound where the workers come, the local workers started. */
static int open_executor(workers_x *e, char *err, size_t cap)
{
    const arena_workers_opts *o = &e->o;
    if (o->local && !arena_find_referee(e->referee, sizeof e->referee)) {
        snprintf(err, cap, "cannot find the referee worker program '%s' (set JACKARENA_REFEREE)",
                 e->referee);
        return JA_ENOTFOUND;
    }
    int rc = open_router(e, err, cap);
    if (rc == JA_OK && o->local)
        rc = bind_local(e, err, cap);
    if (rc == JA_OK && o->listen)
        rc = bind_listen(e, err, cap);
    for (uint32_t i = 0; rc == JA_OK && i < o->local; i++)
        if (!spawn(e, i)) {
            snprintf(err, cap, "cannot start a referee worker: %s", strerror(errno));
            rc = JA_EIO;
        }
    return rc;
}

int arena_executor_workers_new(const arena_exec_ctx *ctx, const arena_workers_opts *o,
                               arena_executor **out, char *err, size_t cap)
{
    *out = NULL;
    workers_x *e = new_executor(ctx, o);
    int rc = open_executor(e, err, cap);
    if (rc != JA_OK) {
        workers_destroy(&e->base);
        return rc;
    }
    e->last_hb = now_ms();
    *out = &e->base;
    return JA_OK;
}
