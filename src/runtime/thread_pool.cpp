// Owns the worker threads: placing them by policy, the job hand-off (one loop at a time, workers
// parked on an atomic generation counter), inline execution of nested loops, and clean shutdown.
//
// A loop completes when its batches are done, not when every worker has checked in: on a shared
// machine a worker may not be scheduled for a whole time slice, and waiting for it would stall
// the caller although there is nothing left for it to do. Workers join the open job through one
// state word (open bit, done bit, count of joined workers); the caller closes the job once it is
// done and no joined worker is left, and a worker that wakes up after that skips the job. A caller
// with an interrupt check (runtime/interrupt.hpp) waits in slices of interrupt_poll_interval on a
// condition variable the last leaving worker signals, polling the check between slices and
// cancelling the loop when it says stop.
#include "smartarrays/runtime/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "smartarrays/error.hpp"
#include "smartarrays/os/mapping_guard.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/settings.hpp"

namespace smartarrays::runtime {

namespace {

// The body currently running on this thread (a pool worker's, or an inline nested loop's).
thread_local const WorkerContext* current_context = nullptr;

// Restores current_context when a body returns or throws.
class ContextScope {
 public:
  explicit ContextScope(const WorkerContext* context) noexcept : saved_(current_context) { current_context = context; }
  ~ContextScope() { current_context = saved_; }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const WorkerContext* saved_;
};

constexpr std::size_t max_threads = 4096;

constexpr util::NameTable<PinPolicy, 3> pin_policy_names{
    "pinning policy", {{{PinPolicy::none, "none"}, {PinPolicy::sparse, "sparse"}, {PinPolicy::dense, "dense"}}}};

}  // namespace

const char* to_string(PinPolicy policy) noexcept { return pin_policy_names.c_name(policy); }

PinPolicy parse_pin_policy(std::string_view name) { return pin_policy_names.parse(name); }

std::vector<int> plan_worker_nodes(const os::Topology& topology, std::size_t threads, PinPolicy policy) {
  // One slot per usable CPU in placement order; worker w takes slot w mod slots.
  std::vector<int> slots;
  const std::vector<int> nodes = topology.cpu_nodes();
  if (nodes.empty()) throw_error(ErrorCode::unsupported, "the topology has no node with usable CPUs");
  if (policy == PinPolicy::dense) {
    for (int node : nodes) slots.insert(slots.end(), topology.node(static_cast<std::size_t>(node)).cpus.size(), node);
  } else {
    // Round-robin over nodes, skipping nodes whose CPUs are all taken, until every CPU has a slot.
    std::vector<std::size_t> taken(topology.node_count(), 0);
    bool placed = true;
    while (placed) {
      placed = false;
      for (int node : nodes) {
        auto id = static_cast<std::size_t>(node);
        if (taken[id] < topology.node(id).cpus.size()) {
          ++taken[id];
          slots.push_back(node);
          placed = true;
        }
      }
    }
  }
  std::vector<int> plan(threads);
  for (std::size_t w = 0; w < threads; ++w) plan[w] = slots[w % slots.size()];
  return plan;
}

std::size_t default_thread_count() {
  const std::size_t cpus = std::max<std::size_t>(os::topology().all_cpus().size(), 1);
  return static_cast<std::size_t>(util::setting_count("SMARTARRAYS_THREADS", 1, max_threads, cpus));
}

const WorkerContext* current_worker() noexcept { return current_context; }

struct ThreadPool::State {
  PinPolicy pinning = PinPolicy::sparse;
  std::vector<int> nodes;                    // planned node per worker
  std::vector<std::size_t> workers_per_node;
  std::vector<bool> served;                  // node has a pinned worker
  std::vector<std::thread> threads;
  // One worker the caller can stand in for (unpinned, or on the only node): the caller runs each
  // loop itself, as worker 0, instead of handing it to the worker and waiting.
  bool caller_runs = false;

  std::mutex submit;  // one loop at a time; other submitters wait here

  // The current job: written by the submitter before it bumps generation (release), read by
  // workers after they see the new generation (acquire).
  Loop* loop = nullptr;
  BatchFn fn = nullptr;
  void* body = nullptr;
  LoopTrace* trace = nullptr;  // set between jobs; the job's record is trace->loops.back()

  std::atomic<std::uint64_t> generation{0};
  std::atomic<std::uint64_t> job_state{0};  // job_open | job_done | workers inside the job
  std::atomic<bool> stop{false};
  std::mutex left_mutex;               // with left: wakes a caller waiting in slices
  std::condition_variable left;        // signalled when the last joined worker leaves a job

  std::atomic<std::size_t> started{0};  // workers past their placement step
  std::mutex startup_mutex;
  std::exception_ptr startup_error;     // the first placement failure

  static constexpr std::uint64_t job_open = std::uint64_t{1} << 63;  // workers may join
  static constexpr std::uint64_t job_done = std::uint64_t{1} << 62;  // the loop hands out no more batches
  static constexpr std::uint64_t joined_mask = job_done - 1;

