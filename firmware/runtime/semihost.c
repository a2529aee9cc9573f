#include "semihost.h"

#include <stdint.h>

int sh_call(int op, void *param)
{
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = param;
    /* "memory": the host reads and writes through r1. */
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static unsigned sh_strlen(const char *s)
{
    unsigned n = 0;
    while (s[n])
        n++;
    return n;
}

void sh_writec(char c)
{
    sh_call(SH_SYS_WRITEC, &c);
}

void sh_write0(const char *s)
{
    sh_call(SH_SYS_WRITE0, (void *)s);
}

int sh_write(int fd, const void *buf, unsigned len)
{
    uint32_t block[3] = {(uint32_t)fd, (uint32_t)(uintptr_t)buf, len};
    return sh_call(SH_SYS_WRITE, block);
}

int sh_open(const char *path, int mode)
{
    uint32_t block[3] = {(uint32_t)(uintptr_t)path, (uint32_t)mode,
                         sh_strlen(path)};
    return sh_call(SH_SYS_OPEN, block);
}

int sh_close(int fd)
{
    uint32_t block[1] = {(uint32_t)fd};
    return sh_call(SH_SYS_CLOSE, block);
}

unsigned sh_clock(void)
{
    return (unsigned)sh_call(SH_SYS_CLOCK, 0);
}

int sh_errno(void)
{
    return sh_call(SH_SYS_ERRNO, 0);
}

int sh_get_cmdline(char *buf, unsigned size)
{
    if (size == 0)
        return -1;
    /* The host overwrites the length with the number of bytes stored. */
    uint32_t block[2] = {(uint32_t)(uintptr_t)buf, size};
    buf[0] = '\0';
    int r = sh_call(SH_SYS_GET_CMDLINE, block);
    if (r != 0) {
        buf[0] = '\0';
        return r;
    }
    unsigned n = block[1] < size ? block[1] : size - 1;
    buf[n] = '\0';
    return 0;
}

uint64_t sh_elapsed(void)
{
    /* The host stores a 64-bit count in target byte order: low word first. */
    uint32_t block[2] = {0, 0};
    if (sh_call(SH_SYS_ELAPSED, block) != 0)
        return 0;
    return (uint64_t)block[1] << 32 | block[0];
}

_Noreturn void sh_exit(int code)
{
    uint32_t block[2] = {SH_ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
    sh_call(SH_SYS_EXIT_EXTENDED, block);
    /* A host that ignores the exit request must not let us run off. */
    for (;;) {
    }
}
