/* Unit tests of the plugin file check before dlopen (referee/elf_check.h),
 * on ELF images built here for this machine (its class, byte order and
 * e_machine read from this test's own executable) and written to a memory
 * file: a complete image passes; a truncated one, another machine, class or
 * byte order, an executable (ET_EXEC or a PIE), an object file, headers
 * pointing past the end (also by offsets that overflow), no loadable
 * segment, a wrong header size, no dynamic section or one without a symbol
 * or string table in the segments are each refused with their one line;
 * the real reference plugin passes, and the real file cut short is
 * refused with the sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf_check.h"
#include "jackarena/ja_error.h"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
typedef Elf64_Shdr shdr_t;
typedef Elf64_Dyn dyn_t;
#else
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
typedef Elf32_Shdr shdr_t;
typedef Elf32_Dyn dyn_t;
#endif

/* The image: header, two program headers (PT_LOAD of the whole file at
 * address 0, PT_DYNAMIC), a dynamic section (DT_FLAGS_1, DT_STRTAB and
 * DT_SYMTAB pointing at itself, DT_NULL), two section headers. */
typedef struct image {
    ehdr_t eh;
    phdr_t ph[2];
    dyn_t dyn[4];
    shdr_t sh[2];
} image;

static ehdr_t self; /* this test's own header: the machine to build for */

static void make(image *im)
{
    memset(im, 0, sizeof *im);
    memcpy(im->eh.e_ident, self.e_ident, EI_NIDENT);
    im->eh.e_type = ET_DYN;
    im->eh.e_machine = self.e_machine;
    im->eh.e_version = EV_CURRENT;
    im->eh.e_phoff = offsetof(image, ph);
    im->eh.e_shoff = offsetof(image, sh);
    im->eh.e_ehsize = sizeof(ehdr_t);
    im->eh.e_phentsize = sizeof(phdr_t);
    im->eh.e_phnum = 2;
    im->eh.e_shentsize = sizeof(shdr_t);
    im->eh.e_shnum = 2;
    im->ph[0].p_type = PT_LOAD;
    im->ph[0].p_filesz = im->ph[0].p_memsz = sizeof *im;
    im->ph[0].p_flags = PF_R;
    im->ph[1].p_type = PT_DYNAMIC;
    im->ph[1].p_offset = offsetof(image, dyn);
    im->ph[1].p_filesz = sizeof im->dyn;
    im->dyn[0].d_tag = DT_FLAGS_1;
    im->dyn[1].d_tag = DT_STRTAB;
    im->dyn[1].d_un.d_ptr = offsetof(image, dyn);
    im->dyn[2].d_tag = DT_SYMTAB;
    im->dyn[2].d_un.d_ptr = offsetof(image, dyn);
    im->dyn[3].d_tag = DT_NULL;
}

