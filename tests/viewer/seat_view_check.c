/* The seat view's security boundary, checked by interference: a seat's view
 * (`arena replay show --seat S`, viewer_text_dump) must be a function of
 * what seat S may know, its own observations and its own records, and of
 * the match's header. For every seat S of every replay given, this draws S's
 * view, then scrambles everything else the model holds (every other seat's
 * observations and records, their labels, whom each decision asked besides
 * S, describe()'s lines, where the other seats forfeited, what their bots
 * logged) and draws it
 * again: the two must be the same up to the result. The result, public once
 * the match is over, must be the omniscient view's.
 *
 * Usage: seat_view_check REPLAY...   Exit 0 when every view holds, 1 with one
 * FAIL line per view that changed.
 *
 * seat_view_check --obs REPLAY prints, one line per frame, the JSON array of
 * the seats' whole observations (viewer_obs_json), which the replay page's
 * model holds as changes: test_viewer.sh compares the two. */
#include "view/viewer.h"

#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"

#include <stdlib.h>
#include <string.h>

/* The text before and from "== result ==" of a dump. */
static char *dump(const viewer_model *m, int seat, size_t *result_at)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        perror("open_memstream");
        exit(2);
    }
    const viewer_style plain = {false, false};
    viewer_text_dump(f, m, seat, &plain);
    fclose(f);
    const char *r = strstr(buf, "== result ==\n");
    *result_at = r ? (size_t)(r - buf) : len;
    return buf;
}

static uint64_t next(uint64_t *x)
{
    /* SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
     * generators", OOPSLA 2014). */
    uint64_t z = (*x += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Everything of the model but seat s's own part, changed. */
static void scramble(viewer_model *m, ref_replay *r, uint32_t s, uint64_t seed)
{
    uint64_t x = seed;
    for (uint32_t f = 0; f < m->n_frames; f++) {
        for (uint32_t t = 0; t < m->n_seats; t++) {
            if (t == s)
                continue;
            uint8_t *o = (uint8_t *)viewer_obs(m, f, t);
            for (size_t i = 0; i < m->g->obs_size; i++)
                o[i] = (uint8_t)next(&x);
        }
        snprintf(m->describe[f], VIEWER_DESCRIBE_MAX, "scrambled %llu",
                 (unsigned long long)next(&x));
    }
    uint32_t others = (uint32_t)((UINT64_C(1) << m->n_seats) - 1) & ~(1u << s);
    for (uint32_t i = 0; i < r->n_steps; i++)
        r->steps[i].seats ^= others & (uint32_t)next(&x);
    for (uint32_t i = 0; i < r->n_recs; i++) {
        ref_replay_rec *rec = &r->recs[i];
        if (rec->seat == s)
            continue;
        rec->code ^= 0x5A5Au;
        rec->fault = (uint8_t)(next(&x) % JA_FAULT_COUNT);
        rec->forced = !rec->forced;
        rec->n_legal += 7;
        rec->index = 3;
        rec->think_us += 123456;
        snprintf(m->label[i], VIEWER_LABEL_MAX, "scrambled %u", i);
    }
    for (uint32_t t = 0; t < m->n_seats; t++)
        if (t != s)
            m->forfeit_at[t] = 1 + (uint32_t)(next(&x) % m->n_frames);
    /* The other seats' bot logs: other letters, the same lines. */
    for (uint32_t i = 0; i < r->n_logs; i++) {
        if (r->logs[i].seat == s)
            continue;
        char *t = r->log_text + r->logs[i].off;
        for (uint32_t k = 0; k < r->logs[i].len; k++)
            if (t[k] != '\n')
                t[k] = (char)('a' + next(&x) % 26);
    }
}

/* viewer_open, its line printed when it fails. */
static bool open_model(const char *path, ref_replay **r, viewer_model *m)
{
    char err[8192];
    if (viewer_open(path, r, m, err, sizeof err) == JA_OK)
        return true;
    arena_error("%s", err);
    return false;
}

static int print_obs(const char *path)
{
    ref_replay *r;
    viewer_model m;
    if (!open_model(path, &r, &m))
        return 2;
    for (uint32_t f = 0; f < m.n_frames; f++) {
        json_w w;
        jw_init(&w, stdout);
        jw_arr(&w, NULL);
        for (uint32_t s = 0; s < m.n_seats; s++)
            viewer_obs_json(&w, NULL, m.g, viewer_obs(&m, f, s));
        jw_arr_end(&w);
        jw_end(&w);
    }
    viewer_close(&r, &m);
    return 0;
}

int main(int argc, char **argv)
{
    int fails = 0, views = 0;
    if (argc == 3 && strcmp(argv[1], "--obs") == 0)
        return print_obs(argv[2]);
    for (int a = 1; a < argc; a++) {
        ref_replay *r0;
        viewer_model m0;
        if (!open_model(argv[a], &r0, &m0))
            return 2;
        size_t omni_at;
        char *omni = dump(&m0, -1, &omni_at);
        for (uint32_t s = 0; s < m0.n_seats; s++) {
            ref_replay *r;
            viewer_model m;
            if (!open_model(argv[a], &r, &m))
                return 2;
            size_t at_a, at_b;
            char *before = dump(&m, (int)s, &at_a);
            scramble(&m, r, s, 0x5EEDu + s);
            char *after = dump(&m, (int)s, &at_b);
            views++;
            if (at_a != at_b || memcmp(before, after, at_a) != 0) {
                size_t k = 0;
                while (k < at_a && k < at_b && before[k] == after[k])
                    k++;
                size_t line = k;
                while (line > 0 && before[line - 1] != '\n')
                    line--;
                printf("FAIL: %s --seat %u depends on what the seat may not see, from: %.*s\n",
                       argv[a], (unsigned)s, (int)strcspn(before + line, "\n"), before + line);
                fails++;
            }
            if (strcmp(before + at_a, omni + omni_at) != 0) {
                printf("FAIL: %s --seat %u: the result differs from the omniscient view's\n",
                       argv[a], (unsigned)s);
                fails++;
            }
            free(before);
            free(after);
            viewer_close(&r, &m);
        }
        free(omni);
        viewer_close(&r0, &m0);
    }
    printf("seat_view_check: %d views, %d failures\n", views, fails);
    return fails ? 1 : 0;
}
