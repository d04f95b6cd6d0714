// Owns the one-time choice of kernel table: the best ISA the CPU supports, or the one forced by
// SMARTARRAYS_ISA=scalar|avx2 (for comparisons and for testing the portable path).
#include <cstdlib>
#include <string>
#include <string_view>

#include "codec/cpu_features.hpp"
#include "codec/kernel_tables.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::codec {
namespace {

void check_bits(unsigned bits) {
  if (bits < 1 || bits > 64) {
    throw_error(ErrorCode::invalid_argument, "bit width " + std::to_string(bits) + " is outside 1..64");
  }
}

Isa choose_isa() {
  const bool avx2 = detail::cpu_has_avx2_bmi2();
  const char* forced = std::getenv("SMARTARRAYS_ISA");
  if (forced != nullptr && *forced != '\0') {
    const std::string_view name(forced);
    if (name == "scalar") return Isa::scalar;
    if (name == "avx2") {
      if (!avx2) throw_error(ErrorCode::unsupported, "SMARTARRAYS_ISA=avx2 but this CPU lacks AVX2/BMI2");
      return Isa::avx2;
    }
    throw_error(ErrorCode::invalid_argument,
                "SMARTARRAYS_ISA='" + std::string(name) + "' is not one of: scalar, avx2");
  }
  return avx2 ? Isa::avx2 : Isa::scalar;
}

const Kernels* table_for(Isa isa) {
  return isa == Isa::avx2 ? detail::avx2_kernel_table() : detail::scalar_kernel_table();
}

}  // namespace

Isa active_isa() noexcept {
  static const Isa isa = [] {
    try {
      return choose_isa();
    } catch (const Error&) {
      // A bad SMARTARRAYS_ISA must not make every later call fail; kernels(bits, isa) reports it.
      return detail::cpu_has_avx2_bmi2() ? Isa::avx2 : Isa::scalar;
    }
  }();
  return isa;
}

bool isa_supported(Isa isa) noexcept { return isa == Isa::scalar || detail::cpu_has_avx2_bmi2(); }

const char* isa_name(Isa isa) noexcept { return isa == Isa::avx2 ? "avx2" : "scalar"; }

const Kernels& kernels(unsigned bits) {
  static const Kernels* const table = table_for(active_isa());
  check_bits(bits);
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
