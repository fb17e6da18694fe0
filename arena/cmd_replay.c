/* `arena replay verify`: re-simulate a replay under the rules and print the
 * digest of its game content. */
#include "cli.h"

#include "jackarena/ja_error.h"
#include "replay.h"

#include <getopt.h>
#include <string.h>

static const char HELP[] =
    "usage: arena replay verify FILE [--json]\n"
    "Re-simulate every decision of a replay under its game's rules, check every\n"
    "action, the outcome and the recorded digest, and print the digest of the\n"
    "match's game content (the same seed and choices give the same digest on any\n"
    "machine). Exit status 0 when the replay verifies, 1 when it does not, 2 when\n"
    "the file is missing or not a readable replay.\n";

static int verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'j') {
            json = true;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            return EXIT_OK;
        } else {
            arena_error("replay verify: unknown option '%s'", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        arena_error("replay verify takes one FILE (usage: arena replay verify FILE [--json])");
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    char err[1200];
    ref_replay *r = NULL;
    int rc = ref_replay_load(path, &r, err, sizeof err);
    if (rc != JA_OK) {
        arena_error("%s", err);
        return EXIT_USAGE;
    }
    uint8_t digest[REF_DIGEST_BYTES];
    rc = ref_replay_verify(r, digest, err, sizeof err);
    char hex[REF_DIGEST_HEX];
    ref_digest_hex(rc == JA_OK ? digest : r->digest, hex);
    if (json) {
        json_w w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_bool(&w, "ok", rc == JA_OK);
        jw_str(&w, "game", r->h.game);
        jw_int(&w, "decisions", r->n_steps);
        if (rc == JA_OK)
            jw_str(&w, "digest", hex);
        else {
            jw_null(&w, "digest");
            jw_str(&w, "error", err);
        }
        jw_obj_end(&w);
        jw_end(&w);
    } else if (rc == JA_OK) {
        printf("ok: %s, %u seats, seed %llu, %u decisions\ndigest %s\n", r->h.game,
               (unsigned)r->h.n_seats, (unsigned long long)r->h.seed, r->n_steps, hex);
    }
    if (rc != JA_OK && !json)
        arena_error("replay '%s' does not verify: %s", path, err);
    ref_replay_free(&r);
    return rc == JA_OK ? EXIT_OK : EXIT_RUNTIME;
}

int cmd_replay(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(HELP, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "verify") == 0)
        return verify(argc - 1, argv + 1);
    arena_error("unknown replay command '%s' (available: verify)", argv[1]);
    return EXIT_USAGE;
}
