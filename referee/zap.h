/* A ZAP handler (ZeroMQ Authentication Protocol, RFC 27) for CurveZMQ
 * allow-lists: the arena's hub vets bots with it (--curve-allow), the
 * worker executor vets referee workers (--workers-allow). The caller owns
 * a REP socket bound to inproc://zeromq.zap.01 in the context of the
 * socket it protects and calls ref_zap_serve when that socket is readable. */
#ifndef REF_ZAP_H
#define REF_ZAP_H

#include <stdbool.h>
#include <stdint.h>

#define REF_ZAP_ENDPOINT "inproc://zeromq.zap.01"

/* allowed(ctx, z85) says whether the client public key (Z85, 40 characters)
 * may connect. */
typedef bool (*ref_zap_allow_fn)(void *ctx, const char *z85);

/* Answers every ZAP request waiting on zap (never blocks when none is):
 * 200 for a CURVE client whose key allowed() accepts, 400 otherwise. A
 * client let in has its key (Z85) as user id: every message of its
 * connection carries it, zmq_msg_gets(msg, "User-Id"). */
void ref_zap_serve(void *zap, ref_zap_allow_fn allowed, void *ctx);

/* true when z85 is one of the n keys. */
bool ref_zap_key_listed(const char *const *keys, uint32_t n, const char *z85);

#endif
