/* What a confined cmd: bot may read (confine_read.h). */
#include "run/confine_read.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_version.h"
#include "ja_xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#ifndef JA_INSTALL_LIB_REL
#define JA_INSTALL_LIB_REL "../lib"
#endif
#ifndef JA_INSTALL_PYTHON_REL
#define JA_INSTALL_PYTHON_REL "../lib/python3/dist-packages"
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

/* ---- paths ------------------------------------------------------------------- */

void confine_canonical_parent(const char *path, char out[PATH_MAX])
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    char *slash = strrchr(buf, '/');
    const char *base = slash ? slash + 1 : buf;
    char dir[PATH_MAX];
    if (slash == buf)
        snprintf(dir, sizeof dir, "/");
    else if (slash) {
        *slash = '\0';
        confine_canonical(buf, dir);
    } else if (!getcwd(dir, sizeof dir)) {
        snprintf(dir, sizeof dir, ".");
    }
    snprintf(out, PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", base);
}

void confine_canonical(const char *path, char out[PATH_MAX])
{
    if (!realpath(path, out))
        confine_canonical_parent(path, out);
}

bool confine_beneath(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0)
        return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The directory of canonical path (itself when that is "/"). */
static void dir_of(const char *path, char out[PATH_MAX])
{
    snprintf(out, PATH_MAX, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash && slash != out)
        *slash = '\0';
    else if (slash)
        out[1] = '\0';
}

/* ---- grants ------------------------------------------------------------------- */

/* Adds path (canonical) as kind, for FILE the file of entry of; an entry
 * already there keeps the stronger kind (NAMED, then DIR_OF, then AUTO).
 * Its index, or -1 when the list is full. */
static int add(confine_grants *g, const char *path, int kind, int of)
{
    for (int i = 0; i < g->n; i++) {
        if (strcmp(g->g[i].path, path) != 0 || (g->g[i].kind == CONFINE_FILE) != (kind == CONFINE_FILE))
            continue;
        if (kind == CONFINE_FILE && g->g[i].of != of)
            continue;
        if (kind < g->g[i].kind)
            g->g[i].kind = kind;
        g->g[i].prog = g->g[i].prog && g->in_prog;
        return i;
    }
    if (g->n == ARENA_CONFINE_MAX_GRANTS)
        return -1;
    int i = g->n++;
    snprintf(g->g[i].path, PATH_MAX, "%s", path);
    g->g[i].kind = kind;
    g->g[i].of = of;
    g->g[i].off = kind == CONFINE_FILE;
    g->g[i].prog = g->in_prog;
    return i;
}

/* The directory of path in (canonical) as DIR_OF, with file (canonical)
 * to grant in its place. */
static void add_dir_of(confine_grants *g, const char *in, const char *file)
{
    char dir[PATH_MAX];
    dir_of(in, dir);
    int d = add(g, dir, CONFINE_DIR_OF, -1);
    if (d >= 0)
        add(g, file, CONFINE_FILE, d);
}

/* A word that names a file or a directory (relative to the working
 * directory, or absolute), as the command names it (named) or as the bot
 * finds it: a directory is granted, a file's directory (named: with the
 * file in its place) or the file itself (found). A symbolic link to a file
 * grants the link's directory too (a virtual environment's bin/python).
 * Anything else grants nothing. */
