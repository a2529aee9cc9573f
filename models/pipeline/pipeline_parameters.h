#pragma once
// What distinguishes one core's pipeline from another's: a row of the cores table (models/core.h).

#include <cstdint>

namespace emutrace::models {

/// How one core's components behave: a row of the cores table.
struct PipelineParameters {
    std::uint8_t multiply_accumulate_cycles = 2;   ///< MLA/MLS (M4: 1, single-cycle MAC)
    bool iterative_long_multiply = true;           ///< SMULL and kin take operand-dependent cycles (M3)
    std::uint8_t long_multiply_cycles = 1;         ///< when not iterative (M4)
    bool decode_time_branches = true;              ///< B, BL and BX LR fetch their target at decode
    bool speculative_conditional_branches = true;  ///< B<cc> fetches its target at decode
    bool fold_it = true;                           ///< an IT folds into a 16-bit instruction before it
    bool pipelined_loads = true;                   ///< a load's address phase may overlap the data phase before
    bool stores_hold_execute = false;              ///< a store stays in execute for its data phase (M0: STR 2)
    /// DWT LSUCNT counts every stall cycle after a load or store until the next instruction
    /// enters execute, the wait for the next fetch and an LDR pc's refill included (M4, measured
    /// on the CC2652: CPICNT 0 around literal loads from flash code without line buffers, and
    /// around LDR pc); the M3 counts a wait for the fetch or a refill as CPI.
    bool lsu_counts_fetch_waits = false;
    /// A fetch address presented while the bus's data phase is in wait states stays on the bus
    /// until taken (AHB), so a branch in execute fetches its target after it (M4, measured on the
    /// CC2652 without line buffers: BLX r8 3 cycles more than BLX LR, one flash access). The bus
    /// matrix serves the master that presented first when both wait (a fetch waiting for the flash
    /// port before a literal load asked goes first: the load a flash access later, as measured).
    /// A branch held at decode behind a multi-cycle instruction goes after it too (B.N behind
    /// UDIV in the upper halfword of its word, flash without line buffers: a flash access more, at
    /// every divide length); a free decode-time branch replaces it (BL, line buffers on: a cycle
    /// less). A held address that is the target's own word is the target's fetch. Stopping the
    /// fetch (TBB, LDR pc) does not withdraw it either (TBB from flash without line buffers, the
    /// table in flash: a flash access more each, as measured; in SRAM: a cycle).
    /// The M3's measured board has no wait states to show it either way.
    bool fetch_holds_presented_address = false;
    /// BX LR and MOV pc, lr that an IT block makes conditional take their target at decode when
    /// the condition passes (M3: the STM32F100's measurements need it). The M4 branches them in
    /// execute: their target fetch at decode is dropped and execute refetches. Measured on the
    /// CC2652: BLX LR, BX LR and MOV pc, lr taken in an IT block cost a fetch more each than at
    /// decode, 2 cycles from SRAM and 3 from flash without line buffers; unconditional, they
    /// match the decode-time fetch.
    bool conditional_register_branches_at_decode = true;
    /// Words the fetch unit takes from a decode-time branch's target while the branch waits for
    /// execute behind a multi-cycle instruction (CMEmu's HoldBranch): the M3 the target's word
    /// alone (the STM32F100's measurements); the M4 goes on to the next word too (measured on the
    /// CC2652: a narrow B to the last word of a flash line behind UMULL and UDIV, the line after
    /// it arriving while the UDIV still runs).
    std::uint8_t held_branch_fetch_words = 1;
    /// A branch in execute redirects the fetch after the address the fetch presents in that cycle:
    /// over the System bus the registration buffer has taken it, so that word is fetched (and
    /// dropped) before the target's, a word (2 cycles) later. Not where the target went out at
    /// decode already (a register branch the core takes in execute). The M4, measured on the
    /// CC2652 from SRAM: a taken CBZ right behind its own fetch word, BLX r8 and BX r8 cost a word
    /// more than a redirect in the same cycle gives (cbz, bl_blx_bx_mov_pc_lr); the M3 redirects
    /// in the same cycle (the STM32F100's SRAM measurements). A branch taken at decode (B, a BX LR
    /// whose target decode knows) follows that word too (bcond: MOVS; B from SRAM, 8 measured, 6
    /// modelled before); a B<cc>'s speculative target fetch does not (it_and_blx_bx_mov_pc_lr and
    /// it_fold_after_skipped_branch lose 4 configurations when it does).
    bool branch_follows_registered_fetch = false;
    /// A branch whose target comes from the adder a cycle late (ADD pc, Rm) stops the fetch when it
    /// enters execute, so nothing goes out before its target. The M3 (the STM32F100's add_pc
    /// measurements); the M4 fetches on until the target is known, and the word that goes out in
    /// that cycle is fetched before it (CC2652 add_pc: a cycle more from SRAM, a flash access more
    /// without line buffers, nothing with them).
    bool late_branch_stops_fetch = true;
    /// A load waits a cycle more behind a store's data phase while a fetch's data phase runs on
    /// the System bus (M4, measured on the CC2652 with code in SRAM: a DWT read behind STR, STRB,
    /// STRH or PUSH to SRAM a cycle later, counted as LSU, exactly where the next word's fetch was
    /// still on the bus; from flash code, or with the fetch done, the M3's timing). The M3's
    /// STM32F100 measurements of the same sequences need no such cycle.
    bool load_behind_store_waits_for_fetch = false;
    /// The fetch never counts on the slots the decoded instruction frees while execute holds an
    /// instruction that learns only late that a cycle is its last (ClassifiedInstruction::
    /// ends_late; CMEmu's postponed fetch head). On both cores: a multi-cycle computation (MLA and
    /// the long multiplies where they take more than a cycle, a divide, MRS/MSR; STM32F100's
    /// compiled set from flash: ud -O3 -1.69% -> -0.85%, aha-mont64 -O3 exact, edn closer), and a
    /// load on every bus (STM32F100's compiled set: embench nsichneu -Os and -O3, whose loads from
    /// SRAM are each followed by a B<cc> that takes the fetch's next slot, from -4.0% and -5.1% to
    /// exact; aha-mont64 and edn -Os exact on every counter). With this true (the M4) every load,
    /// store and CBZ holds it, on every bus and the PPB too (measured on the CC2652: from flash, a
    /// load behind a load reaches the port before the next word's fetch, add_ldr_deps, cbz,
    /// cbz_deps, ldr_pc, piq_narrow_b_to_unaligned; the validation half's bx_seq from flash; its
    /// DWT reads too: without them 769 of 832 and 195 of 212). False (the M3): a load on the PPB,
    /// inside the core, does not hold it (STM32F100 ldm_ldmdb and ldr_reg from flash: the fetch's
    /// word goes out in a DWT read's data phase, ahead of the flash loads behind it), and a store
    /// or CBZ holds it only for a fetch through the registration buffer, which takes the address a
    /// cycle before the bus sees it (on every bus, cbz and cbz_deps lose 2 configurations each),
    /// and a store on every bus when a data phase's end decides what follows it: it entered in
    /// the data phase of the load or store before it, or a load or store is decoded behind it,
    /// which may enter in its data phase (the compiled set: ud -O3 -0.42% -> -0.11%, nsichneu -O0
    /// -0.87% -> -0.18%; every store holding it sends st and ud -Os 0.2-0.6% long, one a PUSH).
    bool all_transfers_postpone_fetch = false;
    /// A single load or store that writes its base back may run in the data phase of the load or
    /// store before it, as one without writeback does (M4, measured on the CC2652: `ldr.n r5,
    /// [r6]; ldr.w r6, [r7, #4]!` and two writeback loads on independent bases pipeline,
    /// ldr_ldm_ldmdb_ldrd_same_args_and_rings; `ldr.w r7, [r6, #4]!; str.w r8, [r4, #4]!` costs
    /// what it does with `str.w r8, [r4]`, ldr_writeback_pipelining; CMEmu's PostWriteback says
    /// not). A load that waited in decode forwards its written-back base to the next load's
    /// address, which may then pipeline behind it, unless that base was itself forwarded from the
    /// instruction before: in a run of writeback loads on one base behind a load, from flash with
    /// line buffers to SRAM, the second costs a cycle and every later one two (ldm_ldmdb,
    /// push_pop_pipelining, ldr_imm_index); behind an ALU instruction the second costs two (the
    /// rings). The M3 never pipelines one (the STM32F100's measurements).
    bool writeback_transfers_pipeline = false;
    /// Only a single load or store, a NOP or an instruction its IT block skips enters execute in
    /// the data phase of the store before it; any other waits for that phase to end, a dual or
    /// multiple transfer too (M4: CMEmu's can_lsu_instr_be_pipelined admits no other; on the
    /// CC2652 `str.w r5, [r1]; cbz` from flash with line buffers costs a cycle more each than
    /// with the overlap, cbz_deps, and LSUCNT a cycle more without line buffers; `str.w; strd.w`
    /// a cycle more than the overlap gives, strd_str_pipelining). The M3 lets any instruction
    /// overlap a store's data phase (the STM32F100's cbz_deps: 4 configurations lost without it).
    bool store_data_phase_admits_transfers_only = false;
    /// A B<cc> right behind the last instruction of an IT block, not taken, with a 32-bit
    /// instruction behind it: the fetch asks for nothing in the cycle after the branch resolves,
    /// so where nothing is queued ahead the stream runs a word later. Measured on the STM32F100's
    /// compiled set, where libgcc's soft-float routines test their operands so (`ands.w; ittt ne;
    /// andsne.w; teqne; teqne; beq.n; sub.w`): floating_point_math 2 cycles short without it and
    /// exact with it, `__divsf3` a cycle a call on every build of minver, and st, not looked at
    /// while the rule was weighed, from -0.17%..-0.23% to within 0.06%. Without the 32-bit
    /// instruction behind, the gap sends minver 0.3% to 0.8% long. No instruction test of either
    /// board has the sequence, and CMEmu has no such rule. The M4 keeps it: the CC2652's tests
    /// neither ask for it nor rule it out.
    bool fetch_gap_after_it_branch = true;
};

}  // namespace emutrace::models
