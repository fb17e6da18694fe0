/* Bot specifiers (README.md "Bot specifiers", `arena play --help`):
 * parsing, display names, and loading. Reference bots are plugins shipped
 * beside the arena binary; `cmd:` and `zmq:` bots are external processes
 * served by the hub (extbots.h). Any bot but zmq: may take parameters; the
 * arena knows no bot's keys: each bot judges its own (check_params for
 * plugins, the exit-2 contract for cmd: bots) before anything runs. */
#include "run/botspec.h"
#include "run/extbots.h"
#include "run/human.h"
#include "core/util.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "names.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef JA_INSTALL_BOTS_REL
#define JA_INSTALL_BOTS_REL "../lib/jackarena/bots"
#endif

static const char *const REFERENCE_BOTS[] = {"random", "greedy", "ismcts", NULL};

const char *arena_bots_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *env = getenv("JACKARENA_BOTS_DIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(dir, sizeof dir, "bots");
        return dir;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    /* The build tree (build/arena/arena -> build/bots), then an install
     * (prefix/bin/arena -> prefix/LIBDIR/jackarena/bots: JA_INSTALL_BOTS_REL,
     * the path from the bin to the bots directory, set by cmake/install.cmake). */
    const char *tries[] = {"/../bots", "/" JA_INSTALL_BOTS_REL};
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        char cand[PATH_MAX + 64], probe[PATH_MAX + 96];
        snprintf(cand, sizeof cand, "%s%s", exe, tries[i]);
        snprintf(probe, sizeof probe, "%s/ja_random.so", cand);
        if (access(probe, R_OK) == 0) {
            snprintf(dir, sizeof dir, "%s", cand);
            return dir;
        }
    }
    snprintf(dir, sizeof dir, "%s/../bots", exe);
    return dir;
}

static bool is_reference(const char *word, size_t len)
{
    for (int i = 0; REFERENCE_BOTS[i]; i++)
        if (strlen(REFERENCE_BOTS[i]) == len && strncmp(REFERENCE_BOTS[i], word, len) == 0)
            return true;
    return false;
}

/* True when word is a shell assignment, NAME=VALUE with NAME a variable name. */
static bool is_assignment(const char *word)
{
    size_t n = strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    return n > 0 && word[n] == '=' && !isdigit((unsigned char)word[0]);
}

/* The display name of a cmd: bot: the program's base name without "ja_"
 * and extension; for an interpreter (python3 x.py, node x.js...), the
 * script's. Assignments before the program and a leading "cd DIR &&" (or
 * ";") are skipped. */
static void command_name(const char *cmd, char *out, size_t cap)
{
    static const char *const interpreters[] = {"python", "python3", "node", "ruby", "perl",
                                               "sh", "bash", "java", "lua", NULL};
    char word[2][256] = {"", ""};
    const char *p = cmd;
    for (int w = 0; w < 2; w++) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        snprintf(word[w], sizeof word[w], "%.*s", (int)(len < 255 ? len : 255), p);
        p += len;
        if (w == 0 && is_assignment(word[0])) {
            w = -1;
            continue;
        }
        /* "cd DIR && ...": the command after it. */
        const char *rest = p + strspn(p, " \t");
        if (w == 1 && strcmp(word[0], "cd") == 0 && word[1][0] &&
            (strncmp(rest, "&&", 2) == 0 || rest[0] == ';')) {
            p = rest + (rest[0] == ';' ? 1 : 2);
            w = -1;
        }
    }
    const char *pick = word[0];
    const char *base0 = strrchr(word[0], '/') ? strrchr(word[0], '/') + 1 : word[0];
    for (int i = 0; interpreters[i]; i++) {
        size_t il = strlen(interpreters[i]);
        /* "python3", also "python3.11" */
        if (strncmp(base0, interpreters[i], il) == 0 &&
            strspn(base0 + il, "0123456789.") == strlen(base0 + il) && word[1][0] &&
            word[1][0] != '-')
            pick = word[1];
    }
    const char *base = strrchr(pick, '/') ? strrchr(pick, '/') + 1 : pick;
    if (strncmp(base, "ja_", 3) == 0)
        base += 3;
    size_t len = strcspn(base, ".");
    if (len == 0)
        len = strlen(base);
    snprintf(out, cap, "%.*s", (int)(len < cap - 1 ? len : cap - 1), base);
    for (char *c = out; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.')
            *c = '_';
    if (!out[0])
        snprintf(out, cap, "cmd");
}

