/* What the peek test plugin (plugins/peek.c) records, read by
 * test_match_observe.c through the descriptor's extension(PEEK_LOG_ID). */
#ifndef JA_TESTS_PEEK_H
#define JA_TESTS_PEEK_H

#include <stdint.h>

#define PEEK_LOG_ID "test.peek.log"
#define PEEK_LOG_MAX 65536

/* One observation read: the seat, its turn, the FNV-1a of its bytes. */
typedef struct peek_rec {
    int32_t seat;
    uint32_t turn;
    uint64_t hash;
} peek_rec;

typedef struct peek_log {
    uint32_t n;          /* records in rec */
    uint32_t overflow;   /* 1: more than PEEK_LOG_MAX were read */
    uint64_t handed;     /* decisions given with d->obs */
    uint64_t on_demand;  /* decisions given with d->obs NULL */
    uint64_t breaches;   /* of ja_host_api.observe's contract */
    peek_rec rec[PEEK_LOG_MAX];
} peek_log;

#endif /* JA_TESTS_PEEK_H */
