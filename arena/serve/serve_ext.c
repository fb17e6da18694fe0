/* `arena serve`'s external bots (serve_ext.h). */
#include "serve/serve_ext.h"

#include "run/extbots.h"
#include "hub.h"
#include "core/util.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

/* How long a batch waits for its external bots to come back before it is
 * given up (docs/server.md, "External bots"). */
#define SRV_EXT_GRACE_S 10

typedef struct ext_bot {
    char name[ARENA_SERVE_NAME_MAX + 1];
    ref_bot *bot;
} ext_bot;

typedef struct ext_key {
    char key[REF_HUB_KEY_Z85];
    char name[ARENA_SERVE_NAME_MAX + 1];
} ext_key;

struct srv_ext {
    ref_hub *hub;
    char endpoint[512];
    char pub[REF_HUB_KEY_Z85];
    /* mu guards what follows, and serializes registrations. */
    pthread_mutex_t mu;
    ext_bot *bots;
    uint32_t n_bots;
    ext_key *keys;               /* bound in the hub */
    uint32_t n_keys;
    /* The scheduler's wait for a batch's external bots. */
    int64_t wait_batch;
    time_t wait_since;
};

bool srv_ext_is(const arena_serve_version *v)
{
    return strncmp(v->file, SRV_EXT_FILE, strlen(SRV_EXT_FILE)) == 0;
}

static const char *version_key(const arena_serve_version *v)
{
    return v->file + strlen(SRV_EXT_FILE);
}

static void log_refusal(void *ctx, const char *line)
{
    arena_server *s = ctx;
    if (!s->a->quiet)
        fprintf(stderr, "arena serve: external bots: %s\n", line);
}

/* The keys of the versions in status st into *keys (grown). */
static int wanted_keys(arena_server *s, const char *st, ext_key **keys, uint32_t *n)
{
    arena_serve_version *v = NULL;
    uint32_t nv = 0;
    int rc = arena_serve_db_versions(s->sdb, st, &v, &nv);
    for (uint32_t i = 0; rc == JA_OK && i < nv; i++) {
        if (!srv_ext_is(&v[i]))
            continue;
        ext_key *k = *keys = ja_xrealloc(*keys, (*n + 1) * sizeof *k);
        snprintf(k[*n].key, sizeof k[*n].key, "%s", version_key(&v[i]));
        snprintf(k[*n].name, sizeof k[*n].name, "%s", v[i].author);
        (*n)++;
    }
    free(v);
    return rc;
}

static bool key_in(const ext_key *keys, uint32_t n, const ext_key *k, bool with_name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(keys[i].key, k->key) == 0 &&
            (!with_name || strcmp(keys[i].name, k->name) == 0))
            return true;
    return false;
}

/* srv_ext_sync with e->mu held. */
static void sync_locked(arena_server *s, struct srv_ext *e)
{
    static const char *const live[] = {ARENA_V_VALIDATING, ARENA_V_ACTIVE, ARENA_V_SUSPENDED};
    ext_key *want = NULL;
    uint32_t n_want = 0;
    int rc = JA_OK;
    for (int i = 0; i < 3 && rc == JA_OK; i++)
        rc = wanted_keys(s, live[i], &want, &n_want);
    if (rc != JA_OK) {
        arena_error("external bots: the registered keys cannot be read: %s", ja_strerror(rc));
        free(want);
        return;
    }
    /* Removed first: a new key of an author may take its old key's name. */
    for (uint32_t i = 0; i < e->n_keys;) {
        if (key_in(want, n_want, &e->keys[i], true)) {
            i++;
            continue;
        }
        ref_hub_allow_set(e->hub, e->keys[i].key, NULL);
        e->keys[i] = e->keys[--e->n_keys];
    }
    for (uint32_t i = 0; i < n_want; i++) {
        if (key_in(e->keys, e->n_keys, &want[i], true))
            continue;
        e->keys = ja_xrealloc(e->keys, (e->n_keys + 1) * sizeof *e->keys);
        if (ref_hub_allow_set(e->hub, want[i].key, want[i].name) == JA_OK)
            e->keys[e->n_keys++] = want[i];
        else
            arena_error("external bots: the hub refused the key of '%s'", want[i].name);
    }
    free(want);
}

void srv_ext_sync(arena_server *s)
{
    struct srv_ext *e = s->ext;
    if (e == NULL)
        return;
    pthread_mutex_lock(&e->mu);
    sync_locked(s, e);
    pthread_mutex_unlock(&e->mu);
}