/* The display name of a plugin file: its base name without "ja_" and
 * extension. */
static void plugin_name(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, "ja_", 3) == 0)
        base += 3;
    size_t len = strcspn(base, ".");
    if (len == 0 || len >= cap)
        len = strlen(base) < cap ? strlen(base) : cap - 1;
    snprintf(out, cap, "%.*s", (int)len, base);
}

/* A NAME= prefix: letters, digits, _ . - only, before any ':'. */
static size_t name_prefix_len(const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec)
        return 0;
    for (const char *p = spec; p < eq; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
            return 0;
    return (size_t)(eq - spec);
}

/* b->params from the len bytes at text, the parameters of specifier spec
 * (after its ':', or between cmd[ and ]): not empty, and short enough for
 * every host. The bot itself judges them when it is loaded. */
static int set_params(arena_bot *b, const char *spec, const char *text, size_t len,
                      const char *where, char *err, size_t cap)
{
    if (len == 0) {
        snprintf(err, cap, "bot '%s': no parameters %s (KEY=VALUE, several joined by ':')", spec,
                 where);
        return JA_EINVAL;
    }
    if (len >= sizeof b->params) {
        snprintf(err, cap, "bot '%s': parameters too long (at most %zu bytes)", spec,
                 sizeof b->params - 1);
        return JA_EINVAL;
    }
    memcpy(b->params, text, len);
    b->params[len] = '\0';
    return JA_OK;
}

/* A plugin specifier (after any hosted:): a reference word with its
 * parameters ("ismcts:iters=50": the plugin beside the arena), or a file
 * with its parameters. A text that names an existing file has none;
 * otherwise it is split at the first ':' after the last '/' ("./bot.so:x=1",
 * and a directory may hold ':'). plain: an in-process plugin, whose file
 * must look like one (a '/' or ".so"). Sets target, params, builtin and,
 * unless named, the display name. */
static int parse_plugin(arena_bot *b, const char *spec, const char *text, bool named, bool plain,
                        char *err, size_t cap)
{
    const char *colon = strchr(text, ':');
    size_t head = colon ? (size_t)(colon - text) : strlen(text);
    int rc = JA_OK;
    if (!memchr(text, '/', head) && is_reference(text, head)) {
        if (colon && (rc = set_params(b, spec, colon + 1, strlen(colon + 1), "after ':'", err,
                                      cap)) != JA_OK)
            return rc;
        snprintf(b->target, sizeof b->target, "%s/ja_%.*s.so", arena_bots_dir(), (int)head, text);
        b->builtin = true;
        if (!named)
            snprintf(b->name, sizeof b->name, "%.*s", (int)head, text);
        return JA_OK;
    }
    const char *slash = strrchr(text, '/');
    colon = access(text, F_OK) == 0 ? NULL : strchr(slash ? slash : text, ':');
    size_t file = colon ? (size_t)(colon - text) : strlen(text);
    if (plain && !memchr(text, '/', file) && !memmem(text, file, ".so", 3)) {
        snprintf(err, cap, "unknown bot '%s' (reference bots: random, greedy, ismcts; write "
                 "./%.*s for a file)", text, (int)file, text);
        return JA_EINVAL;
    }
    if (file >= sizeof b->target) {
        snprintf(err, cap, "bot '%s': the file name is too long", spec);
        return JA_EINVAL;
    }
    if (colon &&
        (rc = set_params(b, spec, colon + 1, strlen(colon + 1), "after ':'", err, cap)) != JA_OK)
        return rc;
    snprintf(b->target, sizeof b->target, "%.*s", (int)file, text);
    if (!named)
        plugin_name(b->target, b->name, sizeof b->name);
    return JA_OK;
}

