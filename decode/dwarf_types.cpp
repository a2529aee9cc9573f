#include "decode/dwarf_types.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <filesystem>

#include "decode/dwarf_handle.h"

namespace emutrace::decode {

struct DwarfTypes::Impl : DwarfHandle {
    using DwarfHandle::DwarfHandle;
};

namespace {

// Calls `visit` with each compile unit's DIE until it returns true.
template <typename Visit>
void each_unit(Dwarf* dwarf, Visit visit) {
    Dwarf_Off offset = 0, next = 0;
    std::size_t header = 0;
    for (int units = 0; units < 100000 && dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0; ++units, offset = next) {
        Dwarf_Die cu;
        if (dwarf_offdie(dwarf, offset + header, &cu) && visit(cu)) return;
    }
}

bool named(Dwarf_Die* die, std::string_view name) {
    const char* n = dwarf_diename(die);
    return n && name == n;
}

// The type a DIE refers to, through typedefs and qualifiers; false when it refers to none.
bool underlying_type(Dwarf_Die* die, Dwarf_Die* out) {
    Dwarf_Attribute attr;
    Dwarf_Die at = *die;
    for (int hops = 0; hops < 16; ++hops) {
        if (!dwarf_attr(&at, DW_AT_type, &attr) || !dwarf_formref_die(&attr, out)) return false;
        const int tag = dwarf_tag(out);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) return true;
        at = *out;
    }
    return false;
}

std::uint32_t array_length(Dwarf_Die* array) {
    Dwarf_Die sub;
    if (dwarf_child(array, &sub) != 0) return 0;
    do {
        if (dwarf_tag(&sub) != DW_TAG_subrange_type) continue;
        Dwarf_Attribute attr;
        Dwarf_Word value = 0;
        if (dwarf_attr(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &value) == 0) return static_cast<std::uint32_t>(value);
        if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) && dwarf_formudata(&attr, &value) == 0) return static_cast<std::uint32_t>(value + 1);
    } while (dwarf_siblingof(&sub, &sub) == 0);
    return 0;
}

std::optional<MemberLayout> member_of(Dwarf_Die* structure, std::string_view member) {
    Dwarf_Die child;
    if (dwarf_child(structure, &child) != 0) return std::nullopt;
    do {
        if (dwarf_tag(&child) != DW_TAG_member || !named(&child, member)) continue;
        Dwarf_Attribute attr;
        Dwarf_Word offset = 0;
        if (!dwarf_attr(&child, DW_AT_data_member_location, &attr) || dwarf_formudata(&attr, &offset) != 0) return std::nullopt;
        MemberLayout out{static_cast<std::uint32_t>(offset), 0};
        Dwarf_Die type;
        if (underlying_type(&child, &type) && dwarf_tag(&type) == DW_TAG_array_type) out.array_length = array_length(&type);
        return out;
    } while (dwarf_siblingof(&child, &child) == 0);
    return std::nullopt;
}

}  // namespace

DwarfTypes::DwarfTypes(const std::string& elf_path) : impl_(std::make_unique<Impl>(elf_path)) {}

DwarfTypes::~DwarfTypes() = default;

bool DwarfTypes::available() const {
    return impl_->dwarf != nullptr;
}

std::optional<MemberLayout> DwarfTypes::member(std::string_view type, std::string_view member) const {
    std::optional<MemberLayout> found;
    if (!impl_->dwarf) return found;
    each_unit(impl_->dwarf, [&](Dwarf_Die& cu) {
        Dwarf_Die die;
        if (dwarf_child(&cu, &die) != 0) return false;
        do {
            const int tag = dwarf_tag(&die);
            if ((tag != DW_TAG_structure_type && tag != DW_TAG_typedef) || !named(&die, type)) continue;
            Dwarf_Die structure = die;
            if (tag == DW_TAG_typedef && (!underlying_type(&die, &structure) || dwarf_tag(&structure) != DW_TAG_structure_type)) continue;
            if ((found = member_of(&structure, member))) return true;
        } while (dwarf_siblingof(&die, &die) == 0);
        return false;
    });
    return found;
}

std::vector<std::string> DwarfTypes::functions_of(const std::vector<std::string>& files) const {
    std::vector<std::string> out;
    if (!impl_->dwarf) return out;
    each_unit(impl_->dwarf, [&](Dwarf_Die& cu) {
        const char* name = dwarf_diename(&cu);
        if (!name || std::find(files.begin(), files.end(), std::filesystem::path(name).filename().string()) == files.end()) return false;
        Dwarf_Die die;
        if (dwarf_child(&cu, &die) != 0) return false;
        do {
            Dwarf_Addr low = 0;
            if (dwarf_tag(&die) == DW_TAG_subprogram && dwarf_lowpc(&die, &low) == 0)
                if (const char* f = dwarf_diename(&die)) out.emplace_back(f);
        } while (dwarf_siblingof(&die, &die) == 0);
        return false;
    });
    return out;
}

}  // namespace emutrace::decode
