// Owns the check of the library against the stored bit-layout test vectors (tests/data/bitpack_vectors.txt,
// written by scripts/gen-bitpack-vectors.py with an independent bit writer), both ways: the library's
// packing of the values equals the stored words, and the library's decoding of the stored words equals the values.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/codec/kernels.hpp"

namespace smartarrays {
namespace {

struct Vector {
  unsigned bits = 0;
  std::vector<std::uint64_t> values;
  std::vector<std::uint64_t> words;
  int line = 0;
};

std::vector<Vector> load_vectors() {
  const std::string path = std::string(SMARTARRAYS_TEST_DATA_DIR) + "/bitpack_vectors.txt";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<Vector> vectors;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    Vector v;
    std::uint64_t n = 0;
    v.line = line;
    fields >> v.bits >> n;
    v.values.resize(n);
    for (std::uint64_t& value : v.values) fields >> value;
    v.words.resize(codec::word_count(n, v.bits));
    for (std::uint64_t& word : v.words) fields >> std::hex >> word;
    std::string extra;
    if (!fields || (fields >> extra)) throw std::runtime_error(path + ":" + std::to_string(line) + ": malformed case");
    vectors.push_back(std::move(v));
  }
  return vectors;
}

const std::vector<Vector>& vectors() {
  static const std::vector<Vector> loaded = load_vectors();
  return loaded;
}

TEST(BitpackVectors, CoverEveryBitWidthAndChunkBoundaryLengths) {
  std::set<unsigned> widths;
  std::set<std::size_t> lengths;
  for (const Vector& v : vectors()) {
    widths.insert(v.bits);
    lengths.insert(v.values.size());
  }
  EXPECT_EQ(widths.size(), 64u);
  EXPECT_EQ(*widths.begin(), 1u);
  EXPECT_EQ(*widths.rbegin(), 64u);
  for (std::size_t n : {1u, 64u, 65u, 129u}) EXPECT_TRUE(lengths.count(n)) << "length " << n;
}

TEST(BitpackVectors, LibraryPacksTheValuesIntoTheStoredWords) {
  for (const Vector& v : vectors()) {
    SCOPED_TRACE("line " + std::to_string(v.line) + " bits " + std::to_string(v.bits));
    ArrayOptions options;
    options.bits = v.bits;
    const SmartArray packed = SmartArray::from_values(v.values, options);
    ASSERT_EQ(packed.words_per_replica(), v.words.size());
    EXPECT_EQ(std::vector<std::uint64_t>(packed.replica(0), packed.replica(0) + v.words.size()), v.words);

    SmartArray written = SmartArray::allocate(v.values.size(), options);
    for (std::uint64_t i = 0; i < v.values.size(); ++i) written.init(i, v.values[i]);
    EXPECT_EQ(std::vector<std::uint64_t>(written.replica(0), written.replica(0) + v.words.size()), v.words);
  }
}

TEST(BitpackVectors, LibraryDecodesTheStoredWordsIntoTheValues) {
  for (const Vector& v : vectors()) {
    SCOPED_TRACE("line " + std::to_string(v.line) + " bits " + std::to_string(v.bits));
    const std::uint64_t n = v.values.size();
    // The codec's range decode may read one word past the stream, as an array's padding word allows.
    std::vector<std::uint64_t> stream = v.words;
    stream.push_back(0);
    std::vector<std::uint64_t> decoded(n);
    codec::decode(stream.data(), v.bits, 0, n, decoded.data());
    EXPECT_EQ(decoded, v.values) << "codec::decode";

    // The width-templated reads only collect values; the checks stay out of the 64 instantiations.
    const auto [got, unpacked] = codec::with_bits(v.bits, [&](auto b) {
      const BitsView<decltype(b)::value> view(stream.data(), n);
      std::vector<std::uint64_t> gets(n);
      for (std::uint64_t i = 0; i < n; ++i) gets[i] = view.get(i);
      std::vector<std::uint64_t> chunks(view.chunks() * codec::chunk_values);
      for (std::uint64_t c = 0; c < view.chunks(); ++c) view.unpack(c, chunks.data() + c * codec::chunk_values);
      chunks.resize(n);
      return std::pair{gets, chunks};
    });
    EXPECT_EQ(got, v.values) << "BitsView::get";
    EXPECT_EQ(unpacked, v.values) << "BitsView::unpack";
  }
}

}  // namespace
}  // namespace smartarrays
