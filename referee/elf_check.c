/* The plugin file check before dlopen (elf_check.h). The structures are
 * those of <elf.h> (the System V gABI, "ELF Object File Format"); only the
 * build's own class and byte order are parsed, the rest is refused from
 * e_ident alone. */
#include "elf_check.h"

#include "jackarena/ja_error.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- this build --------------------------------------------------------------- */

#if UINTPTR_MAX > 0xffffffffu
#define NATIVE_CLASS ELFCLASS64
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
typedef Elf64_Shdr shdr_t;
typedef Elf64_Dyn dyn_t;
#else
#define NATIVE_CLASS ELFCLASS32
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
typedef Elf32_Shdr shdr_t;
typedef Elf32_Dyn dyn_t;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__powerpc__)
#define NATIVE_MACHINE EM_PPC
#elif defined(__s390__)
#define NATIVE_MACHINE EM_S390
#elif defined(__mips__)
#define NATIVE_MACHINE EM_MIPS
#elif defined(__sparc__) && defined(__arch64__)
#define NATIVE_MACHINE EM_SPARCV9
#elif defined(__loongarch__) && defined(EM_LOONGARCH)
#define NATIVE_MACHINE EM_LOONGARCH
#endif
/* Another architecture: e_machine is left to dlopen. */

#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

/* Dynamic entries read at most: a plugin's has a few dozen. */
#define MAX_DYN 4096

static const char *machine_name(unsigned m, char *buf, size_t cap)
{
    switch (m) {
    case EM_386: return "i386";
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC: return "powerpc";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    case EM_MIPS: return "mips";
    case EM_SPARC: return "sparc";
    case EM_SPARCV9: return "sparc64";
    case EM_IA_64: return "ia64";
    case 258: return "loongarch"; /* EM_LOONGARCH, absent from older <elf.h> */
    default: snprintf(buf, cap, "machine %u", m); return buf;
    }
}

/* ---- reading ------------------------------------------------------------------- */

typedef struct elf_file {
    int fd;
    uint64_t size;
    const char *path;
    char *err;
    size_t cap;
} elf_file;

