// Owns access to smartarrays-spawn (spawn_helper.c), the launcher linked into the tune layer;
// internal to it.
#pragma once

namespace smartarrays::tune {

/// smartarrays-spawn as a descriptor fexecve runs (a sealed memfd holding its image, made on the
/// first call); -1 when the system refuses one.
int spawn_helper_fd() noexcept;

}  // namespace smartarrays::tune
