/* Landlock rulesets, limits and privileges for the sandbox programs
 * (ja_sandbox.h). The Landlock constants past ABI 2 are spelled out here:
 * the system's <linux/landlock.h> may be older than the running kernel. */
#include "ja_sandbox.h"

#include "jackarena/ja_error.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* The kernel's structures and flags (include/uapi/linux/landlock.h). */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};
struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));
struct ll_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};
#define LL_CREATE_RULESET_VERSION 1u
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#define LL_NET_BIND_TCP 1ULL
#define LL_NET_CONNECT_TCP 2ULL
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET 1ULL
#define LL_SCOPE_SIGNAL 2ULL
/* Rights that apply to files (the others only to directories): execute,
 * write, read, truncate (ABI 3), ioctl on devices (ABI 5). */
#define LL_FILE_RIGHTS (1ULL | 2ULL | 4ULL | (1ULL << 14) | (1ULL << 15))

/* The file-system rights of each ABI version: 13 rights in 1, then REFER
 * (2), TRUNCATE (3), IOCTL_DEV (5). */
static uint64_t fs_rights(int abi)
{
    uint64_t r = (1ULL << 13) - 1;
    if (abi >= 2)
        r |= 1ULL << 13;
    if (abi >= 3)
        r |= 1ULL << 14;
    if (abi >= 5)
        r |= 1ULL << 15;
    return r;
}

int ja_landlock_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return v > 0 ? (int)v : 0;
}

int ja_landlock_init(ja_landlock *ll, unsigned flags, char *err, size_t cap)
{
    memset(ll, 0, sizeof *ll);
    ll->fd = -1;
    ll->abi = ja_landlock_abi();
    if (ll->abi <= 0)
        return JA_EUNSUPPORTED;
    struct ll_ruleset_attr attr = {fs_rights(ll->abi), 0, 0};
    size_t size = sizeof attr.handled_access_fs;
    if ((flags & JA_LL_TCP) && ll->abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = offsetof(struct ll_ruleset_attr, scoped);
        ll->tcp = true;
    }
    if ((flags & JA_LL_SCOPE) && ll->abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    ll->fs = attr.handled_access_fs;
    ll->fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ll->fd < 0) {
        if (errno == ENOSYS || errno == EOPNOTSUPP)
            return JA_EUNSUPPORTED;
        snprintf(err, cap, "cannot create a Landlock ruleset: %s", strerror(errno));
        return JA_EIO;
    }
    return JA_OK;
}

int ja_landlock_allow(ja_landlock *ll, const char *path, uint64_t access, char *err,
                      size_t cap)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return JA_OK; /* absent here (e.g. no /lib64): nothing to allow */
    struct stat sb;
    struct ll_path_beneath_attr pb = {access & ll->fs, fd};
    if (fstat(fd, &sb) != 0 || !S_ISDIR(sb.st_mode))
        pb.allowed_access &= LL_FILE_RIGHTS;
    int rc = JA_OK;
    if (pb.allowed_access &&
        syscall(SYS_landlock_add_rule, ll->fd, LL_RULE_PATH_BENEATH, &pb, 0) != 0) {
        snprintf(err, cap, "cannot add a Landlock rule for '%s': %s", path, strerror(errno));
        rc = JA_EIO;
    }
    close(fd);
    return rc;
}

int ja_landlock_allow_tcp_connect(ja_landlock *ll, uint16_t port, char *err, size_t cap)
{
    if (!ll->tcp)
        return JA_OK;
    struct ll_net_port_attr np = {LL_NET_CONNECT_TCP, port};
    if (syscall(SYS_landlock_add_rule, ll->fd, LL_RULE_NET_PORT, &np, 0) != 0) {
        snprintf(err, cap, "cannot allow TCP port %u: %s", (unsigned)port, strerror(errno));
        return JA_EIO;
    }
    return JA_OK;
}

int ja_landlock_enforce(ja_landlock *ll, char *err, size_t cap)
{
    int rc = JA_OK;
    if (syscall(SYS_landlock_restrict_self, ll->fd, 0) != 0) {
        snprintf(err, cap, "cannot apply the Landlock ruleset: %s", strerror(errno));
        rc = JA_EIO;
    }
    close(ll->fd);
    ll->fd = -1;
    return rc;
}

int ja_sandbox_limit(int resource, uint64_t v)
{
    struct rlimit rl = {(rlim_t)v, (rlim_t)v};
    return setrlimit(resource, &rl) == 0 ? JA_OK : JA_EIO;
}

int ja_sandbox_drop_privileges(char *err, size_t cap)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
        snprintf(err, cap, "cannot set no_new_privs: %s", strerror(errno));
        return JA_EIO;
    }
    /* Without CAP_SETPCAP (not root) the bounding set cannot shrink; it
     * need not: such a process has no capability to keep across exec. */
    for (int c = 0; c <= 63; c++)
        prctl(PR_CAPBSET_DROP, c, 0, 0, 0); /* fails harmlessly past the last */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    if (syscall(SYS_capset, &hdr, none)) {
        snprintf(err, cap, "cannot drop capabilities: %s", strerror(errno));
        return JA_EIO;
    }
    return JA_OK;
}
