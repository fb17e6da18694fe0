/* The confinement both sandbox programs apply to themselves before a bot's
 * code runs: ja_host (the child of a `hosted:` seat) and ja_confine (the
 * launcher of a confined `cmd:` bot). docs/security.md describes what each
 * applies and why.
 *
 * Landlock is the kernel's unprivileged access control (Linux 5.13 and
 * later, when among the enabled security modules; <linux/landlock.h> and
 * https://docs.kernel.org/userspace-api/landlock.html): a process builds a
 * ruleset naming the rights it wants handled, adds the paths (and TCP ports)
 * where some of them stay allowed, and restricts itself, for good and for
 * every process it starts. Each ABI version adds rights; a ruleset here
 * handles every right of the versions this file knows that the running
 * kernel has, so an older kernel confines less, never refuses. */
#ifndef JA_SANDBOX_H
#define JA_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rights on paths, for ja_landlock_allow. Files get the file rights among
 * them only (a rule on a file cannot carry directory rights). */
#define JA_LL_READ 0x0cULL  /* read files, list directories */
#define JA_LL_EXEC 0x0dULL  /* ... and execute programs */
#define JA_LL_WRITE 0xffffULL /* everything: write, create, remove, truncate, ioctl */

/* What ja_landlock_init handles besides file-system rights. */
enum {
    JA_LL_TCP = 1u,   /* TCP bind and connect (ABI 4): none unless allowed by port */
    JA_LL_SCOPE = 2u, /* signals and abstract unix sockets (ABI 6): only within the
                       * domain, i.e. to the confined process and what it started */
};

typedef struct ja_landlock {
    int fd;            /* the ruleset, -1 when none */
    int abi;           /* the kernel's Landlock ABI version */
    uint64_t fs;       /* file-system rights handled */
    bool tcp;          /* TCP rights handled */
} ja_landlock;

/* The running kernel's Landlock ABI version; 0 when it has none (too old,
 * or Landlock not enabled). */
int ja_landlock_abi(void);

/* Starts a ruleset handling every file-system right the kernel knows, and
 * what flags asks for where the kernel has it. JA_OK; JA_EUNSUPPORTED when
 * the kernel has no Landlock; JA_EIO with a one-line message otherwise. */
int ja_landlock_init(ja_landlock *ll, unsigned flags, char *err, size_t cap);

/* Allows access (JA_LL_*) beneath path (or on the file path). A path that
 * does not exist allows nothing and is no error. JA_OK or JA_EIO. */
int ja_landlock_allow(ja_landlock *ll, const char *path, uint64_t access, char *err,
                      size_t cap);

/* Allows connecting to TCP port on any address (when TCP is handled).
 * JA_OK or JA_EIO. */
int ja_landlock_allow_tcp_connect(ja_landlock *ll, uint16_t port, char *err, size_t cap);

/* Restricts the calling thread (and what it starts) to the ruleset and
 * closes it. Needs no_new_privs (ja_sandbox_drop_privileges) unless the
 * process has CAP_SYS_ADMIN. JA_OK or JA_EIO. */
int ja_landlock_enforce(ja_landlock *ll, char *err, size_t cap);

/* Sets both limits of resource to v. JA_OK or JA_EIO. */
int ja_sandbox_limit(int resource, uint64_t v);

/* No new privileges (PR_SET_NO_NEW_PRIVS: a setuid program gains nothing)
 * and no capabilities: the bounding, ambient, effective, permitted and
 * inheritable sets cleared, so that a process of an arena run as root is
 * bound by file permissions like any user, across exec too. JA_OK or
 * JA_EIO with a one-line message. */
int ja_sandbox_drop_privileges(char *err, size_t cap);

#endif /* JA_SANDBOX_H */
