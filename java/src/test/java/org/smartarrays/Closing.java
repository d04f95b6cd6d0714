// Test support: closing an object that another thread may still be calling (close() refuses with
// IllegalStateException while a call holds it, and succeeds once none does).
package org.smartarrays;

final class Closing {
  private Closing() {}

  /** Runs close, again while it fails because another thread's call holds the object. */
  static void closeWhenIdle(Runnable close) {
    while (true) {
      try {
        close.run();
        return;
      } catch (IllegalStateException busy) {
        Thread.onSpinWait();
      }
    }
  }
}