/* hosted:FILE (hosted:random, or hosted:ismcts:iters=50, is the reference
 * bot's plugin, sandboxed). */
static int parse_hosted(arena_bot *b, const char *spec, const char *file, bool named, char *err,
                        size_t cap)
{
    if (!*file) {
        snprintf(err, cap, "bot '%s' names no plugin file after 'hosted:'", spec);
        return JA_EINVAL;
    }
    snprintf(b->kind, sizeof b->kind, "hosted");
    return parse_plugin(b, spec, file, named, false, err, cap);
}

/* cmd:COMMAND, or cmd[KEY=VALUE:...]:COMMAND: brackets, since a command is
 * free text; the bot gets them as $JACKARENA_PARAMS and in `start`. rest
 * starts at "cmd". */
static int parse_cmd(arena_bot *b, const char *spec, const char *rest, bool named, char *err,
                     size_t cap)
{
    const char *command = rest + 4;
    if (rest[3] == '[') {
        const char *close = strchr(command, ']');
        if (!close || close[1] != ':') {
            snprintf(err, cap, "bot '%s': write parameters of a command as "
                     "cmd[KEY=VALUE:...]:COMMAND", spec);
            return JA_EINVAL;
        }
        int rc = set_params(b, spec, command, (size_t)(close - command), "in 'cmd[]'", err, cap);
        if (rc != JA_OK)
            return rc;
        command = close + 2;
    }
    if (!command[strspn(command, " \t")]) {
        snprintf(err, cap, "bot '%s' names no command after 'cmd:'", spec);
        return JA_EINVAL;
    }
    snprintf(b->kind, sizeof b->kind, "cmd");
    snprintf(b->target, sizeof b->target, "%s", command);
    if (!named)
        command_name(command, b->name, sizeof b->name);
    return JA_OK;
}

/* zmq:NAME, its hello name; rest starts at "zmq". */
static int parse_zmq(arena_bot *b, const char *spec, const char *rest, bool named, char *err,
                     size_t cap)
{
    const char *name = rest + 4;
    if (rest[3] == '[' || strchr(name, ':')) {
        snprintf(err, cap, "bot '%s': a zmq: bot takes no parameters from the arena (its owner "
                 "starts it, and gives it its parameters)", spec);
        return JA_EINVAL;
    }
    if (!*name || strlen(name) >= REF_WIRE_NAME_MAX) {
        snprintf(err, cap, "bot '%s': zmq: needs the bot's hello name (1 to %d bytes)", spec,
                 REF_WIRE_NAME_MAX - 1);
        return JA_EINVAL;
    }
    snprintf(b->kind, sizeof b->kind, "zmq");
    snprintf(b->target, sizeof b->target, "%s", name);
    if (!named)
        snprintf(b->name, sizeof b->name, "%s", name);
    return JA_OK;
}

/* b->name from spec's NAME= prefix of nl bytes (0: none; the kind derives
 * the name later), and *rest at what follows it: the bot itself. */
