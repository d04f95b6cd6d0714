// Owns the downcall handles of the C ABI (include/smartarrays.h) and the translation of an
// sa_status into a Java exception. Short, bounded calls are critical (no thread-state transition);
// those handed heap segments are critical with heap access, which is legal because no critical call
// calls back into Java. Calls that may run long (allocation, whole-array sums, page queries,
// pinning, graphs, stores) are ordinary downcalls so they never hold up a safepoint, and run with
// the library's interrupt check installed: its one upcall reports Thread.interrupt().
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Objects;

final class Native {
  private Native() {}

  /** sa_status codes the binding maps to standard exceptions. */
  static final int SA_OK = 0;
  static final int SA_EINVAL = 1;
  static final int SA_ERANGE = 2;
  static final int SA_ECANCELLED = 6;

  /** Values per critical heap-access call, so one call never holds up a safepoint for long (2 MiB of output). */
  static final int MAX_CRITICAL_VALUES = 1 << 18;

  /** sa_options as laid out by the C ABI (checked there by static_assert). */
  static final StructLayout OPTIONS = MemoryLayout.structLayout(
      JAVA_INT.withName("placement"),
      JAVA_INT.withName("node"),
      JAVA_INT.withName("bits"),
      JAVA_INT.withName("huge_pages"),
      ADDRESS.withName("nodes"),
      JAVA_INT.withName("node_count"),
      MemoryLayout.paddingLayout(4),
      MemoryLayout.structLayout(
          JAVA_INT.withName("read_only"),
          JAVA_INT.withName("pattern"),
          JAVA_DOUBLE.withName("passes"),
          JAVA_INT.withName("threads"),
          MemoryLayout.paddingLayout(4)).withName("hints"),
      JAVA_INT.withName("write_mode"),
      MemoryLayout.paddingLayout(4));

  /** sa_options.bits asking the adaptive layer to choose the width (SA_BITS_AUTO). */
  static final int BITS_AUTO = -1;

