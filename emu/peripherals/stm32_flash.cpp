// ST's STM32F1 flash program/erase controller (PM0075): the flash at `flash` is read-only to the
// core until KEYR takes KEY1 then KEY2 (CR.LOCK clears; a wrong key keeps it locked until reset);
// then with CR.PG a half-word store to the flash programs it (a location not erased, 0xFFFF, is
// not written: PGERR), CR.PER with AR and STRT erases AR's page to 0xFF, CR.MER with STRT the whole
// flash. Each operation holds SR.BSY for its time (programming tPROG, erasing tERASE, typical
// datasheet figures unless the scenario gives others) and ends with EOP and its interrupt under
// EOPIE; PGERR and WRPRTERR raise it under ERRIE. The stores go through
// Peripheral::store_to_rom, the writes through DeviceHost::program (the boot alias follows).
// Option bytes and write protection are not modelled (a warning says so).

#include <algorithm>
#include <memory>
#include <vector>

#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"

namespace emutrace::emu {
namespace {

constexpr std::uint64_t kNever = ~std::uint64_t{0};
constexpr std::uint32_t kKey1 = 0x45670123, kKey2 = 0xCDEF89AB;

struct FlashGeometry {
    std::uint32_t base = 0x08000000, size = 128 * 1024, page = 1024;
    double program_seconds = 52.5e-6, erase_seconds = 20e-3;
};

class Stm32Flash final : public RegisterPeripheral {
public:
    Stm32Flash(decode::svd::Peripheral d, FlashGeometry g)
        : RegisterPeripheral(std::move(d)), g_(g), keyr_(need("KEYR")), optkeyr_(need("OPTKEYR")), bsy_(need("SR.BSY")), eop_(need("SR.EOP")),
          pgerr_(need("SR.PGERR")), wrprterr_(need("SR.WRPRTERR")), cr_(need("CR")), pg_(need("CR.PG")), per_(need("CR.PER")), mer_(need("CR.MER")),
          optpg_(need("CR.OPTPG")), opter_(need("CR.OPTER")), strt_(need("CR.STRT")), lock_(need("CR.LOCK")), errie_(need("CR.ERRIE")),
          eopie_(need("CR.EOPIE")), ar_(need("AR")) {
        // PM0075: EOP, WRPRTERR and PGERR are cleared by writing 1.
        for (FieldRef f : {eop_, pgerr_, wrprterr_}) regs().set_write_action(f, decode::svd::WriteAction::OneToClear);
    }

    bool store_to_rom(std::uint32_t address, unsigned width, std::uint32_t value) override {
        if (address - g_.base >= g_.size) return false;
        auto& r = regs();
        if (r.get(lock_) || !r.get(pg_)) return false;  // a store to flash it is not programming: the core's fault
        if (width != 2) {
            host().warn_once(r.offset(cr_.reg), "flash programmed with a store of " + std::to_string(width) +
                                                    " bytes; the interface programs half-words (PM0075 §2.3.3): not written");
            r.put(pgerr_, 1);
        } else {
            std::uint32_t now_there = 0;
            host().bus_read(address, 2, now_there);
            const auto v = static_cast<std::uint16_t>(value);
            if ((now_there & 0xffff) != 0xffff && v != 0) {
                r.put(pgerr_, 1);  // only an erased half-word (or zeros) can be programmed
            } else {
                const std::uint8_t bytes[2] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8)};
                host().program(address, bytes);
                busy_for(g_.program_seconds);
            }
        }
        update_irq();
        return true;
    }

private:
    void reset_model() override {
        keys_ = 0;
        locked_for_good_ = false;
        done_at_ = kNever;
    }

