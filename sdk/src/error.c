/* The project-wide error table (ja_error.h) and fault names (ja_bot.h). */
#include "jackarena/ja_error.h"
#include "jackarena/ja_bot.h"
#include "jackarena/ja_version.h"

#define STR2(x) #x
#define STR(x) STR2(x)

const char *ja_version(void)
{
    return STR(JA_VERSION_MAJOR) "." STR(JA_VERSION_MINOR) "." STR(JA_VERSION_PATCH);
}

const char *ja_strerror(int rc)
{
    switch (rc) {
#define X(name, value, msg) case value: return msg;
        JA_ERRNO_MAP(X)
#undef X
    }
    return "unknown error";
}

const char *ja_err_name(int rc)
{
    switch (rc) {
#define X(name, value, msg) case value: return #name;
        JA_ERRNO_MAP(X)
#undef X
    }
    return "UNKNOWN";
}

const char *ja_fault_name(int fault)
{
    static const char *const names[] = {
#define X(name, text) text,
        JA_FAULT_MAP(X)
#undef X
    };
    if (fault < 0 || fault >= JA_FAULT_COUNT)
        return "unknown";
    return names[fault];
}