int srv_ext_start(arena_server *s, char *err, size_t cap)
{
    if (s->a->listen == NULL)
        return JA_OK;
    struct srv_ext *e = ja_xcalloc(1, sizeof *e);
    pthread_mutex_init(&e->mu, NULL);
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/curve", s->data);
    arena_ext flags;
    memset(&flags, 0, sizeof flags);
    flags.curve_dir = dir;
    ref_hub_config hc;
    memset(&hc, 0, sizeof hc);
    char why[1200];
    if (arena_ext_curve_keys(&flags, hc.curve_public, hc.curve_secret, why, sizeof why) !=
        JA_OK) {
        snprintf(err, cap, "--listen: the server's CurveZMQ key pair in '%s' cannot be used: %s",
                 dir, why);
        pthread_mutex_destroy(&e->mu);
        free(e);
        return JA_EINVAL;
    }
    hc.endpoint = s->a->listen;
    hc.curve = true;
    hc.allow_live = true;
    hc.log = log_refusal;
    hc.log_ctx = s;
    int rc = ref_hub_start(&hc, &e->hub, err, cap);
    sodium_memzero(hc.curve_secret, sizeof hc.curve_secret);
    if (rc != JA_OK) {
        pthread_mutex_destroy(&e->mu);
        free(e);
        return rc;
    }
    snprintf(e->pub, sizeof e->pub, "%s", hc.curve_public);
    snprintf(e->endpoint, sizeof e->endpoint, "%s", ref_hub_endpoint(e->hub));
    s->ext = e;
    srv_ext_sync(s);
    return JA_OK;
}

void srv_ext_note(arena_server *s)
{
    if (s->ext)
        fprintf(stderr, "arena serve: external bots connect to %s with server key %s\n",
                s->ext->endpoint, s->ext->pub);
}

void srv_ext_stop(arena_server *s)
{
    struct srv_ext *e = s->ext;
    if (e == NULL)
        return;
    for (uint32_t i = 0; i < e->n_bots; i++)
        ref_bot_destroy(&e->bots[i].bot);
    ref_hub_bye_all(e->hub);
    ref_hub_stop(&e->hub);
    free(e->bots);
    free(e->keys);
    pthread_mutex_destroy(&e->mu);
    free(e);
    s->ext = NULL;
}

bool srv_ext_connected(arena_server *s, const arena_serve_version *v)
{
    /* The connection under the author's name, with this version's key (not
     * an old key's connection on its way out). */
    ref_hub_bot_status st;
    return s->ext && ref_hub_bot_status_get(s->ext->hub, v->author, &st) == JA_OK &&
           st.connected && strcmp(st.key, version_key(v)) == 0;
}

uint32_t srv_ext_filter(arena_server *s, arena_serve_version *v, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!srv_ext_is(&v[i]) || srv_ext_connected(s, &v[i]))
            v[k++] = v[i];
    return k;
}

