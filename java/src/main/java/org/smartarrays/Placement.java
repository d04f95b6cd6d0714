// Owns the Java names of the C ABI's sa_placement values.
package org.smartarrays;

/** Where an array's pages live (docs/topology-and-placement.md#array-placements); the ordinals are the C ABI's sa_placement codes. */
public enum Placement {
  /** Pages land where first touched (pre-faulted by the allocating thread). */
  OS_DEFAULT,
  /** Every page on one node. */
  SINGLE_NODE,
  /** Pages round-robin over a node set. */
  INTERLEAVED,
  /** One copy per node of a set; each thread reads its own node's copy. */
  REPLICATED,
  /** Contiguous stripes, stripe k on the k-th node of a set. */
  PARTITIONED,
  /** Chosen by the adaptive layer from the machine profile and the access hints (arrays from values only). */
  AUTO;

  /** The sa_placement code. */
  int code() {
    return ordinal();
  }

  static Placement of(int code) {
    Placement[] all = values();
    if (code < 0 || code >= all.length) {
      throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "unknown sa_placement " + code);
    }
    return all[code];
  }
}
