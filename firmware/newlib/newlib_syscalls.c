/* The system calls newlib-nano needs, over semihosting: stdout and
 * stderr go to the host console, the heap grows from the end of .bss
 * towards the stack, and everything else fails as on a board without
 * files. Linked into firmware built with emutrace_add_firmware(NEWLIB). */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "semihost.h"

extern uint32_t _ebss[];

int _write(int fd, const char *buf, int len)
{
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    return len - sh_write(fd, buf, (unsigned)len);
}

int _read(int fd, char *buf, int len)
{
    (void)fd;
    (void)buf;
    (void)len;
    return 0;
}

void *_sbrk(int increment)
{
    static uintptr_t brk;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (!brk)
        brk = (uintptr_t)_ebss;
    /* Keep 4 KiB between the heap and the stack. */
    if (brk + (uintptr_t)increment > sp - 4096) {
        errno = ENOMEM;
        return (void *)-1;
    }
    uintptr_t old = brk;
    brk += (uintptr_t)increment;
    return (void *)old;
}

int _close(int fd)
{
    (void)fd;
    return -1;
}

int _fstat(int fd, struct stat *st)
{
    (void)fd;
    st->st_mode = S_IFCHR;
    return 0;
}

int _isatty(int fd)
{
    return fd <= 2;
}

int _lseek(int fd, int offset, int whence)
{
    (void)fd;
    (void)offset;
    (void)whence;
    return -1;
}

void _exit(int code)
{
    sh_exit(code);
}

int _kill(int pid, int sig)
{
    (void)pid;
    (void)sig;
    errno = EINVAL;
    return -1;
}

int _getpid(void)
{
    return 1;
}
