// Owns the downcall handles of the C ABI's sa_live entry points (live re-layout): creating and
// re-laying out run as long as the array is big and pinning may wait for a relayout's switch, so
// those are ordinary downcalls; the version and length are short critical calls.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.smartarrays.Native.CRITICAL;
import static org.smartarrays.Native.ORDINARY;
import static org.smartarrays.Native.bind;
import static org.smartarrays.Native.rethrow;
import static org.smartarrays.Native.status;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

final class LiveNative {
  private LiveNative() {}

  private static final MethodHandle CREATE = bind("sa_live_create", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle FREE = bind("sa_live_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle PIN = bind("sa_live_pin", ORDINARY, status(ADDRESS, ADDRESS));
  private static final MethodHandle RELAYOUT = bind("sa_live_relayout", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle VERSION = bind("sa_live_version", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle LENGTH = bind("sa_live_length", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));

  static int create(MemorySegment array, MemorySegment out) {
    try {
      return (int) CREATE.invokeExact(array, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void free(MemorySegment live) {
    try {
      FREE.invokeExact(live);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int pin(MemorySegment live, MemorySegment out) {
    try {
      return (int) PIN.invokeExact(live, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int relayout(MemorySegment live, MemorySegment options, MemorySegment version) {
    try {
      return (int) RELAYOUT.invokeExact(live, options, version);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long version(MemorySegment live) {
    try {
      return (long) VERSION.invokeExact(live);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long length(MemorySegment live) {
    try {
      return (long) LENGTH.invokeExact(live);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
