#ifndef EMUTRACE_CORTEX_M_H
#define EMUTRACE_CORTEX_M_H

/* System Control Space registers and special-register helpers for the
 * M-profile cores, written from the ARMv7-M Architecture Reference Manual
 * (B3.2 SCB, B3.3 SysTick, B3.4 NVIC; B5 system instructions). Only what
 * the test firmware uses. The helper names follow the CMSIS spelling so
 * code reads like ordinary Cortex-M firmware. */

#include <stdint.h>

#define REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* Exception numbers (the IPSR value while the handler runs). */
enum {
    EXC_NMI = 2,
    EXC_HARDFAULT = 3,
    EXC_MEMMANAGE = 4,
    EXC_BUSFAULT = 5,
    EXC_USAGEFAULT = 6,
    EXC_SVCALL = 11,
    EXC_DEBUGMON = 12,
    EXC_PENDSV = 14,
    EXC_SYSTICK = 15,
    EXC_IRQ0 = 16,
};

/* ---- SysTick (B3.3) ---- */
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u) /* any write clears it and COUNTFLAG */
#define SYST_CALIB REG32(0xE000E01Cu)

#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE (1u << 2) /* 1 = processor clock */
#define SYST_CSR_COUNTFLAG (1u << 16)

/* ---- NVIC (B3.4): arrays of 32-bit registers, one bit per IRQ ---- */
#define NVIC_ISER ((volatile uint32_t *)0xE000E100u) /* set-enable */
#define NVIC_ICER ((volatile uint32_t *)0xE000E180u) /* clear-enable */
#define NVIC_ISPR ((volatile uint32_t *)0xE000E200u) /* set-pending */
#define NVIC_ICPR ((volatile uint32_t *)0xE000E280u) /* clear-pending */
#define NVIC_IABR ((volatile uint32_t *)0xE000E300u) /* active, read-only */
/* Priority registers are byte-accessible: one byte per IRQ. Only the top
 * implemented bits hold a value (4 on the emulated M3: 0x00, 0x10 .. 0xF0). */
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)
#define NVIC_STIR REG32(0xE000EF00u) /* write the IRQ number to pend it */

static inline void nvic_enable_irq(unsigned irq) { NVIC_ISER[irq >> 5] = 1u << (irq & 31u); }
static inline void nvic_disable_irq(unsigned irq) { NVIC_ICER[irq >> 5] = 1u << (irq & 31u); }
static inline void nvic_set_pending(unsigned irq) { NVIC_ISPR[irq >> 5] = 1u << (irq & 31u); }
static inline void nvic_clear_pending(unsigned irq) { NVIC_ICPR[irq >> 5] = 1u << (irq & 31u); }
static inline void nvic_set_priority(unsigned irq, uint8_t prio) { NVIC_IPR[irq] = prio; }

/* ---- System Control Block (B3.2) ---- */
#define SCB_ACTLR REG32(0xE000E008u)
#define SCB_ACTLR_DISDEFWBUF (1u << 1) /* stores wait for their data phase: no write buffer */
#define SCB_ACTLR_DISFOLD (1u << 2)    /* no IT folding */
#define SCB_CPUID REG32(0xE000ED00u)
#define SCB_ICSR REG32(0xE000ED04u)
#define SCB_VTOR REG32(0xE000ED08u)
#define SCB_AIRCR REG32(0xE000ED0Cu)
#define SCB_SCR REG32(0xE000ED10u)
#define SCB_CCR REG32(0xE000ED14u)
#define SCB_SHPR1 REG32(0xE000ED18u) /* MemManage, BusFault, UsageFault */
#define SCB_SHPR2 REG32(0xE000ED1Cu) /* SVCall in [31:24] */
#define SCB_SHPR3 REG32(0xE000ED20u) /* PendSV [23:16], SysTick [31:24] */
#define SCB_SHCSR REG32(0xE000ED24u)
#define SCB_CFSR REG32(0xE000ED28u) /* UFSR:BFSR:MMFSR */
#define SCB_HFSR REG32(0xE000ED2Cu)
#define SCB_DFSR REG32(0xE000ED30u)
#define SCB_MMFAR REG32(0xE000ED34u)
#define SCB_BFAR REG32(0xE000ED38u)
/* SHPR1-3 are byte-accessible too: the priority byte of system exception
 * 4..15 sits at 0xE000ED18 + (exception number - 4). */
