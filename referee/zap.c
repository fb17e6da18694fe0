/* The ZAP handler for CurveZMQ allow-lists (zap.h). */
#include "zap.h"

#include <string.h>
#include <zmq.h>

bool ref_zap_key_listed(const char *const *keys, uint32_t n, const char *z85)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(keys[i], z85) == 0)
            return true;
    return false;
}

/* One request: frames version, request id, domain, address, identity,
 * mechanism, credentials; CURVE's credential is the client's 32-byte
 * public key. */
void ref_zap_serve(void *zap, ref_zap_allow_fn allowed, void *ctx)
{
    for (;;) {
        zmq_msg_t f[8];
        int n = 0;
        bool more = true;
        while (more) {
            zmq_msg_t part;
            zmq_msg_init(&part);
            if (zmq_msg_recv(&part, zap, n == 0 ? ZMQ_DONTWAIT : 0) < 0) {
                zmq_msg_close(&part);
                if (n == 0)
                    return;
                break;
            }
            more = zmq_msg_more(&part);
            if (n < 8)
                f[n++] = part;
            else
                zmq_msg_close(&part);
        }
        bool ok = false;
        char z85[41] = "";
        if (n >= 7 && zmq_msg_size(&f[5]) == 5 && memcmp(zmq_msg_data(&f[5]), "CURVE", 5) == 0 &&
            zmq_msg_size(&f[6]) == 32) {
            if (zmq_z85_encode(z85, zmq_msg_data(&f[6]), 32))
                ok = allowed(ctx, z85);
        }
        const char *status = ok ? "200" : "400";
        const char *text = ok ? "OK" : "client key not in the allow-list";
        zmq_send(zap, "1.0", 3, ZMQ_SNDMORE);
        if (n >= 2)
            zmq_send(zap, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), ZMQ_SNDMORE);
        else
            zmq_send(zap, "", 0, ZMQ_SNDMORE);
        zmq_send(zap, status, 3, ZMQ_SNDMORE);
        zmq_send(zap, text, strlen(text), ZMQ_SNDMORE);
        /* The user id: the client's key, which every message of that
         * connection then carries as its "User-Id" property. */
        zmq_send(zap, z85, ok ? strlen(z85) : 0, ZMQ_SNDMORE);
        zmq_send(zap, "", 0, 0);
        for (int i = 0; i < n; i++)
            zmq_msg_close(&f[i]);
    }
}
