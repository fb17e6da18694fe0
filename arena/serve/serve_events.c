/* `arena serve`'s events (serve_int.h): the ring of server-sent events and
 * the wake-ups of the threads that wait for work. Its own module, so that
 * the run (serve.c) and the HTTP side (serve_http.c) both call it without
 * calling each other in a cycle. */
#include "serve/serve_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

void srv_event(arena_server *s, json_t *ev)
{
    char *text = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
    json_decref(ev);
    pthread_mutex_lock(&s->mu);
    if (text) {
        uint64_t k = s->ev_seq % SRV_EVENT_RING;
        free(s->ev[k]);
        s->ev[k] = text;
        s->ev_seq++;
    }
    s->wake++;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

void srv_event_batch(arena_server *s, const arena_serve_batch *b, const char *state,
                     const char *reason)
{
    json_t *v = json_array();
    for (uint32_t i = 0; i < b->n; i++)
        json_array_append_new(v, json_integer(b->version[i]));
    json_t *ev = json_pack("{ss sI sI ss so}", "type", "batch", "batch", (json_int_t)b->id,
                           "tournament", (json_int_t)b->tournament, "state", state, "versions",
                           v);
    if (reason)
        json_object_set_new(ev, "reason", json_string(reason));
    srv_event(s, ev);
}

void srv_event_version(arena_server *s, const char *author, int64_t number, const char *status,
                       const char *reason)
{
    srv_event(s, json_pack("{ss ss sI ss ss}", "type", "version", "author", author, "version",
                           (json_int_t)number, "status", status, "reason", reason ? reason : ""));
    if (!s->a->quiet)
        fprintf(stderr, "arena serve: %s version %" PRId64 ": %s%s%s\n", author, number, status,
                reason && reason[0] ? ": " : "", reason ? reason : "");
}

