// Owns the Java form of sa_options: placement, node or node set, bits, huge-page and write modes, immutable.
package org.smartarrays;

import java.util.Arrays;
import java.util.Objects;

/** How to allocate a smart array; immutable, built from a placement factory and the with* methods. */
public final class ArrayOptions {
  private static final int[] ALL_NODES = new int[0];

  private final Placement placement;
  private final int node;
  private final int[] nodes;
  private final int bits;
  private final HugePages hugePages;
  private final boolean autoBits;
  private final AccessHints hints;
  private final WriteMode writeMode;

  private ArrayOptions(Placement placement, int node, int[] nodes, int bits, HugePages hugePages) {
    this(placement, node, nodes, bits, hugePages, false, AccessHints.defaults(), WriteMode.WRITE_THROUGH);
  }

  private ArrayOptions(Placement placement, int node, int[] nodes, int bits, HugePages hugePages, boolean autoBits,
      AccessHints hints, WriteMode writeMode) {
    this.placement = placement;
    this.node = node;
    this.nodes = nodes;
    this.bits = bits;
    this.hugePages = hugePages;
    this.autoBits = autoBits;
    this.hints = hints;
    this.writeMode = writeMode;
  }

  /** Placement, huge pages and bits chosen by the adaptive layer (Placement.AUTO with auto bits). */
  public static ArrayOptions auto() {
    return new ArrayOptions(Placement.AUTO, 0, ALL_NODES, 0, HugePages.AUTO, true, AccessHints.defaults(), WriteMode.WRITE_THROUGH);
  }

  /** These options with the bit width chosen by the adaptive layer (the fewest bits, or 64). */
  public ArrayOptions withAutoBits() {
    return new ArrayOptions(placement, node, nodes, 0, hugePages, true, hints, writeMode);
  }

  /** These options with access hints (read by Placement.AUTO and auto bits). */
  public ArrayOptions withHints(AccessHints hints) {
    return new ArrayOptions(placement, node, nodes, bits, hugePages, autoBits, Objects.requireNonNull(hints, "hints"), writeMode);
  }

  /** Whether the adaptive layer chooses the bit width. */
  public boolean autoBits() {
    return autoBits;
  }

  /** The access hints. */
  public AccessHints hints() {
    return hints;
  }

  /** OS default placement, the fewest bits that hold the data, huge pages AUTO. */
  public static ArrayOptions defaults() {
    return new ArrayOptions(Placement.OS_DEFAULT, 0, ALL_NODES, 0, HugePages.AUTO);
  }

  /** Every page on node. */
  public static ArrayOptions singleNode(int node) {
    return new ArrayOptions(Placement.SINGLE_NODE, node, ALL_NODES, 0, HugePages.AUTO);
  }

  /** Pages round-robin over nodes (none given = every node with memory). */
  public static ArrayOptions interleaved(int... nodes) {
    return new ArrayOptions(Placement.INTERLEAVED, 0, Objects.requireNonNull(nodes, "nodes").clone(), 0, HugePages.AUTO);
  }

  /** One copy per node of nodes (none given = every node with memory). */
  public static ArrayOptions replicated(int... nodes) {
    return new ArrayOptions(Placement.REPLICATED, 0, Objects.requireNonNull(nodes, "nodes").clone(), 0, HugePages.AUTO);
  }

  /** Contiguous stripes, stripe k on nodes[k] (none given = every node with memory). */
  public static ArrayOptions partitioned(int... nodes) {
    return new ArrayOptions(Placement.PARTITIONED, 0, Objects.requireNonNull(nodes, "nodes").clone(), 0, HugePages.AUTO);
  }

  /** These options with bits per value (1..64, or 0 for the fewest that hold the data); IllegalArgumentException otherwise. */
  public ArrayOptions withBits(int bits) {
    // Checked here, not only natively: C reads the field unsigned, where -1 is SA_BITS_AUTO.
    if (bits < 0 || bits > Long.SIZE) {
      throw new IllegalArgumentException("bits must be 1..64, or 0 for the fewest that hold the data, got " + bits);
    }
    return new ArrayOptions(placement, node, nodes, bits, hugePages, false, hints, writeMode);
  }

  /** These options with a huge-page mode (AUTO, ON, OFF, PAGES_2M, PAGES_1G). */
  public ArrayOptions withHugePages(HugePages hugePages) {
    return new ArrayOptions(placement, node, nodes, bits, Objects.requireNonNull(hugePages, "hugePages"), autoBits, hints, writeMode);
  }

  /** These options with transparent huge pages ON (true) or OFF (false). */
  public ArrayOptions withHugePages(boolean hugePages) {
    return withHugePages(hugePages ? HugePages.ON : HugePages.OFF);
  }

  /** The placement. */
  public Placement placement() {
    return placement;
  }

  /** The node of a single-node placement (0 otherwise). */
  public int node() {
    return node;
  }

  /** The node set of interleaved, replicated and partitioned placements (empty = all nodes). */
  public int[] nodes() {
    return nodes.clone();
  }

  /** Bits per value, 0 = the fewest that hold the data. */
  public int bits() {
    return bits;
  }

  /** The huge-page mode. */
  public HugePages hugePages() {
    return hugePages;
  }

  /** These options with a write mode (WRITE_THROUGH, or PRIMARY: set writes replica 0 until SmartArray.sync()). */
  public ArrayOptions withWriteMode(WriteMode writeMode) {
    return new ArrayOptions(placement, node, nodes, bits, hugePages, autoBits, hints,
        Objects.requireNonNull(writeMode, "writeMode"));
  }

  /** The write mode. */
  public WriteMode writeMode() {
    return writeMode;
  }

  int[] nodesShared() {
    return nodes;
  }

  @Override
  public String toString() {
    return "ArrayOptions[" + placement + (placement == Placement.SINGLE_NODE ? " node " + node : "")
        + (nodes.length > 0 ? " nodes " + Arrays.toString(nodes) : "") + ", bits " + (autoBits ? "adaptive" : bits == 0 ? "auto" : bits)
        + ", huge pages " + hugePages.label() + (writeMode == WriteMode.PRIMARY ? ", primary writes" : "") + "]";
  }
}
