// ST's STM32F1 I2C as a bus master (RM0008 §26) with the bus's targets in the scenario. START
// gives SB with MSL and BUSY; the address byte written to DR is acknowledged (ADDR, TRA for a
// write) by a target at that address, else AF; ADDR clears as SR1 then SR2 are read. Each byte takes
// nine SCL periods (CCR and F/S, DUTY on PCLK1): written ones move from DR to the shift register
// (TxE) and BTF sets when the last has gone with DR empty; read ones arrive in DR (RxNE), a second
// one waits in the shift register (BTF) until DR is read, and STOP ends the transfer after the
// byte under way. SB, ADDR, BTF (and TxE, RxNE under ITBUFEN) raise the event interrupt under
// ITEVTEN, AF the error interrupt under ITERREN. A target is a register-pointer device, as most
// sensors and EEPROMs are: the first byte written after its address sets the pointer, later ones
// are stored there, reads return the bytes from there on; the pointer advances. No multi-master
// arbitration, slave mode, SMBus or PEC (a warning says so when firmware asks for them).

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>

#include "config/units.h"
#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr std::uint64_t kNever = ~std::uint64_t{0};

/// A target on the bus: 256 bytes behind a register pointer.
struct Target {
    std::array<std::uint8_t, 256> memory{};
    std::uint8_t pointer = 0;
    bool pointer_set = false;  ///< in the current write transfer
};

class Stm32I2c final : public RegisterPeripheral {
public:
    Stm32I2c(decode::svd::Peripheral d, std::map<std::uint8_t, Target> targets)
        : RegisterPeripheral(std::move(d)), targets_(std::move(targets)), cr1_(need("CR1")), pe_(need("CR1.PE")), start_(need("CR1.START")),
          stop_(need("CR1.STOP")), ack_(need("CR1.ACK")), swrst_(need("CR1.SWRST")), itevten_(need("CR2.ITEVTEN")), itbufen_(need("CR2.ITBUFEN")),
          iterren_(need("CR2.ITERREN")), dr_(need("DR")), sr1_(need("SR1")), sb_(need("SR1.SB")), addr_(need("SR1.ADDR")), btf_(need("SR1.BTF")),
          rxne_(need("SR1.RxNE")), txe_(need("SR1.TxE")), af_(need("SR1.AF")), sr2_(need("SR2")), msl_(need("SR2.MSL")), busy_(need("SR2.BUSY")),
          tra_(need("SR2.TRA")), ccr_(need("CCR.CCR")), fs_(need("CCR.F_S")), duty_(need("CCR.DUTY")), pos_(regs().field("CR1.POS")) {
        // RM0008: the error flags are rc_w0, which ST's SVD calls read-write.
        for (const char* f : {"SR1.AF", "SR1.ARLO", "SR1.BERR", "SR1.OVR", "SR1.PECERR", "SR1.TIMEOUT", "SR1.SMBALERT"})
            if (FieldRef r = regs().field(f)) regs().set_write_action(r, decode::svd::WriteAction::ZeroToClear);
    }

private:
    enum class Phase : std::uint8_t { Idle, Started, Address, Addressed, Writing, Reading };

    void reset_model() override {
        phase_ = Phase::Idle;
        due_ = kNever;
        shifting_ = false;
        sr1_read_with_addr_ = false;
        target_ = nullptr;
    }

    void stored(int reg, std::uint32_t before) override {
        auto& r = regs();
        const std::uint64_t now = host().now();
        if (reg == cr1_.reg) {
            if (r.get(swrst_)) {
                for (int i : {sr1_.reg, sr2_.reg}) r.set(i, 0);
                reset_model();
            } else if (r.get(start_) && !(before & start_.mask) && r.get(pe_)) {
                // A START (or a repeated START after a byte): SB after the bus's setup time; a
                // start condition clears BTF and TxE (RM0008 §26.6.6).
                phase_ = Phase::Started;
                shifting_ = false;
                r.put(btf_, 0), r.put(txe_, 0);
                schedule(now + bit_cycles());
            } else if (r.get(stop_) && !(before & stop_.mask) && !shifting_ && (phase_ != Phase::Reading || (due_ == kNever && !r.get(btf_)))) {
                release();  // with a byte under way, or one waiting in the shift register, after it
            }
        } else if (reg == dr_.reg) {
            write_data(static_cast<std::uint8_t>(r.get(dr_)), now);
        }
        update_irqs();
    }

