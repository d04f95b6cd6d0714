// Owns the Java form of sa_graph_options: the variant, edge handling and placement of a graph's
// arrays, immutable, and its marshalling into the C struct.
package org.smartarrays;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * How a {@link Graph} is built: its compression {@link Graph.Variant}, whether repeated edges and
 * self-loops are kept, whether edges stand for both directions, and where its arrays go. Immutable;
 * start from {@link #defaults()} and change fields with the with* methods.
 *
 * <p>{@link #withPlacement(String)} and {@link #withBits(String)} take the lists of the command's
 * {@code --placement} and {@code --bits} flags (docs/c-api.md): {@code "interleaved,redge=replicated"}
 * places every array interleaved but redge replicated; {@code "edge=24"} stores edge with 24 bits.
 */
public final class GraphOptions {
  private final Graph.Variant variant;
  private final boolean dedup;
  private final boolean dropSelfLoops;
  private final boolean undirected;
  private final ArrayOptions arrays;
  private final String placement;
  private final String bits;

  private GraphOptions(Graph.Variant variant, boolean dedup, boolean dropSelfLoops, boolean undirected,
      ArrayOptions arrays, String placement, String bits) {
    this.variant = variant;
    this.dedup = dedup;
    this.dropSelfLoops = dropSelfLoops;
    this.undirected = undirected;
    this.arrays = arrays;
    this.placement = placement;
    this.bits = bits;
  }

  /** The native defaults: variant V+E, edges taken as they are (directed, repeats and self-loops kept), OS default placement. */
  public static GraphOptions defaults() {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment o = scratch.allocate(GraphNative.OPTIONS);
      GraphNative.optionsInit(o);
      return new GraphOptions(Graph.Variant.of((int) GraphNative.OPTIONS_VARIANT.get(o, 0L)),
          (int) GraphNative.OPTIONS_DEDUP.get(o, 0L) != 0, (int) GraphNative.OPTIONS_DROP_SELF_LOOPS.get(o, 0L) != 0,
          (int) GraphNative.OPTIONS_UNDIRECTED.get(o, 0L) != 0, ArrayOptions.defaults(), null, null);
    }
  }

  /** These options with the arrays' widths of variant. */
  public GraphOptions withVariant(Graph.Variant variant) {
    Objects.requireNonNull(variant, "variant");
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** These options keeping one copy of repeated edges (or not). */
  public GraphOptions withDedup(boolean dedup) {
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** These options dropping edges v -> v (or not). */
  public GraphOptions withDropSelfLoops(boolean dropSelfLoops) {
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** These options with every edge standing for both directions (or not); not for .sg files, which say it. */
  public GraphOptions withUndirected(boolean undirected) {
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** These options placing every array as arrays says (its bits must be 0: the variant and withBits choose widths). */
  public GraphOptions withArrays(ArrayOptions arrays) {
    Objects.requireNonNull(arrays, "arrays");
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** These options with placements by name, "PLACEMENT,ARRAY=PLACEMENT,..." (null: none). */
  public GraphOptions withPlacement(String placement) {
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** These options with widths by name replacing the variant's, "ARRAY=BITS,..." (null: none). */
  public GraphOptions withBits(String bits) {
    return new GraphOptions(variant, dedup, dropSelfLoops, undirected, arrays, placement, bits);
  }

  /** The compression variant. */
  public Graph.Variant variant() {
    return variant;
  }

  /** Whether repeated edges are kept once. */
  public boolean dedup() {
    return dedup;
  }

  /** Whether edges v -> v are dropped. */
  public boolean dropSelfLoops() {
    return dropSelfLoops;
  }

  /** Whether every edge stands for both directions. */
  public boolean undirected() {
    return undirected;
  }

  /** The placement of every array. */
  public ArrayOptions arrays() {
    return arrays;
  }

  /** The placements by name, or null. */
  public String placement() {
    return placement;
  }

  /** The widths by name, or null. */
  public String bits() {
    return bits;
  }

  /** An sa_graph_options in arena holding these options. */
  MemorySegment marshal(Arena arena) {
    MemorySegment o = arena.allocate(GraphNative.OPTIONS);
    GraphNative.optionsInit(o);
    GraphNative.OPTIONS_VARIANT.set(o, 0L, variant.code());
    GraphNative.OPTIONS_DEDUP.set(o, 0L, dedup ? 1 : 0);
    GraphNative.OPTIONS_DROP_SELF_LOOPS.set(o, 0L, dropSelfLoops ? 1 : 0);
    GraphNative.OPTIONS_UNDIRECTED.set(o, 0L, undirected ? 1 : 0);
    o.asSlice(GraphNative.OPTIONS_ARRAYS_OFFSET, Native.OPTIONS.byteSize())
        .copyFrom(SmartArray.marshal(arrays, arena));
    GraphNative.OPTIONS_PLACEMENT.set(o, 0L, placement == null ? MemorySegment.NULL : Native.cString(arena, placement, "placement"));
    GraphNative.OPTIONS_BITS.set(o, 0L, bits == null ? MemorySegment.NULL : Native.cString(arena, bits, "bits"));
    return o;
  }

  @Override
  public String toString() {
    return "GraphOptions[" + variant + (dedup ? ", dedup" : "") + (dropSelfLoops ? ", without self-loops" : "")
        + (undirected ? ", undirected" : "") + ", " + arrays + (placement != null ? ", placement " + placement : "")
        + (bits != null ? ", bits " + bits : "") + "]";
  }
}
