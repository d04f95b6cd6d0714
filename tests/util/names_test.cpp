// Tests the enum<->name tables (util/names.hpp) through every enum that uses one, and the message
// quoting (util/text.hpp) that keeps input bytes out of messages raw.
#include <gtest/gtest.h>

#include <string>

#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/array/options.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays {
namespace {

enum class Colour { red, green };
constexpr util::NameTable<Colour, 3> colour_names{
    "colour", {{{Colour::red, "red"}, {Colour::green, "green"}, {Colour::green, "verde"}}}};

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(NameTable, CanonicalNamesAliasesAndAnyCase) {
  EXPECT_EQ(colour_names.name(Colour::green), "green");
  EXPECT_STREQ(colour_names.c_name(Colour::red), "red");
  EXPECT_EQ(colour_names.name(static_cast<Colour>(7)), "invalid");
  EXPECT_EQ(colour_names.parse("GREEN"), Colour::green);
  EXPECT_EQ(colour_names.parse("Verde"), Colour::green);
  EXPECT_EQ(colour_names.canonical_list(), "red, green");
  EXPECT_THROW(colour_names.parse("gree"), Error);
  EXPECT_THROW(colour_names.parse(""), Error);
}

TEST(NameTable, EveryEnumRejectsWithTheSameSentence) {
  EXPECT_EQ(error_of([] { parse_placement("numa"); }),
            "unknown placement 'numa' (expected one of: os_default, single_node, interleaved, replicated, partitioned)");
  EXPECT_EQ(error_of([] { runtime::parse_pin_policy("tight"); }),
            "unknown pinning policy 'tight' (expected one of: none, sparse, dense)");
  EXPECT_EQ(error_of([] { graph::parse_variant("W"); }), "unknown variant 'W' (expected one of: U, V, V+E)");
  EXPECT_EQ(error_of([] { graph::parse_graph_format("csv"); }),
            "unknown graph format 'csv' (expected one of: el, mtx, sg, compact)");
  EXPECT_EQ(error_of([] { algo::parse_dangling_rule("drop"); }),
            "unknown dangling rule 'drop' (expected one of: none, uniform)");
}

TEST(NameTable, EveryEnumRoundTripsInAnyCase) {
  for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                      Placement::partitioned}) {
    EXPECT_EQ(parse_placement(to_string(p)), p);
  }
  EXPECT_EQ(parse_placement("Replicated"), Placement::replicated);
  for (auto p : {runtime::PinPolicy::none, runtime::PinPolicy::sparse, runtime::PinPolicy::dense}) {
    EXPECT_EQ(runtime::parse_pin_policy(runtime::to_string(p)), p);
  }
  for (auto v : {graph::Variant::U, graph::Variant::V, graph::Variant::VE}) {
    EXPECT_EQ(graph::parse_variant(graph::to_string(v)), v);
  }
  EXPECT_EQ(graph::parse_variant("ve"), graph::Variant::VE);
  for (auto f : {graph::GraphFormat::edge_list, graph::GraphFormat::matrix_market, graph::GraphFormat::gap_sg,
                 graph::GraphFormat::compact}) {
    EXPECT_EQ(graph::parse_graph_format(graph::to_string(f)), f);
  }
  EXPECT_EQ(graph::parse_graph_format("SNAP"), graph::GraphFormat::edge_list);
  EXPECT_EQ(graph::parse_graph_format("mm"), graph::GraphFormat::matrix_market);
  for (auto r : {algo::DanglingRule::none, algo::DanglingRule::uniform}) {
    EXPECT_EQ(algo::parse_dangling_rule(algo::to_string(r)), r);
  }
  EXPECT_STREQ(codec::isa_name(codec::Isa::scalar), "scalar");
  EXPECT_STREQ(codec::isa_name(codec::Isa::avx2), "avx2");
}

TEST(Printable, EscapesRawBytesAndLeavesQuotedTextAsItIs) {
  EXPECT_EQ(util::printable("plain: 'x'"), "plain: 'x'");
  EXPECT_EQ(util::printable(std::string("a\0b\x1b[2J\xff", 8)), "a\\x00b\\x1b[2J\\xff");
  const std::string message = "bad " + util::quoted("\x1b\\");
  EXPECT_EQ(util::printable(message), message);
}

// The C ABI records messages with printable_to into a fixed buffer: the same escapes as printable,
// a NUL at the end, and a cut before an escape that does not fit whole.
TEST(Printable, IntoABufferEscapesAsPrintableAndCutsAtAWholeEscape) {
  const std::string raw("a\0b\x1b[2J\xff", 8);
  char out[64];
  EXPECT_EQ(util::printable_to(raw, out, sizeof out), util::printable(raw).size());
  EXPECT_STREQ(out, util::printable(raw).c_str());
  char small[5];
  EXPECT_EQ(util::printable_to("ab\x01" "cd", small, sizeof small), 2u);
  EXPECT_STREQ(small, "ab");
  EXPECT_EQ(util::printable_to("abcd", small, sizeof small), 4u);
  EXPECT_STREQ(small, "abcd");
  EXPECT_EQ(util::printable_to("abcde", small, 0), 0u);
}

TEST(Quoted, EscapesControlAndNonAsciiBytesAndCutsLongText) {
  EXPECT_EQ(util::quoted("plain"), "'plain'");
  EXPECT_EQ(util::quoted(std::string("a\0b", 3)), "'a\\x00b'");
  EXPECT_EQ(util::quoted("\x1b[31mred"), "'\\x1b[31mred'");
  EXPECT_EQ(util::quoted("back\\slash"), "'back\\\\slash'");
  EXPECT_EQ(util::quoted("\xff"), "'\\xff'");
  EXPECT_EQ(util::quoted(std::string(100, 'x'), 4), "'xxxx...'");
  const std::string nul_in_message = error_of([] { parse_placement(std::string_view("rep\0licated", 11)); });
  EXPECT_NE(nul_in_message.find("rep\\x00licated"), std::string::npos) << nul_in_message;
}

}  // namespace
}  // namespace smartarrays
