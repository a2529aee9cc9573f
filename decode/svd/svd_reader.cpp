// CMSIS-SVD through pugixml: the register properties (size, access, reset value) inherit from
// device to peripheral to cluster to register; derivedFrom copies a peripheral's registers, and
// dim arrays expand into one register per index, as the SVD specification says.

#include <pugixml.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "config/text_file.h"
#include "decode/svd/svd_device.h"
#include "emutrace/config_error.h"

namespace emutrace::decode::svd {

const Field* Register::field(std::string_view n) const {
    for (const auto& f : fields)
        if (f.name == n) return &f;
    return nullptr;
}

const Register* Peripheral::reg(std::string_view n) const {
    for (const auto& r : registers)
        if (r.name == n) return &r;
    return nullptr;
}

const Peripheral* Device::peripheral(std::string_view n) const {
    for (const auto& p : peripherals)
        if (p.name == n) return &p;
    return nullptr;
}

namespace {

// Bounds on what one peripheral may describe, so that a hostile file cannot take the memory.
constexpr std::uint32_t kLargestPeripheral = 1u << 20;
constexpr std::size_t kMostRegisters = 65536;

/// What a register inherits from the elements around it.
struct Properties {
    unsigned size_bits = 32;
    Access access = Access::ReadWrite;
    std::uint32_t reset = 0;
    std::uint32_t reset_mask = 0xffffffffu;
};

class Reader {
public:
    Reader(std::string_view xml, std::string file) : xml_(xml), file_(std::move(file)) {}

    Device read() {
        pugi::xml_document doc;
        pugi::xml_parse_result ok = doc.load_buffer(xml_.data(), xml_.size());
        if (!ok) throw ConfigError(file_ + ":" + std::to_string(line_of(ok.offset)) + ": not an SVD file: " + ok.description());
        pugi::xml_node device = doc.child("device");
        if (!device) throw ConfigError(file_ + ": not an SVD file (no <device> element)");
        Device d;
        d.name = text(device, "name");
        d.file = file_;
        Properties defaults = properties(device, Properties{});
        std::map<std::string, const pugi::xml_node> by_name;
        for (pugi::xml_node p : device.child("peripherals").children("peripheral")) by_name.emplace(text(p, "name"), p);
        for (pugi::xml_node p : device.child("peripherals").children("peripheral")) d.peripherals.push_back(peripheral(p, by_name, defaults));
        return d;
    }

private:
    Peripheral peripheral(pugi::xml_node p, const std::map<std::string, const pugi::xml_node>& by_name, const Properties& defaults) {
        Peripheral out;
        pugi::xml_node base = p;  // where the registers come from
        if (const char* from = p.attribute("derivedFrom").value(); *from) {
            auto it = by_name.find(from);
            if (it == by_name.end()) fail(p, std::string("derivedFrom names no peripheral '") + from + "'");
            base = it->second;
        }
        out.name = text(p, "name");
        out.description = child_text(p, base, "description");
        out.base = number(p, "baseAddress");
        for (pugi::xml_node i : p.children("interrupt")) out.interrupts.push_back({text(i, "name"), static_cast<unsigned>(number(i, "value"))});
        Properties props = properties(base, defaults);
        props = properties(p, props);
        std::uint64_t end = 0;
        for (pugi::xml_node b : base.children("addressBlock"))
            end = std::max<std::uint64_t>(end, std::uint64_t{number(b, "offset")} + number(b, "size"));
        registers(base.child("registers"), 0, props, out.registers);
        std::stable_sort(out.registers.begin(), out.registers.end(), [](const Register& a, const Register& b) { return a.offset < b.offset; });
        for (const auto& r : out.registers) end = std::max<std::uint64_t>(end, std::uint64_t{r.offset} + r.bytes);
        if (end > kLargestPeripheral) fail(p, "spans more than 1 MiB of addresses; no peripheral's registers do");
        out.size = static_cast<std::uint32_t>((end + 3) & ~std::uint64_t{3});
        return out;
    }