/* Checks len bytes of buf as a file; the verdict, the message in err. */
static int check(const void *buf, size_t len, char *err, size_t cap)
{
    int fd = memfd_create("elf", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    err[0] = '\0';
    int rc = ref_elf_check_fd(fd, "t.so", err, cap);
    close(fd);
    return rc;
}

static void refused(const image *im, size_t len, const char *want)
{
    char err[512];
    assert_int_equal(check(im, len, err, sizeof err), JA_EFORMAT);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
    assert_true(strncmp(err, "bot plugin 't.so': ", 19) == 0);
    assert_null(strchr(err, '\n'));
}

static int setup(void **state)
{
    (void)state;
    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    assert_int_equal(fread(&self, sizeof self, 1, f), 1);
    fclose(f);
    return 0;
}

static void test_complete_image_passes(void **state)
{
    (void)state;
    image im;
    make(&im);
    char err[512];
    assert_int_equal(check(&im, sizeof im, err, sizeof err), JA_OK);
    im.eh.e_shoff = 0; /* no section headers at all: allowed */
    im.eh.e_shnum = 0;
    assert_int_equal(check(&im, sizeof im, err, sizeof err), JA_OK);
}

static void test_not_elf(void **state)
{
    (void)state;
    image im;
    make(&im);
    refused(&im, 0, "not an ELF file (it is empty)");
    refused(&im, 3, "not an ELF file");
    char text[] = "#!/bin/sh\necho not a library\n";
    char err[512];
    assert_int_equal(check(text, sizeof text - 1, err, sizeof err), JA_EFORMAT);
    assert_string_equal(err, "bot plugin 't.so': not an ELF file");
    refused(&im, 10, "truncated: its ELF header needs");
    refused(&im, sizeof im.eh - 1, "truncated: its ELF header needs");
}

static void test_foreign(void **state)
{
    (void)state;
    image im;
    make(&im);
    im.eh.e_machine = self.e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
    refused(&im, sizeof im, self.e_machine == EM_AARCH64 ? "built for x86_64, this arena runs on"
                                                         : "built for aarch64, this arena runs on");
    make(&im);
    im.eh.e_machine = 9999;
    refused(&im, sizeof im, "built for machine 9999");
    make(&im);
    im.eh.e_ident[EI_CLASS] = self.e_ident[EI_CLASS] == ELFCLASS64 ? ELFCLASS32 : ELFCLASS64;
    refused(&im, sizeof im, "ELF file, this arena runs");
    make(&im);
    im.eh.e_ident[EI_DATA] = self.e_ident[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
    refused(&im, sizeof im, "-endian ELF file, this arena runs");
    make(&im);
    im.eh.e_ident[EI_CLASS] = 7;
    refused(&im, sizeof im, "not a valid ELF file (class 7)");
}

static void test_not_a_library(void **state)
{
    (void)state;
    image im;
    make(&im);
    im.eh.e_type = ET_EXEC;
    refused(&im, sizeof im, "an executable, not a shared library");
    make(&im);
    im.dyn[0].d_un.d_val = 0x08000000; /* DF_1_PIE */
    refused(&im, sizeof im, "an executable, not a shared library");
    make(&im);
    im.eh.e_type = ET_REL;
    refused(&im, sizeof im, "an object file, not a shared library");
    make(&im);
    im.eh.e_type = ET_CORE;
    refused(&im, sizeof im, "a core dump");
}

static void test_truncated(void **state)
{
    (void)state;
    image im;
    make(&im);
    char want[128];
    snprintf(want, sizeof want, "truncated: its segments need %zu bytes, the file has %zu",
             sizeof im, sizeof im - 1);
    refused(&im, sizeof im - 1, want);
    refused(&im, offsetof(image, ph) + 10, "truncated: its program headers need");
    make(&im);
    im.ph[0].p_filesz = offsetof(image, sh); /* the segment ends before the sections */
    snprintf(want, sizeof want, "truncated: its section headers need %zu bytes",
             sizeof im + sizeof(shdr_t));
    im.eh.e_shnum = 3;
    refused(&im, sizeof im, want);
    make(&im);
    im.ph[1].p_filesz = 1u << 20;
    refused(&im, sizeof im, "truncated: its dynamic section needs");
}

static void test_hostile_offsets(void **state)
{
    (void)state;
    image im;
    make(&im);
    im.eh.e_phoff = 0;
    im.eh.e_phoff -= 8; /* wraps when added to */
    refused(&im, sizeof im, "malformed: its program headers need more bytes than a file can hold");
    make(&im);
    im.ph[0].p_offset = 16;
    im.ph[0].p_filesz = 0;
    im.ph[0].p_filesz -= 8;
    refused(&im, sizeof im, "malformed: its segments need more bytes than a file can hold");
    make(&im);
    im.eh.e_shoff = 0;
    im.eh.e_shoff -= 1;
    refused(&im, sizeof im, "malformed: its section headers need more bytes than a file");
    make(&im);
    im.eh.e_shnum = 0; /* extended numbering: the count is sh[0].sh_size */
    im.sh[0].sh_size = 0;
    im.sh[0].sh_size -= 1;
    refused(&im, sizeof im, "truncated: its section headers need");
    make(&im);
    im.eh.e_phentsize = 8;
    refused(&im, sizeof im, "malformed: program headers of 8 bytes");
    make(&im);
    im.eh.e_phnum = 0;
    refused(&im, sizeof im, "no program headers");
    make(&im);
    im.ph[0].p_type = PT_NOTE;
    refused(&im, sizeof im, "malformed: no loadable segment");
    make(&im);
    im.eh.e_shentsize = 3;
    refused(&im, sizeof im, "malformed: section headers of 3 bytes");
}

static void test_dynamic_section(void **state)
{
    (void)state;
    image im;
    make(&im);
    im.ph[1].p_type = PT_NOTE;
    refused(&im, sizeof im, "malformed: no dynamic section (not a shared library)");
    make(&im);
    im.dyn[2].d_tag = DT_NULL; /* no DT_SYMTAB */
    refused(&im, sizeof im, "malformed: its dynamic section names no symbol or string table");
    make(&im);
    im.dyn[1].d_tag = DT_DEBUG; /* no DT_STRTAB */
    refused(&im, sizeof im, "names no symbol or string table");
    make(&im);
    im.dyn[2].d_un.d_ptr = sizeof im; /* one past the segment */
    refused(&im, sizeof im, "malformed: its symbol table lies outside its segments");
    make(&im);
    im.dyn[1].d_un.d_ptr = 0;
    im.dyn[1].d_un.d_ptr -= 1;
    refused(&im, sizeof im, "malformed: its string table lies outside its segments");
    make(&im);
    im.ph[0].p_vaddr = 0x10000; /* the tables' addresses are below the segment */
    refused(&im, sizeof im, "lies outside its segments");
}

static void test_real_plugin(void **state)
{
    (void)state;
    const char *dir = getenv("JA_BUILD_DIR");
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/bots/ja_random.so", dir ? dir : ".");
    assert_int_equal(ref_elf_check(path, err, sizeof err), JA_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[3000];
    assert_int_equal(fread(buf, 1, sizeof buf, f), sizeof buf);
    fclose(f);
    assert_int_equal(check(buf, sizeof buf, err, sizeof err), JA_EFORMAT);
    assert_non_null(strstr(err, "truncated: its segments need "));
    assert_non_null(strstr(err, " bytes, the file has 3000"));
    assert_int_equal(ref_elf_check("/nonexistent/x.so", err, sizeof err), JA_ENOTFOUND);
    assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_image_passes), cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_foreign),               cmocka_unit_test(test_not_a_library),
        cmocka_unit_test(test_truncated),             cmocka_unit_test(test_hostile_offsets),
        cmocka_unit_test(test_dynamic_section),       cmocka_unit_test(test_real_plugin),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