static void grant_word(confine_grants *g, const char *word, bool named)
{
    char real[PATH_MAX];
    struct stat sb;
    if (!*word || stat(word, &sb) != 0 || !realpath(word, real))
        return;
    if (S_ISDIR(sb.st_mode)) {
        add(g, real, named ? CONFINE_NAMED : CONFINE_AUTO, -1);
        return;
    }
    if (!named) {
        add(g, real, CONFINE_AUTO, -1);
        return;
    }
    add_dir_of(g, real, real);
    if (lstat(word, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        char link[PATH_MAX];
        confine_canonical_parent(word, link);
        add_dir_of(g, link, real);
    }
}

/* The ':'-separated paths of value, each a word (named or found). */
static void grant_list(confine_grants *g, const char *value, bool named)
{
    char buf[PATH_MAX];
    for (const char *p = value;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s", (int)n, p);
        grant_word(g, buf, named);
        if (!end)
            return;
        p = end;
    }
}

/* The home of a runtime that the program path runs, python, node or java
 * in HOME/bin (by the path as given, a virtual environment's, and as
 * resolved, a JDK's), outside the system's directories: found. */
static void grant_runtime(confine_grants *g, const char *path)
{
    static const char *const names[] = {"python*", "pypy*", "node", "nodejs", "java"};
    char forms[2][PATH_MAX];
    confine_canonical_parent(path, forms[0]);
    if (!realpath(path, forms[1]))
        return;
    for (int f = 0; f < 2; f++) {
        char *slash = strrchr(forms[f], '/');
        bool runtime = false;
        for (size_t i = 0; slash && i < sizeof names / sizeof *names; i++)
            runtime = runtime || fnmatch(names[i], slash + 1, 0) == 0;
        if (!runtime)
            continue;
        *slash = '\0';
        slash = strrchr(forms[f], '/');
        if (!slash || slash == forms[f] || strcmp(slash, "/bin") != 0)
            continue;
        *slash = '\0';
        if (!confine_beneath(forms[f], "/usr"))
            add(g, forms[f], CONFINE_AUTO, -1);
    }
}

/* The program a word without '/' runs: the first executable of that name
 * on PATH, as the shell finds it. */
static void grant_program(confine_grants *g, const char *word)
{
    const char *path = getenv("PATH");
    if (!path)
        return;
    char buf[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, word);
            if (access(buf, X_OK) == 0) {
                grant_word(g, buf, true);
                grant_runtime(g, buf);
                return;
            }
        }
        if (!end)
            return;
        p = end;
    }
}

/* NAME=VALUE with NAME a shell variable name: VALUE's ':'-separated parts
 * are paths (PYTHONPATH=..., JACKARENA_LIB=...), named. */
static bool grant_assignment(confine_grants *g, const char *word)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word || isdigit((unsigned char)word[0]))
        return false;
    for (const char *k = word; k < eq; k++)
        if (!isalnum((unsigned char)*k) && *k != '_')
            return false;
    grant_list(g, eq + 1, true);
    return true;
}

/* The words of the command: the shell's word splitting, quotes and ~
 * (wordexp, never running a command substitution); a command wordexp
 * refuses (a pipe, &&, ;) is split at blanks instead. */
static char **split_words(const char *command, wordexp_t *we, char **copy, size_t *n)
{
    *copy = NULL;
    if (wordexp(command, we, WRDE_NOCMD) == 0) {
        *n = we->we_wordc;
        return we->we_wordv;
    }
    *copy = ja_xstrdup(command);
    size_t cap = strlen(*copy) / 2 + 2;
    char **words = ja_xcalloc(cap, sizeof *words);
    *n = 0;
    for (char *save = NULL, *w = strtok_r(*copy, " \t\n", &save); w && *n < cap;
         w = strtok_r(NULL, " \t\n", &save))
        words[(*n)++] = w;
    return words;
}

void confine_grants_command(confine_grants *g, const char *command)
{
    wordexp_t we;
    char *copy;
    size_t n;
    char **words = split_words(command, &we, &copy, &n);
    bool program = true; /* the first word of a command that is no assignment */
    for (size_t i = 0; i < n; i++) {
        const char *w = words[i];
        if (strcmp(w, "&&") == 0 || strcmp(w, "||") == 0 || strcmp(w, "|") == 0 ||
            strcmp(w, ";") == 0) {
            program = true;
            continue;
        }
        if (grant_assignment(g, w))
            continue;
        g->in_prog = program;
        if (program && !strchr(w, '/')) {
            grant_program(g, w);
        } else {
            grant_word(g, w, true); /* a path, or a bare name in the working directory */
            if (program)
                grant_runtime(g, w);
        }
        g->in_prog = false;
        program = false;
    }
    if (copy) {
        free(words);
        free(copy);
    } else {
        wordfree(&we);
    }
}