    // Registers and clusters under `parent`, at `offset` from the peripheral's base.
    void registers(pugi::xml_node parent, std::uint32_t offset, const Properties& inherited, std::vector<Register>& out) {
        for (pugi::xml_node n : parent.children()) {
            std::string kind = n.name();
            if (kind != "register" && kind != "cluster") continue;
            Properties props = properties(n, inherited);
            for (const auto& [suffix, step] : dims(n)) {
                std::uint32_t at = offset + number(n, "addressOffset") + step;
                std::string name = expand(text(n, "name"), suffix);
                if (kind == "cluster") {
                    std::vector<Register> inner;
                    registers(n, at, props, inner);
                    for (auto& r : inner) r.name = name + "." + r.name;
                    out.insert(out.end(), inner.begin(), inner.end());
                    if (out.size() > kMostRegisters) fail(n, "more than 65,536 registers in one peripheral");
                    continue;
                }
                Register r;
                r.name = name;
                r.offset = at;
                if (props.size_bits != 8 && props.size_bits != 16 && props.size_bits != 32) fail(n, "register size must be 8, 16 or 32 bits");
                r.bytes = static_cast<std::uint8_t>(props.size_bits / 8);
                r.reset = props.reset & props.reset_mask;
                r.access = props.access;
                for (pugi::xml_node f : n.child("fields").children("field")) r.fields.push_back(field(f, r.access));
                out.push_back(std::move(r));
                if (out.size() > kMostRegisters) fail(n, "more than 65,536 registers in one peripheral");
            }
        }
    }

    Field field(pugi::xml_node f, Access register_access) {
        Field out;
        out.name = text(f, "name");
        unsigned lsb = 0, width = 1;
        if (f.child("bitOffset")) {
            lsb = number(f, "bitOffset");
            width = f.child("bitWidth") ? number(f, "bitWidth") : 1;
        } else if (f.child("lsb")) {
            lsb = number(f, "lsb");
            width = number(f, "msb") - lsb + 1;
        } else if (f.child("bitRange")) {  // [msb:lsb]
            unsigned msb = 0;
            if (std::sscanf(f.child_value("bitRange"), "[%u:%u]", &msb, &lsb) != 2 || msb < lsb) fail(f, "bitRange is not [msb:lsb]");
            width = msb - lsb + 1;
        } else {
            fail(f, "a field needs bitOffset, lsb/msb or bitRange");
        }
        if (lsb + width > 32 || width == 0) fail(f, "field bits outside a 32-bit register");
        out.lsb = static_cast<std::uint8_t>(lsb);
        out.width = static_cast<std::uint8_t>(width);
        out.access = f.child("access") ? access(f.child("access")) : register_access;
        if (pugi::xml_node w = f.child("modifiedWriteValues")) out.write = write_action(w);
        if (pugi::xml_node r = f.child("readAction")) out.read = read_action(r);
        return out;
    }

    // The (suffix, byte step) of each element of a dim array; one ("", 0) for a plain element.
    std::vector<std::pair<std::string, std::uint32_t>> dims(pugi::xml_node n) {
        if (!n.child("dim")) return {{"", 0}};
        std::uint32_t count = number(n, "dim");
        std::uint32_t increment = number(n, "dimIncrement");
        if (count == 0 || count > 1024) fail(n, "dim must be between 1 and 1024");
        std::vector<std::string> index;
        std::string list = n.child_value("dimIndex");
        if (auto dash = list.find('-'); dash != std::string::npos && list.find(',') == std::string::npos) {
            int first = std::atoi(list.c_str()), last = std::atoi(list.c_str() + dash + 1);
            for (int i = first; i <= last; ++i) index.push_back(std::to_string(i));
        } else if (!list.empty()) {
            std::size_t at = 0;
            while (at <= list.size()) {
                std::size_t comma = list.find(',', at);
                index.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
                if (comma == std::string::npos) break;
                at = comma + 1;
            }
        }
        std::vector<std::pair<std::string, std::uint32_t>> out;
        for (std::uint32_t i = 0; i < count; ++i) out.emplace_back(i < index.size() ? index[i] : std::to_string(i), i * increment);
        return out;
    }

    static std::string expand(std::string name, const std::string& suffix) {
        for (const char* token : {"[%s]", "%s"})
            if (auto at = name.find(token); at != std::string::npos) return name.replace(at, std::string_view(token).size(), suffix);
        return name;
    }

    Properties properties(pugi::xml_node n, Properties p) {
        if (n.child("size")) p.size_bits = number(n, "size");
        if (n.child("access")) p.access = access(n.child("access"));
        if (n.child("resetValue")) p.reset = number(n, "resetValue");
        if (n.child("resetMask")) p.reset_mask = number(n, "resetMask");
        return p;
    }