    void loaded(int reg) override {
        auto& r = regs();
        if (reg == sr1_.reg) {
            sr1_read_with_addr_ = r.get(addr_);
        } else if (reg == sr2_.reg && sr1_read_with_addr_) {
            // SR1 then SR2 read: ADDR clears and the transfer's data phase starts.
            sr1_read_with_addr_ = false;
            r.put(addr_, 0);
            if (r.get(tra_)) {
                phase_ = Phase::Writing;
                r.put(txe_, 1);
            } else {
                phase_ = Phase::Reading;
                nacked_ = false;
                schedule(host().now() + byte_cycles());
            }
        } else if (reg == dr_.reg && r.get(rxne_)) {
            r.put(rxne_, 0);
            if (r.get(btf_)) {  // the byte the shift register held moves to DR
                r.put(btf_, 0);
                r.put(dr_, held_);
                r.put(rxne_, 1);
                next_byte(host().now());
            }
        }
        update_irqs();
    }

    void tick(std::uint64_t now) override {
        if (due_ > now) return;
        due_ = kNever;
        auto& r = regs();
        switch (phase_) {
            case Phase::Started:
                r.put(start_, 0);
                r.put(sb_, 1), r.put(msl_, 1), r.put(busy_, 1);
                break;
            case Phase::Address: {
                auto it = targets_.find(static_cast<std::uint8_t>(address_ >> 1));
                if (it == targets_.end()) {
                    r.put(af_, 1);  // nobody acknowledged the address
                    phase_ = Phase::Idle;
                    target_ = nullptr;
                    if (r.get(stop_)) release();
                    break;
                }
                target_ = &it->second;
                target_->pointer_set = false;
                r.put(addr_, 1);
                r.put(tra_, !(address_ & 1));
                phase_ = Phase::Addressed;
                break;
            }
            case Phase::Writing:
                deliver(shift_);
                if (!r.get(txe_)) {  // DR holds the next byte: it moves to the shift register
                    shift_ = pending_;
                    r.put(txe_, 1);
                    schedule(now + byte_cycles());
                } else {
                    shifting_ = false;
                    r.put(btf_, 1);
                    if (r.get(stop_)) release();
                }
                break;
            case Phase::Reading: {
                const std::uint8_t byte = target_ ? target_->memory[target_->pointer++] : 0xff;
                more_ = acknowledged();
                if (!r.get(rxne_)) {
                    r.put(dr_, byte);
                    r.put(rxne_, 1);
                    next_byte(now);
                } else {
                    held_ = byte;  // DR is full: the byte waits in the shift register, the clock stretched
                    r.put(btf_, 1);
                }
                break;
            }
            default: break;
        }
        update_irqs();
    }

    // Whether the master acknowledges the byte just received, so that the target sends another: as
    // CR1.ACK says, except that under POS a cleared ACK NACKs the byte after (RM0008 §26.3.3, the
    // two-byte reception).
    bool acknowledged() {
        const auto& r = regs();
        if (r.get(ack_)) return true;
        if (pos_ && r.get(pos_) && !nacked_) return nacked_ = true;
        return false;
    }
    // After a byte reached DR: the next one, or the end of the reception (and STOP if asked for).
    void next_byte(std::uint64_t now) {
        if (more_ && !regs().get(stop_)) return schedule(now + byte_cycles());
        if (regs().get(stop_)) release();
    }

    void write_data(std::uint8_t byte, std::uint64_t now) {
        auto& r = regs();
        if (r.get(sb_)) {  // the address byte, after SR1 was read with SB set
            r.put(sb_, 0);
            address_ = byte;
            phase_ = Phase::Address;
            schedule(now + byte_cycles());
            return;
        }
        if (phase_ != Phase::Writing) {
            host().warn_once(r.offset(dr_.reg), "a byte written to DR with no write transfer addressed (START, the address, ADDR cleared): dropped");
            return;
        }
        r.put(btf_, 0);
        if (!shifting_) {
            shift_ = byte;
            shifting_ = true;
            r.put(txe_, 1);
            schedule(now + byte_cycles());
        } else {
            pending_ = byte;
            r.put(txe_, 0);
        }
    }