static int parse_name(arena_bot *b, const char *spec, size_t nl, const char **rest, char *err,
                      size_t cap)
{
    *rest = spec + (nl ? nl + 1 : 0);
    if (nl) {
        if (nl >= sizeof b->name) {
            snprintf(err, cap, "bot name too long in '%s'", spec);
            return JA_EINVAL;
        }
        memcpy(b->name, spec, nl);
        b->name[nl] = '\0';
    }
    if (!**rest) {
        snprintf(err, cap, "bot '%s' names no bot after '='", spec);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* `human`: a person plays the seat (human.h), where the command has human
 * seats (`arena play`). */
static int parse_human(const arena_bots *bs, arena_bot *b, const char *spec, bool named,
                       char *err, size_t cap)
{
    if (!bs->human) {
        snprintf(err, cap, "bot '%s': a human seat plays only in 'arena play' (this command "
                 "plays its matches unattended)", spec);
        return JA_EINVAL;
    }
    snprintf(b->kind, sizeof b->kind, "human");
    if (!named)
        snprintf(b->name, sizeof b->name, "human");
    return JA_OK;
}

/* The bot after any NAME=, by its kind's prefix; a plain word or file is
 * an in-process plugin. */
static int parse_kind(const arena_bots *bs, arena_bot *b, const char *spec, const char *rest,
                      bool named, char *err, size_t cap)
{
    if (strcmp(rest, "human") == 0)
        return parse_human(bs, b, spec, named, err, cap);
    if (strncmp(rest, "hosted:", 7) == 0)
        return parse_hosted(b, spec, rest + 7, named, err, cap);
    if (strncmp(rest, "cmd:", 4) == 0 || strncmp(rest, "cmd[", 4) == 0)
        return parse_cmd(b, spec, rest, named, err, cap);
    if (strncmp(rest, "zmq:", 4) == 0 || strncmp(rest, "zmq[", 4) == 0)
        return parse_zmq(b, spec, rest, named, err, cap);
    int rc = parse_plugin(b, spec, rest, named, true, err, cap);
    if (rc == JA_OK)
        snprintf(b->kind, sizeof b->kind, "plugin");
    return rc;
}

int arena_bots_add(arena_bots *bs, const char *spec, char *err, size_t cap)
{
    if (bs->n >= ARENA_MAX_BOTS) {
        snprintf(err, cap, "too many bots (at most %d)", ARENA_MAX_BOTS);
        return JA_EINVAL;
    }
    if (!*spec) {
        snprintf(err, cap, "empty bot specifier");
        return JA_EINVAL;
    }
    arena_bot *b = &bs->b[bs->n];
    memset(b, 0, sizeof *b);
    snprintf(b->spec, sizeof b->spec, "%s", spec);
    size_t nl = name_prefix_len(spec);
    const char *rest;
    int rc = parse_name(b, spec, nl, &rest, err, cap);
    if (rc == JA_OK)
        rc = parse_kind(bs, b, spec, rest, nl != 0, err, cap);
    if (rc == JA_OK)
        bs->n++;
    return rc;
}

int arena_bots_add_list(arena_bots *bs, const char *list, char *err, size_t cap)
{
    char *copy = ja_xstrdup(list), *save = NULL;
    int rc = JA_OK, added = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == JA_OK;
         tok = strtok_r(NULL, ",", &save)) {
        rc = arena_bots_add(bs, tok, err, cap);
        added++;
    }
    free(copy);
    if (rc == JA_OK && !added) {
        snprintf(err, cap, "--bots lists no bot");
        return JA_EINVAL;
    }
    return rc;
}

/* True if plugins x and y are the same file once paths are resolved. */
static bool same_bot(const arena_bot *x, const arena_bot *y)
{
    if (strcmp(x->target, y->target) == 0)
        return true;
    char rx[PATH_MAX], ry[PATH_MAX];
    return realpath(x->target, rx) && realpath(y->target, ry) && strcmp(rx, ry) == 0;
}

int arena_bots_finish_names(arena_bots *bs, char *err, size_t cap)
{
    /* One person plays one seat: two humans at one screen (or page) would
     * see each other's hands. */
    for (int i = 0, first = -1; i < bs->n; i++) {
        if (strcmp(bs->b[i].kind, "human") != 0)
            continue;
        if (first >= 0) {
            snprintf(err, cap, "more than one human seat ('%s' and '%s'): one person plays one "
                     "seat of a match", bs->b[first].spec, bs->b[i].spec);
            return JA_EINVAL;
        }
        first = i;
    }
    /* Explicit names must be unique. */
    for (int i = 0; i < bs->n; i++)
        for (int j = i + 1; j < bs->n; j++)
            if (name_prefix_len(bs->b[i].spec) && name_prefix_len(bs->b[j].spec) &&
                strcmp(bs->b[i].name, bs->b[j].name) == 0) {
                snprintf(err, cap, "two bots are named '%s'", bs->b[i].name);
                return JA_EINVAL;
            }
    /* Two different plugin files must not share a derived name: "#2" is
     * for the same bot given twice, and a ladder shows bots by name, so
     * a/bot.so and b/bot.so would read as one bot twice. (Two cmd: bots
     * running one program with different arguments stay rawbot, rawbot#2.) */
    for (int i = 0; i < bs->n; i++)
        for (int j = i + 1; j < bs->n; j++) {
            const arena_bot *x = &bs->b[i], *y = &bs->b[j];
            if (name_prefix_len(x->spec) || name_prefix_len(y->spec) ||
                strcmp(x->kind, "plugin") != 0 || strcmp(y->kind, "plugin") != 0 ||
                strcmp(x->name, y->name) != 0 || same_bot(x, y))
                continue;
            snprintf(err, cap, "two different bots are both named '%s' ('%s' and '%s'); give one "
                     "a name with NAME=SPEC", x->name, x->spec, y->spec);
            return JA_EINVAL;
        }
    /* Repeats of one name become name#2, name#3 ... */
    for (int i = 0; i < bs->n; i++) {
        int count = 1;
        for (int j = 0; j < i; j++) {
            const char *nj = bs->b[j].name;
            size_t len = strlen(bs->b[i].name);
            if (strncmp(nj, bs->b[i].name, len) == 0 && (nj[len] == '\0' || nj[len] == '#'))
                count++;
        }
        if (count > 1) {
            char base[64];
            snprintf(base, sizeof base, "%s", bs->b[i].name);
            snprintf(bs->b[i].name, sizeof bs->b[i].name, "%.56s#%d", base, count);
        }
    }
    return JA_OK;
}

void arena_bot_label(const arena_bot *b, char *out, size_t cap)
{
    ladder_label(out, cap, b->name, b->params);
}

bool arena_bots_external(const arena_bots *bs)
{
    for (int i = 0; i < bs->n; i++)
        if (strcmp(bs->b[i].kind, "cmd") == 0 || strcmp(bs->b[i].kind, "zmq") == 0)
            return true;
    return false;
}

/* The settings used when a command gave none. */
static arena_ext default_ext;

static arena_ext *ext_of(arena_bots *bs)
{
    return bs->ext ? bs->ext : &default_ext;
}

/* External participants: zmq: bots first (already running, they only need
 * finding), then each cmd: bot in turn, so that only one is ever starting
 * and a hello under an unexpected name can only be its. Every cmd: bot's
 * name is bound to its token before the first one starts, so none can say
 * hello under another's. */
static int load_external(arena_bots *bs, const ja_game_rules *g, char *err, size_t cap)
{
    int rc;
    for (int i = 0; i < bs->n; i++)
        if (strcmp(bs->b[i].kind, "cmd") == 0 && !bs->b[i].bot &&
            (rc = arena_ext_reserve(ext_of(bs), &bs->b[i], err, cap)) != JA_OK)
            return rc;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < bs->n; i++) {
            arena_bot *b = &bs->b[i];
            if (strcmp(b->kind, pass == 0 ? "zmq" : "cmd") != 0 || b->bot)
                continue;
            if ((rc = arena_ext_load(ext_of(bs), b, err, cap)) != JA_OK)
                return rc;
            if (g && !ref_bot_supports(b->bot, g)) {
                snprintf(err, cap, "bot '%s' does not play %s (its hello lists the games it "
                         "plays)", b->name, g->name);
                return JA_EINVAL;
            }
        }
    return JA_OK;
}

