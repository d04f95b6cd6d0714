// Owns the Java names of the C ABI's sa_write_mode values.
package org.smartarrays;

/** How set reaches the replicas of a replicated array; the ordinals are the C ABI's sa_write_mode codes. */
public enum WriteMode {
  /** "write_through", the default: every set writes every replica. */
  WRITE_THROUGH,
  /** "primary": set writes replica 0 and marks its group dirty; SmartArray.sync() copies dirty groups out. */
  PRIMARY;

  /** The sa_write_mode code. */
  int code() {
    return ordinal();
  }

  static WriteMode of(int code) {
    WriteMode[] all = values();
    if (code < 0 || code >= all.length) {
      throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "unknown sa_write_mode " + code);
    }
    return all[code];
  }
}