static int refuse(elf_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(elf_file *f, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(f->err, f->cap, "bot plugin '%s': %s", f->path, why);
    return JA_EFORMAT;
}

/* off + len, or UINT64_MAX when it overflows. */
static uint64_t end_of(uint64_t off, uint64_t len)
{
    return off > UINT64_MAX - len ? UINT64_MAX : off + len;
}

/* Reads exactly n bytes at off, which the caller has checked lie within the
 * file. False when the file is shorter now, or on an I/O error. */
static bool read_at(elf_file *f, uint64_t off, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t got = pread(f->fd, p, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p += got;
        off += (uint64_t)got;
        n -= (size_t)got;
    }
    return true;
}

static int unreadable(elf_file *f)
{
    return refuse(f, "cannot read: %s", errno ? strerror(errno) : "the file changed while read");
}

static int truncated(elf_file *f, const char *what, uint64_t need)
{
    if (need == UINT64_MAX) /* an offset and a size that wrap around */
        return refuse(f, "malformed: %s more bytes than a file can hold", what);
    return refuse(f, "truncated: %s %" PRIu64 " bytes, the file has %" PRIu64, what, need,
                  f->size);
}

/* ---- the checks -------------------------------------------------------------------- */

static int check_ident(elf_file *f, const unsigned char *id, size_t got)
{
    if (got < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
        return f->size == 0 ? refuse(f, "not an ELF file (it is empty)")
                            : refuse(f, "not an ELF file");
    if (got < EI_NIDENT)
        return truncated(f, "its ELF header needs", sizeof(ehdr_t));
    if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)
        return refuse(f, "not a valid ELF file (class %u)", id[EI_CLASS]);
    if (id[EI_CLASS] != NATIVE_CLASS)
        return refuse(f, "a %s ELF file, this arena runs %s code",
                      id[EI_CLASS] == ELFCLASS64 ? "64-bit" : "32-bit",
                      NATIVE_CLASS == ELFCLASS64 ? "64-bit" : "32-bit");
    if (id[EI_DATA] != ELFDATA2LSB && id[EI_DATA] != ELFDATA2MSB)
        return refuse(f, "not a valid ELF file (data encoding %u)", id[EI_DATA]);
    if (id[EI_DATA] != NATIVE_DATA)
        return refuse(f, "a %s ELF file, this arena runs %s code",
                      id[EI_DATA] == ELFDATA2MSB ? "big-endian" : "little-endian",
                      NATIVE_DATA == ELFDATA2MSB ? "big-endian" : "little-endian");
    if (id[EI_VERSION] != EV_CURRENT)
        return refuse(f, "not a valid ELF file (version %u)", id[EI_VERSION]);
    return JA_OK;
}

static int check_header(elf_file *f, const ehdr_t *h)
{
#ifdef NATIVE_MACHINE
    if (h->e_machine != NATIVE_MACHINE) {
        char a[32], b[32];
        return refuse(f, "built for %s, this arena runs on %s",
                      machine_name(h->e_machine, a, sizeof a),
                      machine_name(NATIVE_MACHINE, b, sizeof b));
    }
#endif
    switch (h->e_type) {
    case ET_DYN: break;
    case ET_EXEC: return refuse(f, "an executable, not a shared library");
    case ET_REL: return refuse(f, "an object file, not a shared library (link it with -shared)");
    case ET_CORE: return refuse(f, "a core dump, not a shared library");
    default: return refuse(f, "not a shared library (ELF type %u)", (unsigned)h->e_type);
    }
    if (h->e_version != EV_CURRENT)
        return refuse(f, "not a valid ELF file (version %u)", (unsigned)h->e_version);
    return JA_OK;
}

/* Whether address a lies in the file-backed part of a PT_LOAD segment. */
static int in_segment(elf_file *f, const ehdr_t *h, uint64_t a, bool *in)
{
    *in = false;
    for (unsigned i = 0; i < h->e_phnum && !*in; i++) {
        phdr_t p;
        if (!read_at(f, h->e_phoff + (uint64_t)i * sizeof p, &p, sizeof p))
            return unreadable(f);
        *in = p.p_type == PT_LOAD && a >= p.p_vaddr && a - p.p_vaddr < p.p_filesz;
    }
    return JA_OK;
}

/* The dynamic section at [off, off + len): not a position-independent
 * executable (DT_FLAGS_1 with DF_1_PIE), and a symbol table and a string
 * table inside the segments (the dynamic loader reads both without
 * checking, and crashes on a table that is not there). */
static int check_dynamic(elf_file *f, const ehdr_t *h, uint64_t off, uint64_t len)
{
    if (end_of(off, len) > f->size)
        return truncated(f, "its dynamic section needs", end_of(off, len));
    uint64_t n = len / sizeof(dyn_t), strtab = 0, symtab = 0;
    bool have_str = false, have_sym = false;
    if (n > MAX_DYN)
        n = MAX_DYN;
    for (uint64_t i = 0; i < n; i++) {
        dyn_t d;
        if (!read_at(f, off + i * sizeof d, &d, sizeof d))
            return unreadable(f);
        if (d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE))
            return refuse(f, "an executable, not a shared library");
        if (d.d_tag == DT_STRTAB) {
            have_str = true;
            strtab = d.d_un.d_ptr;
        } else if (d.d_tag == DT_SYMTAB) {
            have_sym = true;
            symtab = d.d_un.d_ptr;
        }
    }
    if (!have_str || !have_sym)
        return refuse(f, "malformed: its dynamic section names no symbol or string table");
    bool in_str = false, in_sym = false;
    int rc = in_segment(f, h, strtab, &in_str);
    if (rc == JA_OK)
        rc = in_segment(f, h, symtab, &in_sym);
    if (rc == JA_OK && (!in_str || !in_sym))
        rc = refuse(f, "malformed: its %s table lies outside its segments",
                    in_sym ? "string" : "symbol");
    return rc;
}

