/* `arena serve`'s live routes (docs/server.md, "Live matches"), answered by
 * serve_live_http.c over the registry of serve_live.h. */
#ifndef ARENA_SERVE_LIVE_HTTP_H
#define ARENA_SERVE_LIVE_HTTP_H

#include "serve/serve_int.h"

#include <microhttpd.h>
#include <stdio.h>

/* How serve_http.c answers (passed in, so that this module never calls
 * that one, which calls this): a JSON answer (steals v), an {"error": msg}
 * answer, and a page: its head and navigation (the title escaped), then
 * its end sent. */
typedef struct srv_http_out {
    enum MHD_Result (*json)(srv_call *c, unsigned code, json_t *v);
    enum MHD_Result (*error)(srv_call *c, unsigned code, const char *msg);
    void (*page_begin)(FILE *f, const char *title);
    enum MHD_Result (*page_end)(srv_call *c, FILE *f, char **buf, size_t *len);
} srv_http_out;

/* Answers url if it is a live route (GET /live, /live/ID, /api/live,
 * /api/live/ID/events, POST /api/live/ID/ticket): true with the answer's
 * result in *ret; false for any other url. body is the request's (small)
 * body. */
bool srv_live_http(arena_server *s, const srv_http_out *out, srv_call *c,
                   const char *method, const char *url, const char *body, size_t len,
                   enum MHD_Result *ret);

#endif /* ARENA_SERVE_LIVE_HTTP_H */