void confine_grants_named(confine_grants *g, const char *path)
{
    char real[PATH_MAX];
    if (realpath(path, real))
        add(g, real, CONFINE_NAMED, -1);
}

/* The SDK installed with the arena: from its bin directory, the shared
 * libraries in LIBDIR and the directory of the Python package. */
static void grant_install(confine_grants *g)
{
    char exe[PATH_MAX], path[PATH_MAX + 64], real[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    static const char *const libs[] = {"libjackarena", "libjackarena_client"};
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        snprintf(path, sizeof path, "%s/" JA_INSTALL_LIB_REL "/%s.so." STR(JA_VERSION_MAJOR), exe,
                 libs[i]);
        if (realpath(path, real))
            add(g, real, CONFINE_AUTO, -1);
    }
    snprintf(path, sizeof path, "%s/" JA_INSTALL_PYTHON_REL "/jackarena", exe);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && realpath(path, real)) {
        *strrchr(real, '/') = '\0';
        add(g, real, CONFINE_AUTO, -1);
    }
}

/* The library that DIR/jackarena/_install.py names (LIBJACKARENA = "REL",
 * relative to the package), for each directory granted. */
static void grant_install_py(confine_grants *g)
{
    int n = g->n;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 64], line[PATH_MAX + 64], lib[PATH_MAX * 2 + 80], real[PATH_MAX];
        snprintf(path, sizeof path, "%s/jackarena/_install.py", g->g[i].path);
        FILE *f = g->g[i].kind == CONFINE_FILE ? NULL : fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            char *q = strchr(line, '"'), *e = q ? strchr(q + 1, '"') : NULL;
            if (strncmp(line, "LIBJACKARENA", 12) != 0 || !e)
                continue;
            *e = '\0';
            snprintf(lib, sizeof lib, "%s/jackarena/%s", g->g[i].path, q + 1);
            if (realpath(lib, real))
                add(g, real, CONFINE_AUTO, -1);
        }
        fclose(f);
    }
}

void confine_grants_found(confine_grants *g)
{
    static const char *const vars[] = {"PYTHONPATH", "LD_LIBRARY_PATH", "NODE_PATH", "CLASSPATH",
                                       "JACKARENA_LIB"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            grant_list(g, v, false);
    }
    grant_install(g);
    grant_install_py(g);
}

/* ---- the protected paths ---------------------------------------------------------- */

/* The protected path of c that path holds or lies within (but within the
 * home directory), or -1. */
static int holds(const arena_confine *c, const char *path)
{
    for (int k = 0; k < c->n_protect; k++)
        if (confine_beneath(c->protect[k].path, path) ||
            (!c->protect[k].within_ok && confine_beneath(path, c->protect[k].path)))
            return k;
    return -1;
}

/* True when g's command names dir itself (not as a program's directory). */
static bool names(const confine_grants *g, const char *dir)
{
    for (int i = 0; i < g->n; i++)
        if ((g->g[i].kind == CONFINE_NAMED || g->g[i].kind == CONFINE_DIR_OF) && !g->g[i].prog &&
            strcmp(g->g[i].path, dir) == 0)
            return true;
    return false;
}

/* Drops each AUTO grant of g that holds or lies within the own files of a
 * confined bot other than b, unless g's command names them too. */
static void drop_others(confine_grants *g, const arena_confine *c, const arena_bot *b)
{
    for (int k = 0; k < c->n_own; k++) {
        const char *own = c->own[k].path;
        if (c->own[k].bot == b || names(g, own))
            continue;
        for (int i = 0; i < g->n; i++)
            if (g->g[i].kind == CONFINE_AUTO &&
                (confine_beneath(own, g->g[i].path) || confine_beneath(g->g[i].path, own)))
                g->g[i].off = true;
    }
}

