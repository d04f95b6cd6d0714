// Owns the count of calls that use a native object where the FFM runtime does not keep it alive: a
// downcall keeps the segments it takes as arguments alive (closing their arena meanwhile fails), but
// not a handle written into a struct it takes (Store's object lists), nor memory of the object read
// after the call returned (a C string it owns, such as Store's names). Those calls count themselves in
// here, and the owner's close() fails as it does under a downcall instead of freeing the object under them.
package org.smartarrays;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

final class InUse {
  // The number of counted calls inside, or CLOSING while an owner closes its arena.
  private static final int CLOSING = -1;
  private final AtomicInteger users = new AtomicInteger();

  /** Counts one more call using handle; IllegalStateException with message freed once handle is freed. */
  void enter(MemorySegment handle, String freed) {
    while (true) {
      if (!handle.scope().isAlive()) throw new IllegalStateException(freed);
      int n = users.get();
      if (n == CLOSING) {
        Thread.onSpinWait();
      } else if (users.compareAndSet(n, n + 1)) {
        // A close may have ended between the check and the count: then this call must not go on.
        if (handle.scope().isAlive()) return;
        exit();
      }
    }
  }

  /** Ends a call that enter() counted. */
  void exit() {
    users.decrementAndGet();
  }

  /**
   * Runs close, which frees the native object and closes arena, unless a counted call is inside
   * (IllegalStateException naming what, as a close under a downcall fails); false without running it
   * when arena is already closed.
   */
  boolean close(Arena arena, String what, Runnable close) {
    while (true) {
      if (!arena.scope().isAlive()) return false;
      int n = users.get();
      if (n > 0) throw new IllegalStateException(what + " is in use by another thread");
      if (n == 0 && users.compareAndSet(0, CLOSING)) break;
      Thread.onSpinWait();
    }
    try {
      close.run();
      return true;
    } finally {
      users.set(0);
    }
  }
}
