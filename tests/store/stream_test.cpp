// Tests store streams: arrays and graphs sent over a socketpair and a pipe arrive equal and are
// used in place (PageRank on a received graph), a store file sent with sendfile, an open store
// resent, and hostile streams: another magic, lengths too short or too large, a peer closing
// mid-stream, a corrupt block, bytes after the trailer, a graph whose ids lie past its vertex count,
// an undirected graph whose slots name four blocks, a sender whose peer closed (an error, not SIGPIPE), a placement that needs copies; a peer that
// stops reading or sending does not keep an interrupt waiting, non-blocking descriptors wait for
// their peer, and a received region's memory follows the bytes that came, not the announced length.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"
#include "support/array_values.hpp"
#include "support/pagerank_ranks.hpp"
#include "support/sanitizers.hpp"

namespace smartarrays {
namespace {

using store::Object;
using store::ReceiveOptions;
using store::Receiver;
using store::Store;
using test::array_of;
using test::Channel;
using test::ranks_of;
using test::receive_bytes;
using test::values_of;

std::vector<std::uint64_t> sample(std::uint64_t n, unsigned bits) {
  std::vector<std::uint64_t> values(n);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::uint64_t x = 88172645463325252ULL;
  for (auto& v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = x & mask;
  }
  return values;
}

// Every byte a reader of fd gets until EOF.
std::vector<std::uint8_t> drain(int fd) {
  std::vector<std::uint8_t> bytes;
  std::uint8_t buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) bytes.insert(bytes.end(), buffer, buffer + n);
  return bytes;
}

// The stream send() writes for objects, captured.
std::vector<std::uint8_t> stream_of(const std::vector<Object>& objects) {
  Channel c = Channel::sockets();
  std::thread sender([&] {
    Store::send(c.writer(), objects);
    c.close_end(1);
  });
  std::vector<std::uint8_t> bytes = drain(c.reader());
  sender.join();
  return bytes;
}

std::string error_of(const std::vector<std::uint8_t>& bytes, ErrorCode expected, const ReceiveOptions& options = {}) {
  try {
    receive_bytes(bytes, options);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the stream was accepted";
  return {};
}

TEST(StoreStream, ArraysAndAGraphOverASocketArriveEqualAndRunInPlace) {
  const std::vector<std::uint64_t> ten = sample(100'003, 10), wide = sample(777, 64);
  const SmartArray a10 = array_of(ten, 10), a64 = array_of(wide, 64), empty = array_of({}, 3);
  const graph::CsrGraph g = graph::build_csr(graph::generate_rmat({.scale = 9, .edge_factor = 8}));
  Channel c = Channel::sockets();
  std::thread sender([&] { Store::send(c.writer(), {{"ten", a10}, {"wide", a64}, {"empty", empty}, {"g", g}}); });
  const Store got = Store::receive(c.reader());
  sender.join();
  EXPECT_EQ(got.names(), (std::vector<std::string>{"ten", "wide", "empty", "g"}));
  EXPECT_EQ(got.array("ten").bits(), 10u);
  EXPECT_EQ(values_of(got.array("ten")), ten);
  EXPECT_EQ(values_of(got.array("wide")), wide);
  EXPECT_EQ(got.array("empty").length(), 0u);
  EXPECT_TRUE(got.array("ten").read_only());
  EXPECT_THROW(const_cast<SmartArray&>(got.array("ten")).init(0, 1), Error);
  EXPECT_EQ(ranks_of(got.graph("g")), ranks_of(g));
  got.graph("g").validate();
}

TEST(StoreStream, AnUndirectedGraphCrossesAsOneSharedCsr) {
  graph::EdgeList list = graph::generate_rmat({.scale = 9, .edge_factor = 8});
  list.directed = false;
  const graph::CsrGraph g = graph::build_csr(list);
  ASSERT_TRUE(g.shares_reverse());
  graph::EdgeList directed_list = list;
  directed_list.directed = true;
  const graph::CsrGraph directed = graph::build_csr(directed_list);
  const std::vector<std::uint8_t> bytes = stream_of({{"g", g}});
  // The shared begin and edge travel once: fewer bytes than a directed graph's five arrays.
  EXPECT_LT(bytes.size(), stream_of({{"g", directed}}).size());
  const Store got = receive_bytes(bytes);
  EXPECT_TRUE(got.graph("g").shares_reverse());
  EXPECT_FALSE(got.graph("g").directed());
  EXPECT_EQ(ranks_of(got.graph("g")), ranks_of(g));
  got.graph("g").validate();
}

TEST(StoreStream, OverAPipeInOneRegionOnAPlacement) {
  const std::vector<std::uint64_t> values = sample(300'000, 17);
  const SmartArray a = array_of(values, 17);
  Channel c = Channel::pipe();
  std::thread sender([&] { Store::send(c.writer(), {{"a", a}}); });
  ReceiveOptions options;
  options.placement.placement = Placement::interleaved;
  const Store got = Store::receive(c.reader(), options);
  sender.join();
  EXPECT_EQ(values_of(got.array("a")), values);
  EXPECT_EQ(got.array("a").sum(), a.sum());
}

TEST(StoreStream, AStoreFileBySendfileAndAnOpenStoreResent) {
  test::ScratchFile file("stream-file");
  const std::vector<std::uint64_t> values = sample(5'000, 33);
  const SmartArray a = array_of(values, 33);
  Store::write(file.path(), {{"a", a}});
  Store::append(file.path(), {{"b", a}});
  {
    Channel c = Channel::sockets();
    std::thread sender([&] { Store::send_file(c.writer(), file.path()); });
    const Store got = Store::receive(c.reader());
    sender.join();
    EXPECT_EQ(got.names(), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(values_of(got.array("b")), values);
  }
  const Store mapped = Store::open(file.path());
  Channel c = Channel::sockets();
  std::thread sender([&] { mapped.send(c.writer()); });
  const Store got = Store::receive(c.reader());
  sender.join();
  EXPECT_EQ(values_of(got.array("a")), values);
}

TEST(StoreStream, HostileStreamsAreRefusedNamingTheProblem) {
  const SmartArray a = array_of(sample(1000, 12), 12);
  const std::vector<std::uint8_t> good = stream_of({{"a", a}});
  ASSERT_GT(good.size(), 4096u + 16u);
  EXPECT_EQ(values_of(receive_bytes(good).array("a")), values_of(a));

  std::vector<std::uint8_t> magic = good;
  magic[0] = 'X';
  EXPECT_NE(error_of(magic, ErrorCode::invalid_argument).find("not a store stream"), std::string::npos);

  std::vector<std::uint8_t> tiny = good;
  test::put_at<std::uint64_t>(tiny, 8, 10);
  EXPECT_NE(error_of(tiny, ErrorCode::invalid_argument).find("cannot hold"), std::string::npos);

  std::vector<std::uint8_t> huge = good;
  test::put_at<std::uint64_t>(huge, 8, ~std::uint64_t{0});
  EXPECT_NE(error_of(huge, ErrorCode::invalid_argument).find("accepted"), std::string::npos);
  ReceiveOptions small;
  small.max_bytes = 4096;
  EXPECT_NE(error_of(good, ErrorCode::invalid_argument, small).find("more than the"), std::string::npos);

  const std::vector<std::uint8_t> cut(good.begin(), good.begin() + 3000);
  const std::string closed = error_of(cut, ErrorCode::os_error);
  EXPECT_NE(closed.find("the peer closed the stream after 3000 of"), std::string::npos) << closed;
  const std::vector<std::uint8_t> preamble_cut(good.begin(), good.begin() + 5);
  EXPECT_NE(error_of(preamble_cut, ErrorCode::os_error).find("after 5 of 16 bytes"), std::string::npos);

  std::vector<std::uint8_t> corrupt = good;
  corrupt[16 + 4096 + 5] ^= 0x40;  // inside the block
  EXPECT_NE(error_of(corrupt, ErrorCode::invalid_argument).find("the stream is corrupt"), std::string::npos);
  ReceiveOptions unchecked;
  unchecked.verify_blocks = false;
  EXPECT_NO_THROW(receive_bytes(corrupt, unchecked));

  std::vector<std::uint8_t> extra = good;
  extra.insert(extra.end(), 8, 0);
  test::put_at<std::uint64_t>(extra, 8, good.size() - 16 + 8);
  EXPECT_NE(error_of(extra, ErrorCode::invalid_argument).find("follow the trailer"), std::string::npos);

  std::vector<std::uint8_t> directory = good;
  directory[directory.size() - 40] ^= 1;  // the directory's last bytes: its checksum breaks
  EXPECT_NE(error_of(directory, ErrorCode::invalid_argument).find("checksum"), std::string::npos);
}

TEST(StoreStream, AGraphWithIdsPastItsVertexCountIsRefused) {
  const std::vector<std::uint8_t> bytes = stream_of({{"g", test::graph_out_of_bounds()}});
  const std::string message = error_of(bytes, ErrorCode::invalid_argument);
  EXPECT_EQ(message.rfind("store stream: graph 'g' (entry at offset ", 0), 0u) << message;
  EXPECT_NE(message.find(test::out_of_bounds_message), std::string::npos) << message;
}

// The receiver reads the directory with the file reader, so its rule of a graph's slots holds for
// streams: an undirected graph whose four slots name four blocks is refused.
TEST(StoreStream, AnUndirectedGraphOfFourBlocksIsRefused) {
  const graph::CsrGraph directed = graph::build_csr(graph::generate_rmat({.scale = 5, .edge_factor = 4}));
  std::vector<std::uint8_t> stream = stream_of({{"g", directed}});
  std::vector<std::uint8_t> file(stream.begin() + 16, stream.end());
  test::patch_directory(file, [](std::vector<std::uint8_t>& b, std::size_t dir) {
    test::put_at<std::uint32_t>(b, dir + 16 + 4 * 40 + 28, 0);  // the entry after the head and 4 descriptors: flags
  });
  std::copy(file.begin(), file.end(), stream.begin() + 16);
  const std::string message = error_of(stream, ErrorCode::invalid_argument);
  EXPECT_NE(message.find("graph 'g' (entry at offset "), std::string::npos) << message;
  EXPECT_NE(message.find("an undirected graph's rbegin and redge slots must name begin's and edge's blocks"), std::string::npos)
      << message;
}

// Runs call in another thread under an interrupt check that says stop once the test says so, and
// returns the code it ended with (no value: it returned). When it does not end within 10 s of the
// interrupt, fails the test and runs unblock so that the thread ends.
std::optional<ErrorCode> interrupted_after_a_while(const std::function<void()>& call, const std::function<void()>& unblock) {
  std::atomic<bool> stop{false};
  std::promise<std::optional<ErrorCode>> ended;
  std::thread worker([&] {
    const runtime::InterruptScope scope([&] { return stop.load(); });
    try {
      call();
      ended.set_value(std::nullopt);
    } catch (const Error& e) {
      ended.set_value(e.code());
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the call is waiting on its peer by now
  stop = true;
  std::future<std::optional<ErrorCode>> done = ended.get_future();
  if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "the call went on waiting 10 s after the interrupt";
    unblock();
  }
  worker.join();
  return done.get();
}

TEST(StoreStream, AnInterruptStopsASendToAPeerThatNeverReads) {
  const SmartArray a = array_of(sample(4'000'000, 20), 20);  // 10 MB: more than the socket or pipe buffers
  for (bool pipe : {false, true}) {
    Channel c = pipe ? Channel::pipe() : Channel::sockets();
    const std::optional<ErrorCode> code =
        interrupted_after_a_while([&] { Store::send(c.writer(), {{"a", a}}); }, [&] { c.close_end(0); });
    EXPECT_EQ(code, ErrorCode::cancelled) << (pipe ? "pipe" : "socket");
  }
}

TEST(StoreStream, AnInterruptStopsAReceiveFromAPeerThatStopsSending) {
  const std::vector<std::uint8_t> good = stream_of({{"a", array_of(sample(100'000, 12), 12)}});
  for (bool pipe : {false, true}) {
    Channel c = pipe ? Channel::pipe() : Channel::sockets();
    ASSERT_EQ(::write(c.writer(), good.data(), 5000), 5000);  // then nothing, and the end stays open
    const std::optional<ErrorCode> code =
        interrupted_after_a_while([&] { Store::receive(c.reader()); }, [&] { c.close_end(1); });
    EXPECT_EQ(code, ErrorCode::cancelled) << (pipe ? "pipe" : "socket");
  }
}

// A descriptor in non-blocking mode (what a Python socket with a timeout is) answers EAGAIN while
// its peer is not ready: the stream waits for it, as on a blocking descriptor, instead of failing.
TEST(StoreStream, NonBlockingDescriptorsWaitForTheirPeer) {
  const std::vector<std::uint64_t> values = sample(4'000'000, 20);  // 10 MB: the sender fills the buffer
  const SmartArray a = array_of(values, 20);
  for (bool pipe : {false, true}) {
    Channel c = pipe ? Channel::pipe() : Channel::sockets();
    for (int fd : c.fds) ASSERT_EQ(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
    std::string send_error;
    std::thread sender([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the receiver finds nothing at first
      try {
        Store::send(c.writer(), {{"a", a}});
      } catch (const Error& e) {
        send_error = e.what();
      }
    });
    std::optional<Store> got;
    try {
      got.emplace(Store::receive(c.reader()));
    } catch (const Error& e) {
      ADD_FAILURE() << (pipe ? "pipe: " : "socket: ") << e.what();
      c.close_end(0);  // the sender then fails too, and ends
    }
    sender.join();
    EXPECT_EQ(send_error, "") << (pipe ? "pipe" : "socket");
    if (got) {
      EXPECT_EQ(values_of(got->array("a")), values) << (pipe ? "pipe" : "socket");
    }
  }
}

TEST(StoreStream, ASenderWhosePeerClosedGetsAnErrorNotSigpipe) {
  const SmartArray a = array_of(sample(4'000'000, 20), 20);  // 10 MB: more than the socket buffers
  Channel c = Channel::sockets();
  std::thread reader([&] {
    std::uint8_t buffer[1000];
    EXPECT_GT(::read(c.reader(), buffer, sizeof buffer), 0);
    c.close_end(0);
  });
  try {
    Store::send(c.writer(), {{"a", a}});
    ADD_FAILURE() << "sending to a closed peer succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    EXPECT_NE(std::string(e.what()).find("writev failed"), std::string::npos) << e.what();
  }
  reader.join();
}

TEST(StoreStream, BadObjectsAndPlacementsAreRefused) {
  const SmartArray a = array_of({1, 2, 3}, 2);
  Channel c = Channel::sockets();
  EXPECT_THROW(Store::send(c.writer(), {{"", a}}), Error);
  EXPECT_THROW(Store::send(c.writer(), {{"x", a}, {"x", a}}), Error);
  const std::vector<std::uint8_t> good = stream_of({{"a", a}});
  ReceiveOptions replicated;
  replicated.placement.placement = Placement::replicated;
  EXPECT_NE(error_of(good, ErrorCode::invalid_argument, replicated).find("needs copies"), std::string::npos);
  const Store none = receive_bytes(stream_of({}));
  EXPECT_TRUE(none.names().empty());
}

// Writes bytes into the writing end of c from another thread, for a receiver reading its other end.
std::thread write_in_background(Channel& c, const std::vector<std::uint8_t>& bytes) {
  return std::thread([&c, &bytes] {
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::send(c.writer(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  });
}

TEST(StoreReceiver, ReusesItsRegionOnlyWhenNoArrayOfTheLastStoreIsLeft) {
  const std::vector<std::uint64_t> first = sample(50'000, 13), second = sample(40'000, 13);
  const std::vector<std::uint8_t> one = stream_of({{"a", array_of(first, 13)}});
  const std::vector<std::uint8_t> two = stream_of({{"a", array_of(second, 13)}});
  Channel c = Channel::sockets();
  Receiver receiver;
  EXPECT_EQ(receiver.reserved_bytes(), 0u);
  std::thread w1 = write_in_background(c, one);
  std::optional<Store> held(receiver.receive(c.reader()));
  w1.join();
  const std::uint64_t reserved = receiver.reserved_bytes();
  EXPECT_GE(reserved, one.size() - 16);
  // The first store is alive: the second stream must not overwrite it.
  std::thread w2 = write_in_background(c, two);
  const Store next = receiver.receive(c.reader());
  w2.join();
  EXPECT_EQ(receiver.reuses(), 0u);
  EXPECT_EQ(values_of(held->array("a")), first);
  EXPECT_EQ(values_of(next.array("a")), second);
  // Released: the third stream goes into a region again, not over next's.
  held.reset();
  std::thread w3 = write_in_background(c, one);
  const Store third = receiver.receive(c.reader());
  w3.join();
  EXPECT_EQ(receiver.reuses(), 0u);
  EXPECT_EQ(values_of(next.array("a")), second);
  EXPECT_EQ(values_of(third.array("a")), first);
}

TEST(StoreReceiver, ReadsTheNextStreamIntoTheSameRegionOnceTheLastIsReleased) {
  const std::vector<std::uint64_t> big = sample(70'001, 29), small = sample(1'000, 5), bigger = sample(200'000, 29);
  Channel c = Channel::sockets();
  Receiver receiver;
  std::uint64_t reused = 0;
  for (const auto& [values, bits] : {std::pair{big, 29u}, std::pair{small, 5u}, std::pair{big, 29u}, std::pair{bigger, 29u}}) {
    const std::vector<std::uint8_t> bytes = stream_of({{"a", array_of(values, bits)}});
    const bool fits = receiver.reserved_bytes() >= bytes.size() - 16;
    std::thread w = write_in_background(c, bytes);
    const Store got = receiver.receive(c.reader());
    w.join();
    reused += fits ? 1 : 0;
    EXPECT_EQ(receiver.reuses(), reused);
    EXPECT_EQ(values_of(got.array("a")), values);
  }
  EXPECT_EQ(reused, 2u);  // the small one and the second big one; the first and the bigger needed new regions
}

TEST(StoreReceiver, APartitionedReceiverReusesOnlyARegionOfTheSameSize) {
  ReceiveOptions partitioned;
  partitioned.placement.placement = Placement::partitioned;
  const std::vector<std::uint64_t> a = sample(30'000, 20), b = sample(10'000, 20);
  Channel c = Channel::sockets();
  Receiver receiver(partitioned);
  for (const auto* values : {&a, &b, &b}) {
    const std::vector<std::uint8_t> bytes = stream_of({{"a", array_of(*values, 20)}});
    std::thread w = write_in_background(c, bytes);
    const Store got = receiver.receive(c.reader());
    w.join();
    EXPECT_EQ(values_of(got.array("a")), *values);
  }
  EXPECT_EQ(receiver.reuses(), 1u);
}

TEST(StoreReceiver, ACorruptStreamIntoAReusedRegionIsAnErrorAndTheReceiverGoesOn) {
  const std::vector<std::uint64_t> values = sample(20'000, 11);
  const std::vector<std::uint8_t> good = stream_of({{"a", array_of(values, 11)}});
  std::vector<std::uint8_t> bad = good;
  bad[16 + 4096 + 5000] ^= 0x10;  // a byte in the middle of the block (after preamble and header)
  Channel c = Channel::sockets();
  Receiver receiver;
  const std::vector<std::uint8_t>& corrupt = bad;
  for (const std::vector<std::uint8_t>* bytes : {&good, &corrupt, &good}) {
    std::thread w = write_in_background(c, *bytes);
    if (bytes == &corrupt) {
      try {
        receiver.receive(c.reader());
        ADD_FAILURE() << "a corrupt block was accepted";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
      }
    } else {
      EXPECT_EQ(values_of(receiver.receive(c.reader()).array("a")), values);
    }
    w.join();
  }
  EXPECT_EQ(receiver.reuses(), 2u);
  ReceiveOptions replicated;
  replicated.placement.placement = Placement::replicated;
  EXPECT_THROW(Receiver{replicated}, Error);
}

// The peak resident memory of the process (VmHWM), after resetting it to the current one when reset.
std::uint64_t peak_rss_bytes(bool reset) {
  if (reset) std::ofstream("/proc/self/clear_refs") << "5";
  std::ifstream status("/proc/self/status");
  for (std::string key; status >> key;) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib << 10;
    }
  }
  return 0;
}

// Before, the region was mapped and pre-faulted whole when the preamble came: 16 bytes announcing
// 1 GiB made the receiver touch 1 GiB, then fail when the peer closed. Now its pages are faulted in
// as the bytes arrive, so what the peer makes the receiver hold is what it sent (plus a step).
TEST(StoreReceiver, MemoryFollowsTheBytesReceivedNotTheLengthAnnounced) {
  constexpr std::uint64_t announced = std::uint64_t{1} << 30, sent = std::uint64_t{96} << 20, MiB = 1 << 20;
  const std::uint64_t before = peak_rss_bytes(true);
  Channel c = Channel::sockets();
  std::thread writer([&] {
    std::vector<std::uint8_t> piece(MiB);
    std::memcpy(piece.data(), "SASTREAM", 8);
    std::memcpy(piece.data() + 8, &announced, 8);
    for (std::uint64_t done = 0; done < sent;) {
      const std::uint64_t at = done % MiB;  // the preamble, then zeros
      const ssize_t n = ::send(c.writer(), piece.data() + at, MiB - at, MSG_NOSIGNAL);
      if (n <= 0) break;
      done += static_cast<std::uint64_t>(n);
      if (done >= MiB) std::memset(piece.data(), 0, 16);
    }
    c.close_end(1);
  });
  Receiver receiver;
  try {
    receiver.receive(c.reader());
    ADD_FAILURE() << "a stream cut short was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    EXPECT_NE(std::string(e.what()).find("the peer closed the stream after " + std::to_string(sent) + " of " +
                                         std::to_string(announced + 16) + " bytes"),
              std::string::npos)
        << e.what();
  }
  writer.join();
  EXPECT_EQ(receiver.reserved_bytes(), announced);  // address space, kept for the next stream
#if defined(SMARTARRAYS_TEST_TSAN)
  // ThreadSanitizer's shadow memory grows by several times every byte written: resident memory is
  // not the receiver's there (the plain and ASan runs check it).
  static_cast<void>(before);
#else
  const std::uint64_t grown = peak_rss_bytes(false) - before;
  EXPECT_GE(grown, sent - 16 * MiB);
  EXPECT_LT(grown, sent + 32 * MiB) << "the receiver touched memory no byte had reached";
#endif
}

TEST(StoreCrc, PageCrcsCombineToTheCrcOfAnyRange) {
  std::vector<std::uint8_t> data(5 * 4096 + 123);
  const std::vector<std::uint64_t> noise = sample(data.size(), 8);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(noise[i]);
  codec::PagedCrc32c pages;
  for (std::uint64_t filled : {100ul, 4096ul, 9000ul, 16384ul, static_cast<std::uint64_t>(data.size())}) pages.advance(data.data(), filled);
  for (std::uint64_t offset : {0ul, 4096ul, 8192ul, 20480ul, 12ul}) {
    for (std::uint64_t length : {0ul, 1ul, 8ul, 4095ul, 4096ul, 4097ul, 8192ul, 12000ul}) {
      if (offset + length > data.size()) continue;
      EXPECT_EQ(pages.range(data.data(), offset, length), codec::crc32c(data.data() + offset, length))
          << "offset " << offset << " length " << length;
    }
  }
  EXPECT_EQ(pages.range(data.data(), 0, data.size()), codec::crc32c(data.data(), data.size()));
}

}  // namespace
}  // namespace smartarrays
