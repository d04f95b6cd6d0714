// Owns the checksums of an array's replicas (CRC32C through the os layer's one implementation) and
// their comparison. A file of its own, so a static binary that never checksums does not need ISA-L.
#include <cstring>

#include "codec/crc32c.hpp"
#include "smartarrays/array/smart_array.hpp"

namespace smartarrays {

std::uint32_t SmartArray::crc32c(std::size_t replica) const {
  return codec::crc32c(this->replica(replica), words_ * sizeof(std::uint64_t));
}

bool SmartArray::replicas_equal() const {
  for (std::size_t r = 1; r < replica_words_.size(); ++r) {
    if (std::memcmp(replica_words_[0], replica_words_[r], words_ * sizeof(std::uint64_t)) != 0) return false;
  }
  return true;
}

}  // namespace smartarrays
