#ifndef EMUTRACE_SEMIHOST_H
#define EMUTRACE_SEMIHOST_H

#include <stdint.h>

/* ARM semihosting (bkpt 0xab). Only the calls the test firmware needs. */

enum {
    SH_SYS_OPEN = 0x01,
    SH_SYS_CLOSE = 0x02,
    SH_SYS_WRITEC = 0x03,
    SH_SYS_WRITE0 = 0x04,
    SH_SYS_WRITE = 0x05,
    SH_SYS_CLOCK = 0x10,
    SH_SYS_ERRNO = 0x13,
    SH_SYS_GET_CMDLINE = 0x15,
    SH_SYS_EXIT_EXTENDED = 0x20,
    SH_SYS_ELAPSED = 0x30,
};

#define SH_ADP_STOPPED_APPLICATION_EXIT 0x20026u

int sh_call(int op, void *param);
void sh_writec(char c);
void sh_write0(const char *s);
/* Returns the number of bytes NOT written (0 on success). */
int sh_write(int fd, const void *buf, unsigned len);
/* mode is the fopen-style index (0="r", 4="w", 8="a", ...). */
int sh_open(const char *path, int mode);
int sh_close(int fd);
/* Centiseconds since execution started. */
unsigned sh_clock(void);
int sh_errno(void);
/* Returns 0 on success; buf is always NUL-terminated when size > 0. */
int sh_get_cmdline(char *buf, unsigned size);
/* Target ticks since execution started (emutrace: emulated core cycles
 * since reset); 0 if the host does not support SYS_ELAPSED. */
uint64_t sh_elapsed(void);
_Noreturn void sh_exit(int code);

#endif