void confine_own_paths(const char *command, char (*out)[PATH_MAX], int *n, int max)
{
    confine_grants *g = ja_xcalloc(1, sizeof *g);
    confine_grants_command(g, command);
    *n = 0;
    for (int i = 0; i < g->n && *n < max; i++)
        if ((g->g[i].kind == CONFINE_NAMED || g->g[i].kind == CONFINE_DIR_OF) && !g->g[i].prog)
            snprintf(out[(*n)++], PATH_MAX, "%s", g->g[i].path);
    free(g);
}

int confine_grants_check(confine_grants *g, const arena_confine *c, const arena_bot *b,
                         char *err, size_t cap)
{
    drop_others(g, c, b);
    for (int i = 0; i < g->n; i++) {
        int k = g->g[i].kind == CONFINE_FILE ? -1 : holds(c, g->g[i].path);
        if (k < 0)
            continue;
        if (g->g[i].kind == CONFINE_NAMED) {
            snprintf(err, cap, "confined, it could read '%s', which %s %s ('%s'): a confined "
                     "bot reads the whole of each directory its command names, and each "
                     "--confine-read path; give it a directory of its own", g->g[i].path,
                     confine_beneath(c->protect[k].path, g->g[i].path) ? "holds" : "lies within",
                     c->protect[k].what, c->protect[k].path);
            return JA_EINVAL;
        }
        g->g[i].off = true;
        for (int j = 0; g->g[i].kind == CONFINE_DIR_OF && j < g->n; j++)
            if (g->g[j].kind == CONFINE_FILE && g->g[j].of == i)
                g->g[j].off = false;
    }
    for (int i = 0; i < g->n; i++) {
        int k = g->g[i].off ? -1 : holds(c, g->g[i].path);
        if (k >= 0) {
            snprintf(err, cap, "confined, it could read '%s', which is %s or within it ('%s'): "
                     "its command names it", g->g[i].path, c->protect[k].what,
                     c->protect[k].path);
            return JA_EINVAL;
        }
    }
    return JA_OK;
}

/* ---- what a bot was refused ----------------------------------------------------- */

/* The path in line [b, e) (confine_refused_path's order), into path: its
 * rank (0: a quoted absolute path, 1: an unquoted one, 2: a quoted name), 3
 * for none. */
static int path_in(const char *b, const char *e, char *path, size_t cap)
{
    const char *best = NULL, *best_end = NULL;
    int rank = 3;
    for (const char *p = b; p < e; p++) {
        if (*p == '\'' || *p == '"' || *p == '`') {
            const char *q = memchr(p + 1, *p, (size_t)(e - p - 1));
            if (!q)
                break;
            int r = p[1] == '/' ? 0 : 2;
            if (q > p + 1 && r < rank && !memchr(p + 1, ' ', (size_t)(q - p - 1)) &&
                !(q - p - 1 == 6 && memcmp(p + 1, "EACCES", 6) == 0)) {
                best = p + 1, best_end = q, rank = r;
            }
            p = q;
        } else if (*p == '/' && rank > 1 && (p == b || strchr(" \t(=", p[-1]))) {
            const char *q = p;
            while (q < e && !strchr(" \t'\"`,:)", *q))
                q++;
            best = p, best_end = q, rank = 1;
            p = q - 1;
        }
    }
    snprintf(path, cap, "%.*s", best ? (int)(best_end - best) : 0, best ? best : "");
    return rank;
}

bool confine_refused_path(const char *out, char *path, size_t cap)
{
    bool said = false;
    int best = 3; /* the best rank so far: a later line's path of that rank or better wins */
    path[0] = '\0';
    char found[PATH_MAX];
    for (const char *b = out; *b;) {
        const char *e = strchr(b, '\n');
        if (!e)
            e = b + strlen(b);
        size_t n = (size_t)(e - b);
        if (memmem(b, n, "ermission denied", 16) || memmem(b, n, "EACCES", 6)) {
            said = true;
            int rank = path_in(b, e, found, sizeof found);
            if (rank < 3 && rank <= best) {
                snprintf(path, cap, "%s", found);
                best = rank;
            }
        }
        b = *e ? e + 1 : e;
    }
    return said;
}