#define SCB_SHPR_BYTE(exc) (((volatile uint8_t *)0xE000ED18u)[(exc) - 4])

#define SCB_ICSR_NMIPENDSET (1u << 31)
#define SCB_ICSR_PENDSVSET (1u << 28)
#define SCB_ICSR_PENDSVCLR (1u << 27)
#define SCB_ICSR_PENDSTSET (1u << 26)
#define SCB_ICSR_PENDSTCLR (1u << 25)
#define SCB_ICSR_ISRPENDING (1u << 22)
#define SCB_ICSR_VECTPENDING(icsr) (((icsr) >> 12) & 0x1FFu)
#define SCB_ICSR_RETTOBASE (1u << 11)
#define SCB_ICSR_VECTACTIVE(icsr) ((icsr) & 0x1FFu)

/* Writes without this key in [31:16] are ignored. */
#define SCB_AIRCR_VECTKEY (0x05FAu << 16)
#define SCB_AIRCR_PRIGROUP(n) (((n) & 7u) << 8)
#define SCB_AIRCR_SYSRESETREQ (1u << 2)
#define SCB_AIRCR_VECTCLRACTIVE (1u << 1)
#define SCB_AIRCR_VECTRESET (1u << 0)

#define SCB_SCR_SLEEPONEXIT (1u << 1)
#define SCB_SCR_SLEEPDEEP (1u << 2)
#define SCB_SCR_SEVONPEND (1u << 4)

#define SCB_CCR_NONBASETHRDENA (1u << 0)
#define SCB_CCR_USERSETMPEND (1u << 1)
#define SCB_CCR_UNALIGN_TRP (1u << 3)
#define SCB_CCR_DIV_0_TRP (1u << 4)
#define SCB_CCR_BFHFNMIGN (1u << 8)
#define SCB_CCR_STKALIGN (1u << 9)

#define SCB_SHCSR_MEMFAULTACT (1u << 0)
#define SCB_SHCSR_BUSFAULTACT (1u << 1)
#define SCB_SHCSR_USGFAULTACT (1u << 3)
#define SCB_SHCSR_SVCALLACT (1u << 7)
#define SCB_SHCSR_MONITORACT (1u << 8)
#define SCB_SHCSR_PENDSVACT (1u << 10)
#define SCB_SHCSR_SYSTICKACT (1u << 11)
#define SCB_SHCSR_USGFAULTPENDED (1u << 12)
#define SCB_SHCSR_MEMFAULTPENDED (1u << 13)
#define SCB_SHCSR_BUSFAULTPENDED (1u << 14)
#define SCB_SHCSR_SVCALLPENDED (1u << 15)
#define SCB_SHCSR_MEMFAULTENA (1u << 16)
#define SCB_SHCSR_BUSFAULTENA (1u << 17)
#define SCB_SHCSR_USGFAULTENA (1u << 18)

/* CFSR: MMFSR [7:0] */
#define SCB_CFSR_IACCVIOL (1u << 0)
#define SCB_CFSR_DACCVIOL (1u << 1)
#define SCB_CFSR_MUNSTKERR (1u << 3)
#define SCB_CFSR_MSTKERR (1u << 4)
#define SCB_CFSR_MMARVALID (1u << 7)
/* BFSR [15:8] */
#define SCB_CFSR_IBUSERR (1u << 8)
#define SCB_CFSR_PRECISERR (1u << 9)
#define SCB_CFSR_IMPRECISERR (1u << 10)
#define SCB_CFSR_UNSTKERR (1u << 11)
#define SCB_CFSR_STKERR (1u << 12)
#define SCB_CFSR_BFARVALID (1u << 15)
/* UFSR [31:16] */
#define SCB_CFSR_UNDEFINSTR (1u << 16)
#define SCB_CFSR_INVSTATE (1u << 17)
#define SCB_CFSR_INVPC (1u << 18)
#define SCB_CFSR_NOCP (1u << 19)
#define SCB_CFSR_UNALIGNED (1u << 24)
#define SCB_CFSR_DIVBYZERO (1u << 25)

#define SCB_HFSR_VECTTBL (1u << 1)
#define SCB_HFSR_FORCED (1u << 30)
#define SCB_HFSR_DEBUGEVT (1u << 31)

