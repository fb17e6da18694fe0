/* What the benchmark program's sections share (bench.h): the clock and the
 * raw ZeroMQ round trips. A module below every section, so that sections
 * never call each other. */
#include "bench.h"
#include "ja_xalloc.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_cpu_s(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                    kids.ru_stime.tv_usec) / 1e6;
}

double bench_median3(const double v[3])
{
    double a = v[0], b = v[1], c = v[2];
    if (a > b) { double t = a; a = b; b = t; }
    if (b > c) { double t = b; b = c; c = t; }
    return a > b ? a : b;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(const double *v, size_t n)
{
    double s[64];
    if (n == 0 || n > sizeof s / sizeof s[0])
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double bench_best(const double *v, size_t n)
{
    double b = NAN;
    for (size_t i = 0; i < n; i++)
        b = i == 0 || v[i] > b ? v[i] : b;
    return b;
}

double bench_least(const double *v, size_t n)
{
    double b = NAN;
    for (size_t i = 0; i < n; i++)
        b = i == 0 || v[i] < b ? v[i] : b;
    return b;
}

double *bench_ratios(const double *a, const double *b, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = b[i] > 0 ? a[i] / b[i] : NAN;
    return out;
}

char *bench_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, got;
    FILE *m = open_memstream(&buf, &n);
    char chunk[65536];
    while (m && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, m);
    fclose(f);
    if (!m)
        return NULL;
    fclose(m);
    if (len)
        *len = n;
    return buf;
}

const char *bench_exe_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) {
        snprintf(dir, sizeof dir, ".");
        return dir;
    }
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return dir;
}

int bench_start(const char *dir, const char *const *argv)
{
    char exe[PATH_MAX + 64];
    if (strchr(argv[0], '/'))
        snprintf(exe, sizeof exe, "%s", argv[0]);
    else
        snprintf(exe, sizeof exe, "%s/%s", dir, argv[0]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *n = freopen("/dev/null", "w", stdout);
        (void)n;
        n = freopen("/dev/null", "w", stderr);
        (void)n;
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

double bench_loadavg(void)
{
    double v = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

int bench_finish(int pid, long *rss_kib, double *cpu_s)
{
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    if (pid <= 0 || wait4(pid, &st, 0, &ru) != pid)
        return -1;
    if (rss_kib)
        *rss_kib = ru.ru_maxrss;
    if (cpu_s)
        *cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool bench_pin_side(const cpu_set_t *all, int side)
{
    int seen = 0, first = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, all))
            continue;
        if (first < 0)
            first = c;
        if (seen++ == side) {
            first = c;
            break;
        }
    }
    if (first < 0)
        return false;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0;
}

double bench_raw_zmq_round_trips(size_t req, size_t rep, uint32_t n, bench_placement where)
{
    char dir[] = "/tmp/ja_bench_raw.XXXXXX", ep[96];
    if (!mkdtemp(dir))
        return 0;
    snprintf(ep, sizeof ep, "ipc://%s/raw", dir);
    cpu_set_t all;
    bool pin = where == BENCH_PINNED && sched_getaffinity(0, sizeof all, &all) == 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (pin)
            bench_pin_side(&all, 1);
        void *ctx = zmq_ctx_new(), *d = zmq_socket(ctx, ZMQ_DEALER);
        char *in = ja_xmalloc(req + 16), *out = ja_xcalloc(1, rep ? rep : 1);
        zmq_connect(d, ep);
        zmq_send(d, "hi", 2, 0);
        for (;;) {
            int r = zmq_recv(d, in, req + 16, 0);
            if (r <= 0)
                break;
            zmq_send(d, out, rep, 0);
        }
        zmq_close(d);
        zmq_ctx_term(ctx);
        _exit(0);
    }
    if (pin) /* before the context: its I/O thread inherits the CPU */
        bench_pin_side(&all, 0);
    void *ctx = zmq_ctx_new(), *r = zmq_socket(ctx, ZMQ_ROUTER);
    zmq_bind(r, ep);
    unsigned char id[256], buf[256];
    int idn = zmq_recv(r, id, sizeof id, 0);
    zmq_recv(r, buf, sizeof buf, 0);
    char *payload = ja_xcalloc(1, req ? req : 1);
    char *reply = ja_xmalloc(rep + 16);
    double t0 = bench_now_s();
    for (uint32_t i = 0; i < n; i++) {
        zmq_send(r, id, (size_t)idn, ZMQ_SNDMORE);
        zmq_send(r, payload, req, 0);
        zmq_recv(r, id, sizeof id, 0);
        zmq_recv(r, reply, rep + 16, 0);
    }
    double secs = bench_now_s() - t0;
    zmq_send(r, id, (size_t)idn, ZMQ_SNDMORE);
    zmq_send(r, "", 0, 0);
    waitpid(pid, NULL, 0);
    zmq_close(r);
    zmq_ctx_term(ctx);
    if (pin)
        sched_setaffinity(0, sizeof all, &all);
    free(payload);
    free(reply);
    char sock[128];
    snprintf(sock, sizeof sock, "%s/raw", dir);
    unlink(sock);
    rmdir(dir);
    return secs > 0 ? n / secs : 0;
}
