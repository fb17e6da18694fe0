/* Output files. Every file the arena and the referee worker write (replays,
 * reproduction bundles, training data, web pages, report sites, ladder
 * exports) goes through here, so that none is ever half-written and none is
 * written through something that is not a regular file.
 *
 * A destination may be missing or a regular file. Anything else found there
 * with lstat (a directory, a FIFO, a device, a socket, or a symbolic link,
 * even one to a regular file: it is never followed) is refused. The bytes
 * go to a new file beside the destination, "DEST.tmp-XXXXXX" (a random
 * suffix; O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode 0644 less the
 * umask), so a name planted in advance is neither followed nor reused. At
 * the end the file is flushed (with REF_OUT_SYNC: fsync), the destination is
 * checked again, the file is renamed over it, and (REF_OUT_SYNC) its
 * directory is synced, so that a file reported written survives a crash of
 * the machine. A failure removes the temporary file and leaves the
 * destination as it was.
 *
 * "-" (with REF_OUT_STDOUT) is the standard output: see ref_out_stdout.
 *
 * Threads: one ref_out is used by one thread at a time; distinct ones may
 * be used at once. ref_out_stdout is for the main thread, before others
 * write to standard output. */
#ifndef REF_OUTFILE_H
#define REF_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

enum {
    REF_OUT_SYNC = 1u,   /* fsync the file and its directory (replays: no lost result) */
    REF_OUT_STDOUT = 2u, /* "-" means the standard output */
};

/* JA_OK when path may be written as an output: "-" with REF_OUT_STDOUT, or
 * a path that is missing (in a directory that exists and is writable) or a
 * regular file. Otherwise JA_EINVAL and one line in err, "LABEL 'PATH':
 * it is a FIFO; an output replaces only a regular file" (label: e.g.
 * "--replay"; NULL: "cannot write"). For checking every output of a
 * command before anything runs. */
int ref_out_check(const char *label, const char *path, unsigned flags, char *err, size_t cap);

/* What is at path, for messages: NULL when it is missing or a regular file,
 * else "a directory", "a FIFO", "a character device", "a block device",
 * "a socket" or "a symbolic link" (lstat). */
const char *ref_out_kind(const char *path);

typedef struct ref_out ref_out;

/* Creates the temporary file for path (or, for "-" with REF_OUT_STDOUT,
 * takes the standard output). JA_OK, JA_EINVAL (ref_out_check refused the
 * destination), JA_EIO (cannot create it); err gets one line,
 * "LABEL 'PATH': why" (label NULL: "cannot write"), here and at commit. */
int ref_out_open(const char *label, const char *path, unsigned flags, ref_out **out, char *err,
                 size_t cap);

/* The stream to write to. */
FILE *ref_out_file(ref_out *o);

/* The destination as given ("-" for the standard output). */
const char *ref_out_path(const ref_out *o);

/* Puts the file in place (flush, sync, rename; the standard output is only
 * flushed) and frees *o (NULL afterwards). JA_OK, or JA_EIO with a message
 * naming the destination (the temporary file is then removed). NULL-safe:
 * *o NULL is JA_OK. */
int ref_out_commit(ref_out **o, char *err, size_t cap);

/* Removes the temporary file and frees *o (NULL afterwards). NULL-safe. */
void ref_out_abort(ref_out **o);

/* ref_out_open, one fwrite of len bytes, ref_out_commit. */
int ref_out_write_file(const char *label, const char *path, unsigned flags, const void *data,
                       size_t len, char *err, size_t cap);

/* The standard output as a data stream. The first call moves descriptor 1
 * to a new close-on-exec descriptor, which the returned stream writes, and
 * points descriptor 1 at standard error: whatever else the process (a
 * command's report, a library's message) or a child it starts prints goes
 * to standard error, never into the data. NULL if that fails. */
FILE *ref_out_stdout(void);

#endif /* REF_OUTFILE_H */