/* ---- Debug: DEMCR (C1.6.5) and the DWT cycle counter (C1.8) ---- */
#define COREDEBUG_DEMCR REG32(0xE000EDFCu)
#define COREDEBUG_DEMCR_TRCENA (1u << 24) /* enables DWT and ITM */

#define DWT_BASE 0xE0001000u
#define DWT_CTRL REG32(DWT_BASE + 0x000u)
#define DWT_CYCCNT REG32(DWT_BASE + 0x004u)
#define DWT_CYCCNT_OFFSET 4 /* for "ldr rX, [rDWT, #4]" in timing asm */

#define DWT_CTRL_CYCCNTENA (1u << 0)
#define DWT_CTRL_CPIEVTENA (1u << 17)
#define DWT_CTRL_LSUEVTENA (1u << 20)
#define DWT_CTRL_FOLDEVTENA (1u << 21)

/* TRCENA first: the DWT registers are inaccessible without it. */
static inline void dwt_cyccnt_start(void)
{
    COREDEBUG_DEMCR |= COREDEBUG_DEMCR_TRCENA;
    DWT_CYCCNT = 0;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
}

/* EXC_RETURN bit 2: the exception frame is on PSP (1) or MSP (0). */
#define EXC_RETURN_SPSEL (1u << 2)

/* CONTROL bits */
#define CONTROL_NPRIV (1u << 0) /* thread mode unprivileged */
#define CONTROL_SPSEL (1u << 1) /* thread mode uses PSP */

/* ---- Special registers and hint instructions (B5.2) ----
 * The "memory" clobbers stop the compiler from moving loads and stores
 * across a change of masking or stack, which the hardware cannot see. */
static inline void __disable_irq(void) { __asm__ volatile("cpsid i" ::: "memory"); }
static inline void __enable_irq(void) { __asm__ volatile("cpsie i" ::: "memory"); }

static inline uint32_t __get_PRIMASK(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, primask" : "=r"(v));
    return v;
}
static inline void __set_PRIMASK(uint32_t v) { __asm__ volatile("msr primask, %0" ::"r"(v) : "memory"); }

#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
/* BASEPRI and FAULTMASK exist only from ARMv7-M on. */
static inline void __disable_fault_irq(void) { __asm__ volatile("cpsid f" ::: "memory"); }
static inline void __enable_fault_irq(void) { __asm__ volatile("cpsie f" ::: "memory"); }

static inline uint32_t __get_BASEPRI(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, basepri" : "=r"(v));
    return v;
}
static inline void __set_BASEPRI(uint32_t v) { __asm__ volatile("msr basepri, %0" ::"r"(v) : "memory"); }

static inline uint32_t __get_FAULTMASK(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, faultmask" : "=r"(v));
    return v;
}
static inline void __set_FAULTMASK(uint32_t v) { __asm__ volatile("msr faultmask, %0" ::"r"(v) : "memory"); }
#endif

static inline uint32_t __get_CONTROL(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, control" : "=r"(v));
    return v;
}
/* Follow with __ISB() before relying on the new stack or privilege
 * (B5.2.3: MSR to CONTROL needs an ISB to affect later instructions). And
 * only from code that keeps nothing on the stack across the switch. */
static inline void __set_CONTROL(uint32_t v) { __asm__ volatile("msr control, %0" ::"r"(v) : "memory"); }

static inline uint32_t __get_PSP(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, psp" : "=r"(v));
    return v;
}
static inline void __set_PSP(uint32_t v) { __asm__ volatile("msr psp, %0" ::"r"(v) : "memory"); }

static inline uint32_t __get_MSP(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, msp" : "=r"(v));
    return v;
}

static inline uint32_t __get_IPSR(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, ipsr" : "=r"(v));
    return v;
}

static inline void __DSB(void) { __asm__ volatile("dsb 0xF" ::: "memory"); }
static inline void __ISB(void) { __asm__ volatile("isb 0xF" ::: "memory"); }
static inline void __DMB(void) { __asm__ volatile("dmb 0xF" ::: "memory"); }
static inline void __WFI(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void __WFE(void) { __asm__ volatile("wfe" ::: "memory"); }
static inline void __SEV(void) { __asm__ volatile("sev" ::: "memory"); }
static inline void __NOP(void) { __asm__ volatile("nop"); }

#endif