    Access access(pugi::xml_node n) {
        static const std::pair<const char*, Access> kNames[] = {{"read-write", Access::ReadWrite},
                                                                {"read-only", Access::ReadOnly},
                                                                {"write-only", Access::WriteOnly},
                                                                {"writeOnce", Access::WriteOnce},
                                                                {"read-writeOnce", Access::ReadWriteOnce}};
        return choice(n, kNames);
    }

    WriteAction write_action(pugi::xml_node n) {
        static const std::pair<const char*, WriteAction> kNames[] = {{"modify", WriteAction::Modify},
                                                                     {"oneToClear", WriteAction::OneToClear},
                                                                     {"oneToSet", WriteAction::OneToSet},
                                                                     {"oneToToggle", WriteAction::OneToToggle},
                                                                     {"zeroToClear", WriteAction::ZeroToClear},
                                                                     {"zeroToSet", WriteAction::ZeroToSet},
                                                                     {"zeroToToggle", WriteAction::ZeroToToggle},
                                                                     {"clear", WriteAction::Clear},
                                                                     {"set", WriteAction::Set}};
        return choice(n, kNames);
    }

    ReadAction read_action(pugi::xml_node n) {
        static const std::pair<const char*, ReadAction> kNames[] = {
            {"clear", ReadAction::Clear}, {"set", ReadAction::Set}, {"modify", ReadAction::Modify}, {"modifyExternal", ReadAction::Modify}};
        return choice(n, kNames);
    }

    template <typename T, std::size_t N>
    T choice(pugi::xml_node n, const std::pair<const char*, T> (&names)[N]) {
        std::string v = trimmed(n.child_value());
        for (const auto& [name, value] : names)
            if (v == name) return value;
        fail(n, "unknown <" + std::string(n.name()) + "> value '" + v + "'");
    }

    std::uint32_t number(pugi::xml_node parent, const char* child) {
        pugi::xml_node n = parent.child(child);
        if (!n) fail(parent, std::string("<") + parent.name() + "> has no <" + child + ">");
        std::string v = trimmed(n.child_value());
        int base = 0;
        std::string digits = v;
        if (!v.empty() && v[0] == '#') {  // SVD's binary notation
            base = 2;
            digits = v.substr(1);
        } else if (v.size() > 2 && (v[1] == 'b' || v[1] == 'B') && v[0] == '0') {
            base = 2;
            digits = v.substr(2);
        }
        char* end = nullptr;
        unsigned long long value = std::strtoull(digits.c_str(), &end, base);
        if (digits.empty() || *end || value > 0xffffffffull) fail(n, "<" + std::string(child) + "> is not a 32-bit number: '" + v + "'");
        return static_cast<std::uint32_t>(value);
    }

    std::string text(pugi::xml_node parent, const char* child) {
        std::string v = trimmed(parent.child_value(child));
        if (v.empty()) fail(parent, std::string("<") + parent.name() + "> has no <" + child + ">");
        return v;
    }

    static std::string child_text(pugi::xml_node first, pugi::xml_node second, const char* child) {
        return trimmed(first.child(child) ? first.child_value(child) : second.child_value(child));
    }

    static std::string trimmed(std::string_view s) {
        std::size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
        return a == std::string_view::npos ? std::string() : std::string(s.substr(a, b - a + 1));
    }

    std::size_t line_of(std::ptrdiff_t offset) const {
        std::size_t end = std::min<std::size_t>(static_cast<std::size_t>(std::max<std::ptrdiff_t>(offset, 0)), xml_.size());
        return 1 + static_cast<std::size_t>(std::count(xml_.begin(), xml_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    }

    [[noreturn]] void fail(pugi::xml_node at, const std::string& what) {
        std::string where = at.child("name") ? " (" + std::string(at.name()) + " " + trimmed(at.child_value("name")) + ")" : "";
        throw ConfigError(file_ + ":" + std::to_string(line_of(at.offset_debug())) + ": " + what + where);
    }

    std::string_view xml_;
    std::string file_;
};

}  // namespace

Device parse_device(std::string_view xml, const std::string& file) {
    return Reader(xml, file).read();
}

Device read_device(const std::filesystem::path& path) {
    // An SVD of a large part is a few megabytes; 64 MiB bounds a hostile one.
    std::vector<std::uint8_t> bytes = config::read_binary_file(path.string(), "SVD file", std::size_t{64} << 20);
    return parse_device(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path.string());
}

}  // namespace emutrace::decode::svd
