/* Fuzz target: the arena's decoder of referee worker messages and of the
 * job settings (arena/run/worker_msg.c). A worker on another machine is as
 * untrusted as a bot: every input must decode or be refused with a reason,
 * never crash, leak, or read out of bounds; a decoded result has a seat
 * count the arena can index with, and its byte fields lie inside the input.
 * Corpus: tests/fuzz/corpus/worker (made by tests/fuzz/corpus_worker.py). */
#include "jackarena/ja_error.h"
#include "run/worker_msg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const uint8_t *data, size_t size, const char *p, size_t n)
{
    if (p && ((const uint8_t *)p < data || (const uint8_t *)p + n > data + size))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > WORKER_MAX_MSG)
        return 0; /* ZMQ_MAXMSGSIZE refuses larger frames */
    worker_msg m;
    char why[256];
    int rc = worker_msg_decode((const char *)data, size, &m, why, sizeof why);
    if (rc != JA_OK && !why[0])
        abort();
    if (rc == JA_OK) {
        if (m.type == WORKER_RESULT && m.res.rc == JA_OK &&
            (m.res.res.outcome.n_seats == 0 || m.res.res.outcome.n_seats > JA_MAX_SEATS))
            abort();
        if (m.type == WORKER_HELLO && (m.slots == 0 || m.slots > WORKER_MAX_SLOTS))
            abort();
        if (memchr(m.host, '\0', sizeof m.host) == NULL ||
            memchr(m.res.err, '\0', sizeof m.res.err) == NULL)
            abort();
        inside(data, size, m.replay, m.replay_len);
        inside(data, size, m.res.export_data, m.res.export_len);
        inside(data, size, m.ctx, m.ctx_len);
        if (m.type == WORKER_JOB) {
            worker_setup *s = malloc(sizeof *s);
            if (s && worker_setup_unpack(m.ctx, m.ctx_len, s, why, sizeof why) == JA_OK &&
                (s->n_bots == 0 || s->n_bots > WORKER_MAX_BOTS || s->options.n > JA_MAX_OPTIONS))
                abort();
            free(s);
        }
    }
    /* The same bytes as job settings. */
    worker_setup *s = malloc(sizeof *s);
    if (s && worker_setup_unpack((const char *)data, size, s, why, sizeof why) != JA_OK && !why[0])
        abort();
    free(s);
    return 0;
}
