/* What the benchmark program's sections share (bench.h): the clock and the
 * raw ZeroMQ round trips. A module below every section, so that sections
 * never call each other. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
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

double bench_raw_zmq_round_trips(size_t req, size_t rep, uint32_t n)
{
    char dir[] = "/tmp/ja_bench_raw.XXXXXX", ep[96];
    if (!mkdtemp(dir))
        return 0;
    snprintf(ep, sizeof ep, "ipc://%s/raw", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        void *ctx = zmq_ctx_new(), *d = zmq_socket(ctx, ZMQ_DEALER);
        char *in = malloc(req + 16), *out = calloc(1, rep);
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
    void *ctx = zmq_ctx_new(), *r = zmq_socket(ctx, ZMQ_ROUTER);
    zmq_bind(r, ep);
    unsigned char id[256], buf[256];
    int idn = zmq_recv(r, id, sizeof id, 0);
    zmq_recv(r, buf, sizeof buf, 0);
    char *payload = calloc(1, req);
    char *reply = malloc(rep + 16);
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
    free(payload);
    free(reply);
    char sock[128];
    snprintf(sock, sizeof sock, "%s/raw", dir);
    unlink(sock);
    rmdir(dir);
    return secs > 0 ? n / secs : 0;
}