  static final VarHandle OPTIONS_PLACEMENT = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("placement"));
  static final VarHandle OPTIONS_NODE = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("node"));
  static final VarHandle OPTIONS_BITS = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("bits"));
  static final VarHandle OPTIONS_HUGE_PAGES = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("huge_pages"));
  static final VarHandle OPTIONS_NODES = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("nodes"));
  static final VarHandle OPTIONS_NODE_COUNT = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("node_count"));
  static final VarHandle OPTIONS_WRITE_MODE = OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("write_mode"));
  static final VarHandle OPTIONS_READ_ONLY = hint("read_only");
  static final VarHandle OPTIONS_PATTERN = hint("pattern");
  static final VarHandle OPTIONS_PASSES = hint("passes");
  static final VarHandle OPTIONS_THREADS = hint("threads");

  private static VarHandle hint(String name) {
    return OPTIONS.varHandle(MemoryLayout.PathElement.groupElement("hints"), MemoryLayout.PathElement.groupElement(name));
  }

  private static final Linker LINKER = Linker.nativeLinker();
  private static final SymbolLookup LIBRARY = NativeLibrary.load();
  static final Linker.Option[] ORDINARY = {};
  static final Linker.Option[] CRITICAL = {Linker.Option.critical(false)};
  private static final Linker.Option[] CRITICAL_HEAP = {Linker.Option.critical(true)};

  /** Installs, then removes, the calling thread's interrupt check (sa_set_interrupt_check), as ()void calls. */
  private static final MethodHandle INSTALL_INTERRUPT_CHECK;
  private static final MethodHandle REMOVE_INTERRUPT_CHECK;

  static {
    MethodHandle set = downcall("sa_set_interrupt_check", CRITICAL, status(ADDRESS, ADDRESS));
    INSTALL_INTERRUPT_CHECK = MethodHandles.dropReturn(MethodHandles.insertArguments(set, 0, interruptCheck(), MemorySegment.NULL));
    REMOVE_INTERRUPT_CHECK =
        MethodHandles.dropReturn(MethodHandles.insertArguments(set, 0, MemorySegment.NULL, MemorySegment.NULL));
  }

  /** The interrupt check the library polls during a long call: 1 once the calling Java thread is interrupted. */
  private static int interrupted(MemorySegment context) {
    return Thread.currentThread().isInterrupted() ? 1 : 0;
  }

  @SuppressWarnings("restricted") // the one upcall: the library's interrupt check
  private static MemorySegment interruptCheck() {
    try {
      MethodHandle check = MethodHandles.lookup().findStatic(
          Native.class, "interrupted", MethodType.methodType(int.class, MemorySegment.class));
      return LINKER.upcallStub(check, FunctionDescriptor.of(JAVA_INT, ADDRESS), Arena.global());
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @SuppressWarnings("restricted") // linking downcalls is this class's job
  private static MethodHandle downcall(String name, Linker.Option[] options, FunctionDescriptor descriptor) {
    MemorySegment symbol = LIBRARY.find(name).orElseThrow(
        () -> new UnsatisfiedLinkError("libsmartarrays.so lacks " + name + " (a library older than this jar?)"));
    return LINKER.downcallHandle(symbol, descriptor, options);
  }

  /**
   * The downcall of name. An ordinary (possibly long) call runs with the interrupt check installed on its
   * thread and removed after it, so Thread.interrupt() stops it (SmartArrayException, Reason.CANCELLED, the
   * thread's interrupt status kept); a critical call never has it, since it must not call back into Java.
   */
  static MethodHandle bind(String name, Linker.Option[] options, FunctionDescriptor descriptor) {
    MethodHandle call = downcall(name, options, descriptor);
    if (options != ORDINARY) return call;
    Class<?> result = call.type().returnType();
    MethodHandle cleanup = result == void.class
        ? MethodHandles.dropArguments(REMOVE_INTERRUPT_CHECK, 0, Throwable.class)
        : MethodHandles.foldArguments(
            MethodHandles.dropArguments(MethodHandles.identity(result), 0, Throwable.class), REMOVE_INTERRUPT_CHECK);
    return MethodHandles.tryFinally(MethodHandles.foldArguments(call, INSTALL_INTERRUPT_CHECK), cleanup);
  }

  static FunctionDescriptor status(MemoryLayout... arguments) {
    return FunctionDescriptor.of(JAVA_INT, arguments);
  }

  private static final MethodHandle VERSION = bind("sa_version", CRITICAL, FunctionDescriptor.of(ADDRESS));
  private static final MethodHandle LAST_ERROR = bind("sa_last_error", CRITICAL, FunctionDescriptor.of(ADDRESS));
  private static final MethodHandle OPTIONS_INIT = bind("sa_options_init", CRITICAL, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle FROM_U64 =
      bind("sa_array_from_u64", ORDINARY, status(ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle FROM_U32 =
      bind("sa_array_from_u32", ORDINARY, status(ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle ALLOC = bind("sa_array_alloc", ORDINARY, status(JAVA_LONG, ADDRESS, ADDRESS));
  private static final MethodHandle FREE = bind("sa_array_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle LENGTH = bind("sa_array_length", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle BITS = bind("sa_array_bits", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle PLACEMENT =
      bind("sa_array_placement", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle REPLICAS = bind("sa_array_replicas", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle MEMORY_BYTES =
      bind("sa_array_memory_bytes", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle LOCAL_REPLICA =
      bind("sa_array_local_replica", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle GET = bind("sa_array_get", CRITICAL_HEAP, status(ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle SET = bind("sa_array_set", CRITICAL, status(ADDRESS, JAVA_LONG, JAVA_LONG));
  private static final MethodHandle DECODE =
      bind("sa_array_decode", CRITICAL_HEAP, status(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
  private static final MethodHandle SUM = bind("sa_array_sum", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle SUM_RANGE =
      bind("sa_array_sum_range", ORDINARY, status(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
  private static final MethodHandle SUM_RANGE_SHORT =
      bind("sa_array_sum_range", CRITICAL_HEAP, status(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
  private static final MethodHandle WORDS =
      bind("sa_array_words", CRITICAL_HEAP, status(ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle PAGES_PER_NODE =
      bind("sa_array_pages_per_node", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle MIN_BITS = bind("sa_min_bits", CRITICAL, FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
  private static final MethodHandle TOPOLOGY_NODES = bind("sa_topology_nodes", CRITICAL, FunctionDescriptor.of(JAVA_INT));
  private static final MethodHandle TOPOLOGY_NODE_CPUS =
      bind("sa_topology_node_cpus", CRITICAL_HEAP, status(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
  private static final MethodHandle TOPOLOGY_NODE_MEMORY =
      bind("sa_topology_node_memory", CRITICAL_HEAP, status(JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle TOPOLOGY_DISTANCE =
      bind("sa_topology_distance", CRITICAL, FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
  private static final MethodHandle TOPOLOGY_IS_FAKE =
      bind("sa_topology_is_fake", CRITICAL, FunctionDescriptor.of(JAVA_INT));
  private static final MethodHandle TOPOLOGY_SET_FAKE = bind("sa_topology_set_fake", ORDINARY, status(ADDRESS));
  private static final MethodHandle MACHINE_FACTS_JSON = bind("sa_machine_facts_json", ORDINARY, status(ADDRESS));
  private static final MethodHandle DECISION_JSON = bind("sa_array_decision_json", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle HUGE_PAGES = bind("sa_array_huge_pages", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle HUGE_PAGE_BYTES =
      bind("sa_array_huge_page_bytes", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS));
  private static final MethodHandle CRC32C = bind("sa_array_crc32c", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS));
  private static final MethodHandle REPLICAS_EQUAL = bind("sa_array_replicas_equal", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle COPY_FROM = bind("sa_array_copy_from", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle FILL = bind("sa_array_fill", ORDINARY, status(ADDRESS, JAVA_LONG));
  private static final MethodHandle SYNC = bind("sa_array_sync", ORDINARY, status(ADDRESS));
  private static final MethodHandle WRITE_MODE = bind("sa_array_write_mode", CRITICAL, FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle CURRENT_NODE = bind("sa_current_node", CRITICAL, FunctionDescriptor.of(JAVA_INT));
  private static final MethodHandle PIN_THREAD_TO_NODE = bind("sa_pin_thread_to_node", ORDINARY, status(JAVA_INT));
  private static final MethodHandle RUNTIME_THREADS = bind("sa_runtime_threads", ORDINARY, FunctionDescriptor.of(JAVA_INT));
  private static final MethodHandle RUNTIME_WORKER_NODES =
      bind("sa_runtime_worker_nodes", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS));
  private static final MethodHandle LOOP_CREATE =
      bind("sa_loop_create", ORDINARY, status(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
  private static final MethodHandle LOOP_NEXT =
      bind("sa_loop_next", CRITICAL_HEAP, status(ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle LOOP_CANCEL = bind("sa_loop_cancel", CRITICAL, status(ADDRESS));
  private static final MethodHandle LOOP_FREE = bind("sa_loop_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));

  static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) throw r;
    if (t instanceof Error e) throw e;
    throw new AssertionError("a downcall threw a checked exception", t);
  }

  /** Throws the exception for status (with this thread's sa_last_error message) unless it is SA_OK. */
  static void check(int status) {
    if (status != SA_OK) throw failure(status);
  }

  /** The Java exception for a failed status, carrying the native message. */
  static RuntimeException failure(int status) {
    String message = lastError();
    return switch (status) {
      case SA_EINVAL -> new IllegalArgumentException(message);
      case SA_ERANGE -> new IndexOutOfBoundsException(message);
      default -> new SmartArrayException(SmartArrayException.Reason.of(status), message);
    };
  }

  @SuppressWarnings("restricted") // a C string's size is known only once read
  static String string(MemorySegment cString) {
    return cString.reinterpret(Long.MAX_VALUE).getString(0);
  }

  /**
   * text as a NUL-terminated UTF-8 C string in arena. IllegalArgumentException naming what when C
   * would receive something else: a NUL character (the string would end there) or an unpaired
   * surrogate (UTF-8 cannot encode it; Java would send '?').
   */
  static MemorySegment cString(Arena arena, String text, String what) {
    Objects.requireNonNull(text, what);
    int nul = text.indexOf('\0');
    if (nul >= 0) {
      throw new IllegalArgumentException(what + " holds a NUL character at index " + nul + ", where a C string ends");
    }
    if (!StandardCharsets.UTF_8.newEncoder().canEncode(text)) {
      throw new IllegalArgumentException(what + " holds an unpaired surrogate, which UTF-8 cannot encode");
    }
    return arena.allocateFrom(text);
  }

  /** path as the C string the library opens; IllegalArgumentException for a path of another file system (a zip, ...). */
  static MemorySegment path(Arena arena, Path path, String what) {
    Objects.requireNonNull(path, what);
    if (path.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException(what + " " + path.toUri() + " is not on the default file system, the only "
          + "one the native library can open");
    }
    return cString(arena, path.toString(), what);
  }

  /** Throws IllegalArgumentException naming value when it is negative (the C ABI takes it unsigned). */
  static void requireNonNegative(long value, String name) {
    if (value < 0) throw new IllegalArgumentException(name + " " + value + " is negative");
  }

  static String version() {
    try {
      return string((MemorySegment) VERSION.invokeExact());
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static String lastError() {
    try {
      return string((MemorySegment) LAST_ERROR.invokeExact());
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void optionsInit(MemorySegment options) {
    try {
      OPTIONS_INIT.invokeExact(options);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int fromU64(MemorySegment values, long n, MemorySegment options, MemorySegment out) {
    try {
      return (int) FROM_U64.invokeExact(values, n, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int fromU32(MemorySegment values, long n, MemorySegment options, MemorySegment out) {
    try {
      return (int) FROM_U32.invokeExact(values, n, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int alloc(long n, MemorySegment options, MemorySegment out) {
    try {
      return (int) ALLOC.invokeExact(n, options, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void free(MemorySegment array) {
    try {
      FREE.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long length(MemorySegment array) {
    try {
      return (long) LENGTH.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int bits(MemorySegment array) {
    try {
      return (int) BITS.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int placement(MemorySegment array) {
    try {
      return (int) PLACEMENT.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int replicas(MemorySegment array) {
    try {
      return (int) REPLICAS.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long memoryBytes(MemorySegment array) {
    try {
      return (long) MEMORY_BYTES.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int localReplica(MemorySegment array) {
    try {
      return (int) LOCAL_REPLICA.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int get(MemorySegment array, long i, MemorySegment out) {
    try {
      return (int) GET.invokeExact(array, i, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int set(MemorySegment array, long i, long value) {
    try {
      return (int) SET.invokeExact(array, i, value);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Decodes values [start, start + n) into out; n must be at most MAX_CRITICAL_VALUES. */
  static int decode(MemorySegment array, long start, long n, MemorySegment out) {
    try {
      return (int) DECODE.invokeExact(array, start, n, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int sum(MemorySegment array, MemorySegment out) {
    try {
      return (int) SUM.invokeExact(array, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int sumRange(MemorySegment array, long start, long n, MemorySegment out) {
    try {
      return (int) SUM_RANGE.invokeExact(array, start, n, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** sa_array_sum_range as a critical call (out may be on the heap); n must be at most MAX_CRITICAL_VALUES. */
  static int sumRangeShort(MemorySegment array, long start, long n, MemorySegment out) {
    try {
      return (int) SUM_RANGE_SHORT.invokeExact(array, start, n, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int words(MemorySegment array, int replica, MemorySegment words, MemorySegment nwords) {
    try {
      return (int) WORDS.invokeExact(array, replica, words, nwords);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int pagesPerNode(MemorySegment array, int replica, MemorySegment counts, int maxNodes) {
    try {
      return (int) PAGES_PER_NODE.invokeExact(array, replica, counts, maxNodes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int minBits(long max) {
    try {
      return (int) MIN_BITS.invokeExact(max);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int topologyNodes() {
    try {
      return (int) TOPOLOGY_NODES.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int topologyNodeCpus(int node, MemorySegment cpus, int max, MemorySegment count) {
    try {
      return (int) TOPOLOGY_NODE_CPUS.invokeExact(node, cpus, max, count);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int topologyNodeMemory(int node, MemorySegment total, MemorySegment free) {
    try {
      return (int) TOPOLOGY_NODE_MEMORY.invokeExact(node, total, free);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int topologyDistance(int a, int b) {
    try {
      return (int) TOPOLOGY_DISTANCE.invokeExact(a, b);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int topologyIsFake() {
    try {
      return (int) TOPOLOGY_IS_FAKE.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int topologySetFake(MemorySegment spec) {
    try {
      return (int) TOPOLOGY_SET_FAKE.invokeExact(spec);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static String decisionJson(MemorySegment array) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment json = arena.allocate(ADDRESS);
      check((int) DECISION_JSON.invokeExact(array, json));
      return string(json.get(ADDRESS, 0));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int hugePages(MemorySegment array) {
    try {
      return (int) HUGE_PAGES.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int crc32c(MemorySegment array, int replica, MemorySegment out) {
    try {
      return (int) CRC32C.invokeExact(array, replica, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int copyFrom(MemorySegment array, MemorySegment source) {
    try {
      return (int) COPY_FROM.invokeExact(array, source);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int fill(MemorySegment array, long value) {
    try {
      return (int) FILL.invokeExact(array, value);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int sync(MemorySegment array) {
    try {
      return (int) SYNC.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int writeMode(MemorySegment array) {
    try {
      return (int) WRITE_MODE.invokeExact(array);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int replicasEqual(MemorySegment array, MemorySegment out) {
    try {
      return (int) REPLICAS_EQUAL.invokeExact(array, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int hugePageBytes(MemorySegment array, int replica, MemorySegment out) {
    try {
      return (int) HUGE_PAGE_BYTES.invokeExact(array, replica, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static String machineFactsJson() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment json = arena.allocate(ADDRESS);
      check((int) MACHINE_FACTS_JSON.invokeExact(json));
      return string(json.get(ADDRESS, 0));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int currentNode() {
    try {
      return (int) CURRENT_NODE.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int pinThreadToNode(int node) {
    try {
      return (int) PIN_THREAD_TO_NODE.invokeExact(node);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Worker threads of the native default pool (starts that pool on first use, which may take a while). */
  static int runtimeThreads() {
    try {
      return (int) RUNTIME_THREADS.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int runtimeWorkerNodes(MemorySegment nodes, int max, MemorySegment count) {
    try {
      return (int) RUNTIME_WORKER_NODES.invokeExact(nodes, max, count);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int loopCreate(long begin, long end, long batch, MemorySegment out) {
    try {
      return (int) LOOP_CREATE.invokeExact(begin, end, batch, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int loopNext(MemorySegment loop, int node, MemorySegment lo, MemorySegment hi) {
    try {
      return (int) LOOP_NEXT.invokeExact(loop, node, lo, hi);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int loopCancel(MemorySegment loop) {
    try {
      return (int) LOOP_CANCEL.invokeExact(loop);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void loopFree(MemorySegment loop) {
    try {
      LOOP_FREE.invokeExact(loop);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
