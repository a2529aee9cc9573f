#include <stddef.h>
#include <stdint.h>

#include "semihost.h"

extern uint32_t _estack[];
extern uint32_t _sdata[], _edata[], _sidata[];
extern uint32_t _sbss[], _ebss[];

int main(void);

_Noreturn void Reset_Handler(void);
void Default_Handler(void);

#define WEAK_HANDLER(name) void name(void) __attribute__((weak, alias("Default_Handler")))
WEAK_HANDLER(NMI_Handler);
WEAK_HANDLER(HardFault_Handler);
WEAK_HANDLER(MemManage_Handler);
WEAK_HANDLER(BusFault_Handler);
WEAK_HANDLER(UsageFault_Handler);
WEAK_HANDLER(SVC_Handler);
WEAK_HANDLER(DebugMon_Handler);
WEAK_HANDLER(PendSV_Handler);
WEAK_HANDLER(SysTick_Handler);
WEAK_HANDLER(IRQ0_Handler);
WEAK_HANDLER(IRQ1_Handler);
WEAK_HANDLER(IRQ2_Handler);
WEAK_HANDLER(IRQ3_Handler);
WEAK_HANDLER(IRQ4_Handler);
WEAK_HANDLER(IRQ5_Handler);
WEAK_HANDLER(IRQ6_Handler);
WEAK_HANDLER(IRQ7_Handler);
WEAK_HANDLER(IRQ8_Handler);
WEAK_HANDLER(IRQ9_Handler);
WEAK_HANDLER(IRQ10_Handler);
WEAK_HANDLER(IRQ11_Handler);
WEAK_HANDLER(IRQ12_Handler);
WEAK_HANDLER(IRQ13_Handler);
WEAK_HANDLER(IRQ14_Handler);
WEAK_HANDLER(IRQ15_Handler);

typedef void (*vector_t)(void);

/* "used": nothing references the table; only the hardware reads it. */
__attribute__((section(".vectors"), used))
const vector_t vector_table[32] = {
    (vector_t)_estack,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    0, 0, 0, 0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    IRQ0_Handler, IRQ1_Handler, IRQ2_Handler, IRQ3_Handler,
    IRQ4_Handler, IRQ5_Handler, IRQ6_Handler, IRQ7_Handler,
    IRQ8_Handler, IRQ9_Handler, IRQ10_Handler, IRQ11_Handler,
    IRQ12_Handler, IRQ13_Handler, IRQ14_Handler, IRQ15_Handler,
};

_Noreturn void Reset_Handler(void)
{
    for (uint32_t *src = _sidata, *dst = _sdata; dst < _edata;)
        *dst++ = *src++;
    for (uint32_t *dst = _sbss; dst < _ebss;)
        *dst++ = 0;
    sh_exit(main());
}

void Default_Handler(void)
{
    sh_write0("emutrace-fw: unexpected exception\n");
    sh_exit(99);
}

/* GCC may emit calls to these even with -ffreestanding. The attribute
 * stops it from recognising the loops and calling the function itself. */
#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

NO_LIBCALL int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++) {
        if (*x != *y)
            return *x - *y;
    }
    return 0;
}

NO_LIBCALL int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}