/* The external participants and flags, before any bot is loaded. */
static int check_external(arena_bots *bs, char *err, size_t cap)
{
    for (int i = 0; i < bs->n; i++)
        for (int j = i + 1; j < bs->n; j++)
            if (strcmp(bs->b[i].kind, "zmq") == 0 && strcmp(bs->b[j].kind, "zmq") == 0 &&
                strcmp(bs->b[i].target, bs->b[j].target) == 0) {
                snprintf(err, cap, "zmq:%s is given twice (an external bot plays one seat per "
                         "match; run a second instance under another name)", bs->b[i].target);
                return JA_EINVAL;
            }
    for (int i = 0; !bs->ext && i < bs->n; i++)
        if (strcmp(bs->b[i].kind, "zmq") == 0) {
            snprintf(err, cap, "bot '%s' (zmq:%s): this command has no --listen, so a zmq: bot "
                     "cannot connect (use a cmd: bot)", bs->b[i].name, bs->b[i].target);
            return JA_EINVAL;
        }
    return arena_ext_check(ext_of(bs), bs, err, cap);
}

/* Opens plugin or hosted participant b, its bot b->bot. A hosted plugin is
 * probed in a sandboxed child, never loaded here; its parameters travel to
 * the child. */
static int open_plugin(arena_bot *b, bool hosted, char *err, size_t cap)
{
    char why[1200];
    int rc = hosted ? ref_bot_hosted_open(b->target, b->params, &b->bot, why, sizeof why)
                    : ref_bot_plugin_open(b->target, b->params, &b->bot, why, sizeof why);
    if (rc == JA_EINVAL) /* the bot refused its parameters (or a hosted limit is bad) */
        snprintf(err, cap, "bot '%s': %s", b->spec, why);
    else if (rc != JA_OK && b->builtin)
        snprintf(err, cap, "reference bot '%s' is not available (%s); is the build complete, or "
                 "JACKARENA_BOTS_DIR right?", b->name, why);
    else if (rc != JA_OK)
        snprintf(err, cap, "%s", why);
    else
        b->owns_bot = true;
    return rc;
}