  void worker_main(std::size_t w);
  bool join_job() noexcept;
  void leave_job() noexcept;
  void run_job(std::size_t w, bool polls_interrupt = false);
  void shut_down() noexcept;
  void wait_for_change(std::uint64_t state);
};

void ThreadPool::State::worker_main(std::size_t w) {
  try {
    if (pinning == PinPolicy::none) {
      // Threads inherit the creator's affinity; `none` means the OS may use every usable CPU.
      os::unpin_current_thread();
    } else {
      os::pin_current_thread_to_node(nodes[w]);
    }
  } catch (...) {
    std::lock_guard lock(startup_mutex);
    if (!startup_error) startup_error = std::current_exception();
  }
  started.fetch_add(1, std::memory_order_release);
  started.notify_all();

  std::uint64_t seen = 0;
  for (;;) {
    generation.wait(seen, std::memory_order_acquire);
    seen = generation.load(std::memory_order_acquire);
    if (stop.load(std::memory_order_acquire)) return;
    if (!join_job()) continue;
    run_job(w);
    leave_job();
  }
}

bool ThreadPool::State::join_job() noexcept {
  std::uint64_t state = job_state.load(std::memory_order_acquire);
  do {
    if ((state & job_open) == 0) return false;  // closed: this worker woke too late to be needed
  } while (!job_state.compare_exchange_weak(state, state + 1, std::memory_order_acquire, std::memory_order_acquire));
  return true;
}

void ThreadPool::State::leave_job() noexcept {
  // This worker's take loop ended. Without stealing other nodes' parts may still wait for their
  // workers, so the job is done only when the loop itself has nothing left to hand out.
  const std::uint64_t done = loop->finished() ? job_done : 0;
  std::uint64_t state = job_state.load(std::memory_order_relaxed);
  std::uint64_t next = 0;
  do {
    next = (state - 1) | done;
  } while (!job_state.compare_exchange_weak(state, next, std::memory_order_release, std::memory_order_relaxed));
  if ((next & joined_mask) == 0) {
    job_state.notify_all();
    { std::lock_guard lock(left_mutex); }
    left.notify_all();
  }
}

// Returns once job_state may differ from state; a caller with an interrupt check polls it meanwhile.
void ThreadPool::State::wait_for_change(std::uint64_t state) {
  if (!has_interrupt_check()) {
    job_state.wait(state, std::memory_order_acquire);
    return;
  }
  {
    std::unique_lock lock(left_mutex);
    left.wait_for(lock, interrupt_poll_interval, [&] { return job_state.load(std::memory_order_acquire) != state; });
  }
  if (!loop->stopped() && interrupt_requested(true)) loop->cancel();
}

// Runs the current job's batches as worker w; a caller standing in for the worker (polls_interrupt)
// polls its interrupt check between batches, as it would while waiting.
void ThreadPool::State::run_job(std::size_t w, bool polls_interrupt) {
  WorkerContext context;
  context.worker = w;
  context.node = pinning == PinPolicy::none ? os::current_node() : nodes[w];
  context.workers = nodes.size();
  std::uint64_t batches = 0;
  std::uint64_t stolen = 0;
  std::uint64_t indices = 0;
  {
    ContextScope scope(&context);
    try {
      Batch batch;
      std::vector<Batch>* traced = trace != nullptr ? &trace->loops.back().by_worker[w] : nullptr;
      // A batch that read a page of a mapped file cut underneath (zeros, os/mapping_guard) fails the loop.
      const std::uint64_t faults = os::mapping_faults();
      while (loop->next(batch, context.node)) {
        if (polls_interrupt && interrupt_requested()) loop->cancel();
        if (traced != nullptr) traced->push_back(batch);
        fn(body, batch.lo, batch.hi, context);
        os::check_mapping_faults(faults);
        ++batches;
        stolen += batch.node != context.node;
        indices += batch.hi - batch.lo;
      }
    } catch (...) {
      loop->fail(std::current_exception());
    }
  }
  if (LoopStats* stats = loop->stats_) {
    stats->batches[w] = batches;
    stats->stolen[w] = stolen;
    stats->indices[w] = indices;
  }
}

void ThreadPool::State::shut_down() noexcept {
  stop.store(true, std::memory_order_release);
  generation.fetch_add(1, std::memory_order_release);
  generation.notify_all();
  for (std::thread& thread : threads) {
    if (thread.joinable()) thread.join();
  }
  threads.clear();
}

ThreadPool::ThreadPool(const PoolOptions& options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  const os::Topology& topology = os::topology();
  const std::size_t threads = options.threads == 0 ? default_thread_count() : options.threads;
  if (threads > max_threads) {
    throw_error(ErrorCode::invalid_argument,
                "pool of " + std::to_string(threads) + " threads exceeds " + std::to_string(max_threads));
  }
  s.pinning = options.pinning;
  s.nodes = plan_worker_nodes(topology, threads, options.pinning);
  s.workers_per_node.assign(topology.node_count(), 0);
  s.served.assign(topology.node_count(), false);
  for (int node : s.nodes) {
    ++s.workers_per_node[static_cast<std::size_t>(node)];
    // Unpinned workers may run on any node, so no node is sure to have a taker for its parts:
    // without stealing every part stays open to every worker.
    s.served[static_cast<std::size_t>(node)] = options.pinning != PinPolicy::none;
  }
  // Where such a caller runs the loop it runs where the worker would: anywhere, or on the one node.
  s.caller_runs = threads == 1 && (options.pinning == PinPolicy::none || topology.node_count() == 1);

  s.threads.reserve(threads);
  try {
    for (std::size_t w = 0; w < threads; ++w) s.threads.emplace_back([&s, w] { s.worker_main(w); });
  } catch (const std::system_error& e) {
    // shut_down() joins and forgets the started workers, so the failed index is taken first.
    const std::size_t failed = s.threads.size();
    s.shut_down();
    throw_error(ErrorCode::os_error, "cannot start worker thread " + std::to_string(failed) + " of " +
                                         std::to_string(threads) + ": " + e.what());
  }
  for (std::size_t n = s.started.load(std::memory_order_acquire); n < threads;
       n = s.started.load(std::memory_order_acquire)) {
    s.started.wait(n, std::memory_order_acquire);
  }
  std::exception_ptr error;
  {
    std::lock_guard lock(s.startup_mutex);
    error = s.startup_error;
  }
  if (error) {
    s.shut_down();
    std::rethrow_exception(error);
  }
}

ThreadPool::~ThreadPool() { state_->shut_down(); }

std::size_t ThreadPool::size() const noexcept { return state_->nodes.size(); }

PinPolicy ThreadPool::pinning() const noexcept { return state_->pinning; }

int ThreadPool::worker_node(std::size_t w) const {
  if (w >= state_->nodes.size()) {
    throw_error(ErrorCode::out_of_range,
                "worker " + std::to_string(w) + " out of range for a pool of " + std::to_string(state_->nodes.size()));
  }
  return state_->nodes[w];
}

const std::vector<std::size_t>& ThreadPool::workers_per_node() const noexcept { return state_->workers_per_node; }

void ThreadPool::trace(LoopTrace* trace) noexcept { state_->trace = trace; }

void ThreadPool::run_erased(Loop& loop, BatchFn fn, void* body) {
  if (const WorkerContext* outer = current_context) {
    // Nested: the workers may all be busy in the enclosing loop, so waiting for them could
    // deadlock; this thread runs the inner loop alone, so it takes every node's parts (also those a
    // loop without stealing keeps for their nodes' workers: each replica of an array).
    loop.mark_unserved_nodes(std::vector<bool>(loop.node_count(), false));
    Batch batch;
    const std::uint64_t faults = os::mapping_faults();
    while (loop.next(batch, outer->node)) {
      fn(body, batch.lo, batch.hi, *outer);
      os::check_mapping_faults(faults);
    }
    loop.rethrow_if_stopped();
    return;
  }
  // A loop is a step of a longer operation: an interrupted caller does not start it.
  check_interrupt();
  State& s = *state_;
  std::lock_guard lock(s.submit);
  if (loop.node_count() != s.served.size()) {
    throw_error(ErrorCode::invalid_argument, "loop made for " + std::to_string(loop.node_count()) +
                                                 " nodes cannot run on a pool made for " +
                                                 std::to_string(s.served.size()));
  }
  loop.mark_unserved_nodes(s.served);
  if (LoopStats* stats = loop.stats_) {
    stats->batches.assign(size(), 0);
    stats->stolen.assign(size(), 0);
    stats->indices.assign(size(), 0);
  }
  if (s.trace != nullptr) {
    s.trace->loops.push_back({loop.parts(), s.nodes, std::vector<std::vector<Batch>>(size())});
  }
  s.loop = &loop;
  s.fn = fn;
  s.body = body;
  if (s.caller_runs) {
    s.run_job(0, has_interrupt_check());
    loop.rethrow_if_stopped();
    return;
  }
  s.job_state.store(State::job_open, std::memory_order_release);
  s.generation.fetch_add(1, std::memory_order_release);
  s.generation.notify_all();
  // Close the job once it is done and empty; a failed close means a worker joined meanwhile.
  for (std::uint64_t state = s.job_state.load(std::memory_order_acquire);;) {
    if ((state & State::job_done) != 0 && (state & State::joined_mask) == 0) {
      if (s.job_state.compare_exchange_weak(state, 0, std::memory_order_acquire, std::memory_order_acquire)) break;
      continue;
    }
    s.wait_for_change(state);
    state = s.job_state.load(std::memory_order_acquire);
  }
  loop.rethrow_if_stopped();
}

}  // namespace smartarrays::runtime
