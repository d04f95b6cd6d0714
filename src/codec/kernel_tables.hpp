// Owns the internal interface between the dispatcher and the per-ISA kernel tables.
#pragma once

#include "smartarrays/codec/kernels.hpp"

namespace smartarrays::codec::detail {

/// 64 entries, index bits - 1: portable kernels, valid on every x86-64 CPU.
const Kernels* scalar_kernel_table() noexcept;
/// 64 entries, index bits - 1: AVX2+BMI2 kernels; call only when cpu_has_avx2_bmi2().
const Kernels* avx2_kernel_table() noexcept;

}  // namespace smartarrays::codec::detail
