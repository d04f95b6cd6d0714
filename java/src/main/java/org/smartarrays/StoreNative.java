// Owns the downcall handles of the C ABI's store and receiver entry points (sa_store_*,
// sa_receiver_*) and the layout of
// sa_store_object. Writing, opening, verifying, sending and receiving touch files and sockets, so
// they are ordinary downcalls; the count and name lookups are short critical calls.
package org.smartarrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.smartarrays.Native.CRITICAL;
import static org.smartarrays.Native.ORDINARY;
import static org.smartarrays.Native.bind;
import static org.smartarrays.Native.rethrow;
import static org.smartarrays.Native.status;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

final class StoreNative {
  private StoreNative() {}

  /** sa_store_object as laid out by the C ABI (checked there by static_assert). */
  static final StructLayout OBJECT = MemoryLayout.structLayout(
      ADDRESS.withName("name"), ADDRESS.withName("array"), ADDRESS.withName("graph"));

  static final VarHandle OBJECT_NAME = OBJECT.varHandle(MemoryLayout.PathElement.groupElement("name"));
  static final VarHandle OBJECT_ARRAY = OBJECT.varHandle(MemoryLayout.PathElement.groupElement("array"));
  static final VarHandle OBJECT_GRAPH = OBJECT.varHandle(MemoryLayout.PathElement.groupElement("graph"));

  static final int MAP = 0;
  static final int LOAD = 1;
  static final int KIND_ARRAY = 1;

  private static final MethodHandle WRITE = bind("sa_store_write", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle APPEND = bind("sa_store_append", ORDINARY, status(ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle OPEN = bind("sa_store_open", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle CLOSE = bind("sa_store_close", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle COUNT = bind("sa_store_count", CRITICAL, FunctionDescriptor.of(JAVA_LONG, ADDRESS));
  private static final MethodHandle NAME = bind("sa_store_name", CRITICAL, FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle KIND = bind("sa_store_kind", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle ARRAY = bind("sa_store_array", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle GRAPH = bind("sa_store_graph", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle VERIFY = bind("sa_store_verify", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS));
  private static final MethodHandle SEND = bind("sa_store_send", ORDINARY, status(JAVA_INT, ADDRESS, JAVA_LONG));
  private static final MethodHandle SEND_FILE = bind("sa_store_send_file", ORDINARY, status(JAVA_INT, ADDRESS));
  private static final MethodHandle RECV = bind("sa_store_recv", ORDINARY, status(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle RECEIVER_NEW = bind("sa_receiver_new", ORDINARY, status(ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle RECEIVER_FREE = bind("sa_receiver_free", ORDINARY, FunctionDescriptor.ofVoid(ADDRESS));
  private static final MethodHandle RECEIVER_RECV = bind("sa_receiver_recv", ORDINARY, status(ADDRESS, JAVA_INT, ADDRESS));
  private static final MethodHandle RECEIVER_STATS = bind("sa_receiver_stats", ORDINARY, status(ADDRESS, ADDRESS, ADDRESS));

  static int write(MemorySegment path, MemorySegment objects, long n) {
    try {
      return (int) WRITE.invokeExact(path, objects, n);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int append(MemorySegment path, MemorySegment objects, long n) {
    try {
      return (int) APPEND.invokeExact(path, objects, n);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int open(MemorySegment path, int mode, MemorySegment placement, MemorySegment out) {
    try {
      return (int) OPEN.invokeExact(path, mode, placement, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void close(MemorySegment store) {
    try {
      CLOSE.invokeExact(store);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static long count(MemorySegment store) {
    try {
      return (long) COUNT.invokeExact(store);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static MemorySegment name(MemorySegment store, long i) {
    try {
      return (MemorySegment) NAME.invokeExact(store, i);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int kind(MemorySegment store, MemorySegment name, MemorySegment out) {
    try {
      return (int) KIND.invokeExact(store, name, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int array(MemorySegment store, MemorySegment name, MemorySegment out) {
    try {
      return (int) ARRAY.invokeExact(store, name, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int graph(MemorySegment store, MemorySegment name, MemorySegment out) {
    try {
      return (int) GRAPH.invokeExact(store, name, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int verify(MemorySegment path, int deep, MemorySegment problems) {
    try {
      return (int) VERIFY.invokeExact(path, deep, problems);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int send(int fd, MemorySegment objects, long n) {
    try {
      return (int) SEND.invokeExact(fd, objects, n);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int sendFile(int fd, MemorySegment path) {
    try {
      return (int) SEND_FILE.invokeExact(fd, path);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int recv(int fd, MemorySegment placement, long maxBytes, MemorySegment out) {
    try {
      return (int) RECV.invokeExact(fd, placement, maxBytes, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int receiverNew(MemorySegment placement, long maxBytes, MemorySegment out) {
    try {
      return (int) RECEIVER_NEW.invokeExact(placement, maxBytes, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static void receiverFree(MemorySegment receiver) {
    try {
      RECEIVER_FREE.invokeExact(receiver);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int receiverRecv(MemorySegment receiver, int fd, MemorySegment out) {
    try {
      return (int) RECEIVER_RECV.invokeExact(receiver, fd, out);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static int receiverStats(MemorySegment receiver, MemorySegment reservedBytes, MemorySegment reuses) {
    try {
      return (int) RECEIVER_STATS.invokeExact(receiver, reservedBytes, reuses);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
