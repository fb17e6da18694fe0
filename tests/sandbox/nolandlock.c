/* nolandlock PROGRAM ARGS...: runs PROGRAM as on a kernel without Landlock
 * (test_confine.sh). A seccomp filter makes the three Landlock system calls
 * fail with ENOSYS, which is what a kernel built without Landlock answers;
 * everything else is allowed. The filter is inherited by every process
 * PROGRAM starts (ja_confine, ja_host, the bots). */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nolandlock PROGRAM ARGS...\n");
        return 2;
    }
    /* landlock_create_ruleset, landlock_add_rule, landlock_restrict_self:
     * the same numbers on every architecture. */
    static const int calls[] = {444, 445, 446};
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    int rc = f ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < sizeof calls / sizeof *calls; i++)
        rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), calls[i], 0);
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    if (rc != 0) {
        fprintf(stderr, "nolandlock: cannot install the filter (%d)\n", rc);
        return 2;
    }
    execvp(argv[1], argv + 1);
    perror("nolandlock: exec");
    return 127;
}