/* The in-process and hosted plugins; participants i and j with the same
 * kind, file and parameters share j's bot. */
static int load_plugins(arena_bots *bs, const ja_game_rules *g, char *err, size_t cap)
{
    for (int i = 0; i < bs->n; i++) {
        arena_bot *b = &bs->b[i];
        bool hosted = strcmp(b->kind, "hosted") == 0;
        if (strcmp(b->kind, "plugin") != 0 && !hosted)
            continue;
        for (int j = 0; j < i; j++)
            if (strcmp(bs->b[j].kind, b->kind) == 0 && strcmp(bs->b[j].target, b->target) == 0 &&
                strcmp(bs->b[j].params, b->params) == 0 && bs->b[j].bot) {
                b->bot = bs->b[j].bot;
                break;
            }
        int rc = b->bot ? JA_OK : open_plugin(b, hosted, err, cap);
        if (rc != JA_OK)
            return rc;
        if (g && !ref_bot_supports(b->bot, g)) {
            snprintf(err, cap, "bot '%s' does not play %s", b->name, g->name);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

/* The human participants (human.h). */
static int load_humans(arena_bots *bs, char *err, size_t cap)
{
    for (int i = 0; i < bs->n; i++) {
        arena_bot *b = &bs->b[i];
        if (strcmp(b->kind, "human") != 0 || b->bot)
            continue;
        if (!bs->human) { /* refused when added; a list built by hand */
            snprintf(err, cap, "bot '%s': this command has no human seats", b->spec);
            return JA_EINVAL;
        }
        int rc = arena_human_open(bs->human, &b->bot, err, cap);
        b->owns_bot = true; /* freed with the others, opened or not */
        if (rc != JA_OK)
            return rc;
    }
    return JA_OK;
}

int arena_bots_load(arena_bots *bs, const ja_game_rules *g, char *err, size_t cap)
{
    int rc = check_external(bs, err, cap);
    if (rc == JA_OK)
        rc = load_humans(bs, err, cap);
    if (rc == JA_OK)
        rc = load_plugins(bs, g, err, cap);
    if (rc == JA_OK)
        rc = load_external(bs, g, err, cap);
    return rc;
}

void arena_bots_free(arena_bots *bs)
{
    if (arena_bots_external(bs) || ext_of(bs)->hub)
        arena_ext_stop(ext_of(bs), bs);
    for (int i = 0; i < bs->n; i++) {
        if (bs->b[i].owns_bot)
            ref_bot_destroy(&bs->b[i].bot);
        explicit_bzero(bs->b[i].token, sizeof bs->b[i].token); /* one never handed out */
    }
    bs->n = 0;
}
