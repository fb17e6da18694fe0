/* `arena serve`'s live routes (docs/server.md, "Live matches"), answered by
 * serve_live_http.c over the registry of serve_live.h, and the few helpers
 * of serve_http.c they share. */
#ifndef ARENA_SERVE_LIVE_HTTP_H
#define ARENA_SERVE_LIVE_HTTP_H

#include "serve_int.h"

#include <microhttpd.h>
#include <stdio.h>

/* Answers url if it is a live route (GET /live, /live/ID, /api/live,
 * /api/live/ID/events, POST /api/live/ID/ticket): true with the answer's
 * result in *ret; false for any other url. body is the request's (small)
 * body. */
bool srv_live_http(arena_server *s, struct MHD_Connection *c, const char *method,
                   const char *url, const char *body, size_t len, enum MHD_Result *ret);

/* serve_http.c: a JSON answer (steals v), an {"error": msg} answer, and a
 * page: its head and navigation (the title escaped), then its end sent. */
enum MHD_Result srv_send_json(struct MHD_Connection *c, unsigned code, json_t *v);
enum MHD_Result srv_send_error(struct MHD_Connection *c, unsigned code, const char *msg);
void srv_page_begin(FILE *f, const char *title);
enum MHD_Result srv_page_end(struct MHD_Connection *c, FILE *f, char **buf, size_t *len);

#endif /* ARENA_SERVE_LIVE_HTTP_H */