static int check_segments(elf_file *f, const ehdr_t *h)
{
    if (h->e_phnum == 0)
        return refuse(f, "no program headers (not a loadable shared library)");
    if (h->e_phentsize != sizeof(phdr_t))
        return refuse(f, "malformed: program headers of %u bytes, not %zu",
                      (unsigned)h->e_phentsize, sizeof(phdr_t));
    if (h->e_phnum == PN_XNUM)
        return refuse(f, "malformed: too many program headers");
    uint64_t table = end_of(h->e_phoff, (uint64_t)h->e_phnum * sizeof(phdr_t));
    if (table > f->size)
        return truncated(f, "its program headers need", table);
    uint64_t need = 0, dyn_off = 0, dyn_len = 0;
    unsigned loads = 0;
    bool dyn = false;
    for (unsigned i = 0; i < h->e_phnum; i++) {
        phdr_t p;
        if (!read_at(f, h->e_phoff + (uint64_t)i * sizeof p, &p, sizeof p))
            return unreadable(f);
        if (p.p_type == PT_LOAD) {
            loads++;
            uint64_t end = end_of(p.p_offset, p.p_filesz);
            if (end > need)
                need = end;
        } else if (p.p_type == PT_DYNAMIC && !dyn) {
            dyn = true;
            dyn_off = p.p_offset;
            dyn_len = p.p_filesz;
        }
    }
    if (!loads)
        return refuse(f, "malformed: no loadable segment");
    if (need > f->size)
        return truncated(f, "its segments need", need);
    if (!dyn)
        return refuse(f, "malformed: no dynamic section (not a shared library)");
    return check_dynamic(f, h, dyn_off, dyn_len);
}

static int check_sections(elf_file *f, const ehdr_t *h)
{
    if (h->e_shoff == 0)
        return JA_OK; /* no section header table: allowed, dlopen needs none */
    if (h->e_shentsize != sizeof(shdr_t))
        return refuse(f, "malformed: section headers of %u bytes, not %zu",
                      (unsigned)h->e_shentsize, sizeof(shdr_t));
    uint64_t n = h->e_shnum;
    if (n == 0) {
        /* Extended numbering: the count is the first header's sh_size. */
        uint64_t first = end_of(h->e_shoff, sizeof(shdr_t));
        if (first > f->size)
            return truncated(f, "its section headers need", first);
        shdr_t s0;
        if (!read_at(f, h->e_shoff, &s0, sizeof s0))
            return unreadable(f);
        n = s0.sh_size;
        if (n > f->size / sizeof(shdr_t) + 1)
            n = f->size / sizeof(shdr_t) + 1; /* enough to be past the end */
    }
    uint64_t table = end_of(h->e_shoff, n * sizeof(shdr_t));
    if (table > f->size)
        return truncated(f, "its section headers need", table);
    return JA_OK;
}

int ref_elf_check_fd(int fd, const char *path, char *err, size_t cap)
{
    elf_file f = {fd, 0, path, err, cap};
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        snprintf(err, cap, "bot plugin '%s': %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, cap, "bot plugin '%s': not a regular file", path);
        return JA_ENOTFOUND;
    }
    f.size = (uint64_t)sb.st_size;
    ehdr_t h;
    memset(&h, 0, sizeof h);
    size_t got = f.size < sizeof h ? (size_t)f.size : sizeof h;
    errno = 0;
    if (got && !read_at(&f, 0, &h, got))
        return unreadable(&f);
    int rc = check_ident(&f, h.e_ident, got);
    if (rc != JA_OK)
        return rc;
    if (got < sizeof h)
        return truncated(&f, "its ELF header needs", sizeof h);
    if ((rc = check_header(&f, &h)) != JA_OK || (rc = check_segments(&f, &h)) != JA_OK ||
        (rc = check_sections(&f, &h)) != JA_OK)
        return rc;
    return JA_OK;
}

int ref_elf_check(const char *path, char *err, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, cap, "bot plugin '%s': %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    int rc = ref_elf_check_fd(fd, path, err, cap);
    close(fd);
    return rc;
}