    // A byte the target receives: its register pointer first, then data there.
    void deliver(std::uint8_t byte) {
        if (!target_) return;
        if (!target_->pointer_set) {
            target_->pointer = byte;
            target_->pointer_set = true;
        } else {
            target_->memory[target_->pointer++] = byte;
        }
    }

    // STOP on the bus: the master lets it go.
    void release() {
        auto& r = regs();
        r.put(stop_, 0);
        r.put(msl_, 0), r.put(busy_, 0), r.put(tra_, 0);
        r.put(btf_, 0), r.put(txe_, 0);  // as a stop condition clears them
        phase_ = Phase::Idle;
        shifting_ = false;
        target_ = nullptr;
        due_ = kNever;
    }

    void schedule(std::uint64_t at) {
        due_ = at;
        host().wake_at(at);
    }

    // Core cycles per SCL period: standard mode 2 x CCR PCLK1 cycles, fast mode 3 x CCR (DUTY 0)
    // or 25 x CCR (DUTY 1) (RM0008 §26.6.8).
    std::uint64_t bit_cycles() const {
        const auto& r = regs();
        const std::uint64_t ccr = std::max<std::uint32_t>(1, r.get(ccr_));
        const std::uint64_t pclk_cycles = r.get(fs_) ? (r.get(duty_) ? 25 : 3) * ccr : 2 * ccr;
        const std::uint64_t pclk = host().clock("pclk1"), core = host().clock("core");
        if (!pclk || !core) return pclk_cycles;
        return std::max<std::uint64_t>(1, pclk_cycles * core / pclk);
    }
    std::uint64_t byte_cycles() const { return 9 * bit_cycles(); }  // eight bits and the acknowledge

    void update_irqs() {
        const auto& r = regs();
        const bool buffer = r.get(itbufen_) && ((r.get(txe_) && phase_ == Phase::Writing) || r.get(rxne_));
        const bool event = r.get(sb_) || r.get(addr_) || r.get(btf_) || buffer;
        host().set_irq_line(0, r.get(itevten_) && event);
        host().set_irq_line(1, r.get(iterren_) && r.get(af_));
    }

    std::map<std::uint8_t, Target> targets_;
    FieldRef cr1_, pe_, start_, stop_, ack_, swrst_, itevten_, itbufen_, iterren_, dr_, sr1_, sb_, addr_, btf_, rxne_, txe_, af_, sr2_, msl_, busy_,
        tra_, ccr_, fs_, duty_, pos_;
    Phase phase_ = Phase::Idle;
    std::uint64_t due_ = kNever;  ///< when the bus's current step (START, a byte) completes
    std::uint8_t address_ = 0;    ///< the address byte: 7-bit address and the read bit
    std::uint8_t shift_ = 0, pending_ = 0, held_ = 0;
    bool shifting_ = false;  ///< a written byte is on the bus
    bool more_ = false;      ///< the byte received last was acknowledged: another follows
    bool nacked_ = false;    ///< under POS, the NACK ACK's clearing asked for is given to the next byte
    bool sr1_read_with_addr_ = false;
    Target* target_ = nullptr;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_i2c(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"targets"});
    std::map<std::uint8_t, Target> targets;
    if (params.has("targets")) {
        for (const config::Node& t : params["targets"].items()) {
            t.allow_only({"address", "memory"});
            t.require({"address"});
            const std::uint64_t address = t["address"].integer();
            if (address > 0x7f) t["address"].fail("an I2C target's 7-bit address is at most 0x7f");
            Target target;
            if (t.has("memory")) {
                for (const auto& [offset, bytes] : t["memory"].entries()) {
                    const std::optional<std::uint64_t> parsed = config::parse_integer(offset);
                    if (!parsed) bytes.fail("a register offset (0-255) expected, not '" + offset + "'");
                    std::uint64_t at = *parsed;
                    for (const config::Node& b : bytes.items()) {
                        if (at > 0xff || b.integer() > 0xff) b.fail("a target's memory is 256 bytes of 0-255");
                        target.memory[at++] = static_cast<std::uint8_t>(b.integer());
                    }
                }
            }
            if (!targets.emplace(static_cast<std::uint8_t>(address), target).second) t["address"].fail("two targets at one address");
        }
    }
    return std::make_unique<Stm32I2c>(svd, std::move(targets));
}

}  // namespace emutrace::emu