int srv_ext_bot(arena_server *s, const arena_serve_version *v, ref_bot **out, char *err,
                size_t cap)
{
    *out = NULL;
    struct srv_ext *e = s->ext;
    if (e == NULL) {
        snprintf(err, cap, "the server was started without --listen: external bots cannot "
                           "connect");
        return JA_ENOTFOUND;
    }
    pthread_mutex_lock(&e->mu);
    for (uint32_t i = 0; i < e->n_bots && !*out; i++)
        if (strcmp(e->bots[i].name, v->author) == 0)
            *out = e->bots[i].bot;
    int rc = JA_OK;
    if (!*out) {
        e->bots = ja_xrealloc(e->bots, (e->n_bots + 1) * sizeof *e->bots);
        /* Claimed once: the hub keeps a name claimed for the hub's life. */
        ref_hub_claim_req req = {v->author, NULL, "zmq", ref_now_ns() + 500000000, NULL, NULL, 0};
        rc = ref_hub_claim(e->hub, &req, out, err, cap);
        if (rc == JA_OK) {
            snprintf(e->bots[e->n_bots].name, sizeof e->bots[e->n_bots].name, "%s", v->author);
            e->bots[e->n_bots++].bot = *out;
        } else {
            rc = JA_ENOTFOUND;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int srv_ext_ready(arena_server *s, const arena_serve_batch *b)
{
    bool missing = false;
    for (uint32_t i = 0; i < b->n && !missing; i++) {
        arena_serve_version v;
        if (arena_serve_db_version_get(s->sdb, b->version[i], &v) != JA_OK || !srv_ext_is(&v))
            continue;
        /* A retired version's key is refused: its name may be a new key's. */
        if (strcmp(v.status, ARENA_V_RETIRED) == 0)
            return SRV_EXT_GIVE_UP;
        missing = !srv_ext_connected(s, &v);
    }
    struct srv_ext *e = s->ext;
    if (!missing)
        return SRV_EXT_READY;
    if (e == NULL)
        return SRV_EXT_GIVE_UP;
    pthread_mutex_lock(&e->mu);
    time_t now = time(NULL);
    if (e->wait_batch != b->id) {
        e->wait_batch = b->id;
        e->wait_since = now;
    }
    bool over = now - e->wait_since > SRV_EXT_GRACE_S;
    pthread_mutex_unlock(&e->mu);
    return over ? SRV_EXT_GIVE_UP : SRV_EXT_WAIT;
}

int srv_ext_register(arena_server *s, int64_t author, const char *name, const char *key,
                     int64_t *id, int64_t *number, char *err, size_t cap)
{
    struct srv_ext *e = s->ext;
    uint8_t bin[32];
    if (e == NULL) {
        snprintf(err, cap, "this server takes no external bots (it was started without "
                           "--listen)");
        return 409;
    }
    if (key == NULL || strlen(key) != REF_HUB_KEY_Z85 - 1 || !zmq_z85_decode(bin, key)) {
        snprintf(err, cap, "\"key\" must be a CurveZMQ public key: 40 Z85 characters that "
                           "decode to 32 bytes (zmq.curve_keypair()'s first half)");
        return 400;
    }
    if (strcmp(key, e->pub) == 0) {
        snprintf(err, cap, "that is the server's own public key; register your bot's key");
        return 400;
    }
    char file[64], sha[65];
    snprintf(file, sizeof file, "%s%s", SRV_EXT_FILE, key);
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)key, strlen(key));
    sodium_bin2hex(sha, sizeof sha, h, sizeof h);
    pthread_mutex_lock(&e->mu);
    int64_t owner = 0;
    int status = 500;
    int rc = arena_serve_db_file_owner(s->sdb, file, &owner);
    if (rc == JA_OK && owner != author) {
        snprintf(err, cap, "that key is bound to another bot (a key belongs to one author "
                           "for good: make a new key pair)");
        status = 409;
    } else if (rc != JA_OK && rc != JA_ENOTFOUND) {
        snprintf(err, cap, "the server database cannot be read");
    } else if ((rc = arena_serve_db_version_add(s->sdb, author, sha, file, NULL, id, number)) ==
               JA_EBUSY) {
        snprintf(err, cap, "this key is already your version %" PRId64
                           " (a new version needs a new key pair)", *number);
        status = 409;
    } else if (rc != JA_OK) {
        snprintf(err, cap, "the version cannot be stored");
    } else {
        int64_t n = 0;
        if (arena_serve_db_supersede(s->sdb, author, *id, SRV_EXT_FILE, &n) != JA_OK)
            snprintf(err, cap, "the old key cannot be retired");
        else
            status = 202;
        if (n)
            srv_event(s, json_pack("{ss ss ss sI}", "type", "version", "author", name, "status",
                                   ARENA_V_RETIRED, "versions", (json_int_t)n));
        sync_locked(s, e);
    }
    pthread_mutex_unlock(&e->mu);
    if (status == 202)
        srv_event_version(s, name, *number, ARENA_V_VALIDATING, "waiting for the bot to connect");
    return status;
}

json_t *srv_ext_server_json(arena_server *s)
{
    const arena_serve_args *a = s->a;
    json_t *ext = json_null();
    if (s->ext)
        ext = json_pack("{ss ss ss}", "endpoint", s->ext->endpoint, "server_key", s->ext->pub,
                        "hello_name", "your author name");
    return json_pack("{ss sI ss so}", "game", a->game->name, "seats", (json_int_t)a->seats,
                     "options", s->opts_text, "external", ext);
}

void srv_ext_page(arena_server *s, FILE *f)
{
    fputs("<h2>External bots</h2>\n", f);
    if (s->ext == NULL) {
        fputs("<p>This server takes no external bots (it runs without --listen).</p>\n", f);
        return;
    }
    fputs("<p>A bot that runs on your machine registers its CurveZMQ public key with "
          "<code>POST /api/external</code> and connects, saying hello under your author "
          "name, to <code id=\"endpoint\">", f);
    arena_html(f, s->ext->endpoint);
    fputs("</code> with the server key <code id=\"server-key\">", f);
    arena_html(f, s->ext->pub);
    fputs("</code>.</p>\n", f);
}
