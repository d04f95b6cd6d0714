// Owns the one-time choice of kernel table: the best ISA the CPU supports, or the one forced by
// SMARTARRAYS_ISA=scalar|avx2 (for comparisons and for testing the portable path).
#include <string>
#include <string_view>

#include "codec/cpu_features.hpp"
#include "codec/kernel_tables.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/settings.hpp"

namespace smartarrays::codec {
namespace {

void check_bits(unsigned bits) {
  if (bits < 1 || bits > 64) {
    throw_error(ErrorCode::invalid_argument, "bit width " + std::to_string(bits) + " is outside 1..64");
  }
}

constexpr util::NameTable<Isa, 2> isa_names{"kernel set", {{{Isa::scalar, "scalar"}, {Isa::avx2, "avx2"}}}};

// The kernel set chosen once per process, and why SMARTARRAYS_ISA could not be honoured (empty when
// it could): a bad setting must fail every call that needs kernels, never fall back silently.
struct IsaChoice {
  Isa isa = Isa::scalar;
  std::string error;
  ErrorCode code = ErrorCode::invalid_argument;
};

IsaChoice choose_isa() {
  const Isa best = detail::cpu_has_avx2_bmi2() ? Isa::avx2 : Isa::scalar;
  try {
    const Isa forced = util::setting_choice("SMARTARRAYS_ISA", isa_names, best);
    if (forced == Isa::avx2 && best != Isa::avx2) {
      util::bad_setting("SMARTARRAYS_ISA", "avx2", "this CPU lacks AVX2/BMI2", ErrorCode::unsupported);
    }
    return {forced, {}};
  } catch (const Error& e) {
    return {best, e.what(), e.code()};
  }
}

const IsaChoice& isa_choice() {
  static const IsaChoice choice = choose_isa();
  return choice;
}

const Kernels* table_for(Isa isa) {
  return isa == Isa::avx2 ? detail::avx2_kernel_table() : detail::scalar_kernel_table();
}

}  // namespace

Isa active_isa() noexcept { return isa_choice().isa; }

void check_isa_setting() {
  const IsaChoice& choice = isa_choice();
  if (!choice.error.empty()) throw_error(choice.code, choice.error);
}

bool isa_supported(Isa isa) noexcept { return isa == Isa::scalar || detail::cpu_has_avx2_bmi2(); }

const char* isa_name(Isa isa) noexcept { return isa_names.c_name(isa); }

const Kernels& kernels(unsigned bits) {
  static const Kernels* const table = table_for(active_isa());
  check_bits(bits);
  if (!isa_choice().error.empty()) [[unlikely]] check_isa_setting();
  return table[bits - 1];
}

const Kernels& kernels(unsigned bits, Isa isa) {
  check_bits(bits);
  if (!isa_supported(isa)) {
    throw_error(ErrorCode::unsupported, std::string("this CPU cannot run the ") + isa_name(isa) + " kernels");
  }
  return table_for(isa)[bits - 1];
}

}  // namespace smartarrays::codec
