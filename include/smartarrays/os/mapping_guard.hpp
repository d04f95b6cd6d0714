// Owns what happens when a mapped file is cut underneath its readers: a read of a page past the
// file's new end raises SIGBUS, which the guard's handler answers, for the mappings registered with
// it, by putting a zero page in place and counting a fault against the reading thread, so the read
// goes on (reading zeros) and the library turns the fault into an error at its next check. Faults
// anywhere else go to the handler that was installed before (or the default, which ends the process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// Registers bytes [data, data + bytes) of a file mapping, named path in messages, with the guard
/// (installing its SIGBUS handler on first use); returns the registration to pass to
/// unguard_mapping, or -1 when all 4096 registrations are in use (the mapping is then unguarded,
/// and a fault in it ends the process as before).
SMARTARRAYS_API int guard_mapping(const void* data, std::size_t bytes, const std::string& path) noexcept;

/// Ends a registration of guard_mapping (before the mapping is unmapped); -1 is ignored.
SMARTARRAYS_API void unguard_mapping(int registration) noexcept;

/// Faults of guarded mappings taken by the calling thread so far (only ever grows).
SMARTARRAYS_API std::uint64_t mapping_faults() noexcept;

/// Throws Error(os_error) naming the file ("'PATH' was truncated while mapped: ...") when the calling
/// thread took a fault of a guarded mapping since mapping_faults() returned since, or when data (if
/// given) lies in a guarded mapping that any thread found cut before (its zero pages fault no more).
SMARTARRAYS_API void check_mapping_faults(std::uint64_t since, const void* data = nullptr);

}  // namespace smartarrays::os
