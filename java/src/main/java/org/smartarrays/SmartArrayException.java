// Owns the exception for native failures that are neither a bad argument nor a bad index.
package org.smartarrays;

/** A failure of the native library (out of memory, a refused system call, ...) with its message. */
public final class SmartArrayException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the native call failed; the codes are the C ABI's sa_status values. */
  public enum Reason {
    /** SA_ENOMEM: the kernel refused memory, or a size cannot be represented. */
    OUT_OF_MEMORY(3),
    /** SA_EOS: a system call failed for another reason (for instance mbind refused). */
    OS_ERROR(4),
    /** SA_EUNSUPPORTED: a valid request this build or machine cannot serve. */
    UNSUPPORTED(5),
    /** SA_ECANCELLED: a parallel loop was cancelled, or Thread.interrupt() stopped a long call. */
    CANCELLED(6),
    /** SA_EINTERNAL, or a code this binding does not know: a bug in the library. */
    INTERNAL(7);

    private final int status;

    Reason(int status) {
      this.status = status;
    }

    /** The sa_status code of this reason. */
    public int status() {
      return status;
    }

    static Reason of(int status) {
      for (Reason reason : values()) {
        if (reason.status == status) return reason;
      }
      return INTERNAL;
    }
  }

  /** Why the call failed. */
  private final Reason reason;

  /** A failure for reason with the native message. */
  public SmartArrayException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** Why the call failed. */
  public Reason reason() {
    return reason;
  }
}
