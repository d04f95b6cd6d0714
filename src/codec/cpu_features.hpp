// Owns CPU feature detection for the codec's run-time kernel choice (cpuid + the OS's xsave state).
#pragma once

namespace smartarrays::codec::detail {

/// True when the CPU and the OS support AVX2 and BMI2 (YMM state enabled in XCR0).
bool cpu_has_avx2_bmi2() noexcept;

}  // namespace smartarrays::codec::detail