    void stored(int reg, std::uint32_t before) override {
        auto& r = regs();
        if (reg == keyr_.reg) {
            const std::uint32_t key = r.value(reg);
            if (keys_ == 0 && key == kKey1) {
                keys_ = 1;
            } else if (keys_ == 1 && key == kKey2 && !locked_for_good_) {
                r.put(lock_, 0);
                keys_ = 0;
            } else {
                keys_ = 0;
                locked_for_good_ = true;  // a wrong key: locked until reset, as on the part (a bus error there)
                host().warn_once(r.offset(reg), "a wrong key sequence in FLASH_KEYR: the flash stays locked until reset");
            }
            r.set(reg, 0);
        } else if (reg == optkeyr_.reg) {
            r.set(reg, 0);
            host().warn_once(r.offset(reg), "option bytes are not modelled: FLASH_OPTKEYR ignored");
        } else if (reg == cr_.reg) {
            if (before & lock_.mask) {
                r.set(reg, before);  // locked: CR keeps its value
                return;
            }
            if ((r.get(optpg_) || r.get(opter_)) && !(before & (optpg_.mask | opter_.mask)))
                host().warn_once(r.offset(reg), "option byte programming is not modelled: ignored");
            if (r.get(strt_) && !(before & strt_.mask)) start_erase();
        }
        update_irq();
    }

    void refresh(int) override { finish_if_due(host().now()); }
    void tick(std::uint64_t now) override { finish_if_due(now); }

    void start_erase() {
        auto& r = regs();
        std::vector<std::uint8_t> erased;
        if (r.get(mer_)) {
            erased.assign(g_.page, 0xff);  // a page at a time: the flash may be large
            for (std::uint32_t at = 0; at < g_.size; at += g_.page) host().program(g_.base + at, erased);
        } else if (r.get(per_)) {
            const std::uint32_t at = r.get(ar_);
            if (at - g_.base >= g_.size) {
                host().warn_once(r.offset(ar_.reg), "FLASH_AR outside the flash: nothing erased");
            } else {
                const std::uint32_t page = g_.base + (at - g_.base) / g_.page * g_.page;
                erased.assign(g_.page, 0xff);
                host().program(page, erased);
            }
        }
        busy_for(g_.erase_seconds);
    }

    void busy_for(double seconds) {
        auto& r = regs();
        const std::uint64_t hz = std::max<std::uint64_t>(1, host().clock("core"));
        done_at_ = host().now() + std::max<std::uint64_t>(1, static_cast<std::uint64_t>(seconds * static_cast<double>(hz)));
        r.put(bsy_, 1);
        host().wake_at(done_at_);
    }

    void finish_if_due(std::uint64_t now) {
        if (done_at_ > now) return;
        done_at_ = kNever;
        auto& r = regs();
        r.put(bsy_, 0), r.put(strt_, 0), r.put(eop_, 1);
        update_irq();
    }

    void update_irq() {
        const auto& r = regs();
        host().set_irq((r.get(eopie_) && r.get(eop_)) || (r.get(errie_) && (r.get(pgerr_) || r.get(wrprterr_))));
    }

    FlashGeometry g_;
    FieldRef keyr_, optkeyr_, bsy_, eop_, pgerr_, wrprterr_, cr_, pg_, per_, mer_, optpg_, opter_, strt_, lock_, errie_, eopie_, ar_;
    unsigned keys_ = 0;             ///< KEY1 seen: the next must be KEY2
    bool locked_for_good_ = false;  ///< a wrong key was written
    std::uint64_t done_at_ = kNever;
};

}  // namespace

std::unique_ptr<Peripheral> make_stm32_flash(const decode::svd::Peripheral& svd, const config::Node& params) {
    params.allow_only({"flash", "size", "page", "program_time", "erase_time"});
    FlashGeometry g;
    if (params.has("flash")) g.base = params["flash"].u32();
    if (params.has("size")) {
        const std::uint64_t size = params["size"].size();
        if (size > 0xffffffffull) params["size"].fail("the flash must lie inside the address space");
        g.size = static_cast<std::uint32_t>(size);
    }
    if (params.has("page")) g.page = static_cast<std::uint32_t>(std::min<std::uint64_t>(params["page"].size(), 0xffffffffull));
    if (params.has("program_time")) g.program_seconds = params["program_time"].seconds();
    if (params.has("erase_time")) g.erase_seconds = params["erase_time"].seconds();
    if (g.page < 128 || (g.page & (g.page - 1)) || g.page > (64u << 10) || g.size % g.page)
        params["page"].fail("the page is a power of two from 128 bytes to 64 KiB that divides the flash's size");
    if (!g.size || std::uint64_t{g.base} + g.size > 0x100000000ull) params["size"].fail("the flash must lie inside the address space");
    return std::make_unique<Stm32Flash>(svd, g);
}

}  // namespace emutrace::emu
