// Owns the Java form of sa_pagerank_options: damping, tolerance, iteration cap, dangling rule and
// score precision, immutable, with the native defaults, and its marshalling into the C struct.
package org.smartarrays;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** PageRank parameters for {@link Graph#pagerank(PageRankOptions)}; immutable, start from {@link #defaults()}. */
public final class PageRankOptions {
  /** What happens to the rank of vertices without out-edges; the ordinals are the C ABI's sa_dangling_rule. */
  public enum Dangling {
    /** It leaves the system, so ranks sum to less than 1 (the paper, GAP's pr_spmv). */
    NONE,
    /** It is spread over every vertex, so ranks sum to 1 (networkx). */
    UNIFORM;

    static Dangling of(int code) {
      Dangling[] all = values();
      if (code < 0 || code >= all.length) {
        throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "unknown sa_dangling_rule " + code);
      }
      return all[code];
    }
  }

  /** Precision of the rank and contribution arrays; the ordinals are the C ABI's sa_score_precision. */
  public enum Scores {
    /** Doubles (exact against the references). */
    F64,
    /** Floats: half the bytes in the random gather, as GAP's reference. */
    F32;

    static Scores of(int code) {
      Scores[] all = values();
      if (code < 0 || code >= all.length) {
        throw new SmartArrayException(SmartArrayException.Reason.INTERNAL, "unknown sa_score_precision " + code);
      }
      return all[code];
    }
  }

  private final double damping;
  private final double tolerance;
  private final int maxIterations;
  private final Dangling dangling;
  private final Scores scores;

  private PageRankOptions(double damping, double tolerance, int maxIterations, Dangling dangling, Scores scores) {
    this.damping = damping;
    this.tolerance = tolerance;
    this.maxIterations = maxIterations;
    this.dangling = dangling;
    this.scores = scores;
  }

  /** The native defaults: damping 0.85, tolerance 1e-3, 100 iterations, {@link Dangling#NONE}, {@link Scores#F64}. */
  public static PageRankOptions defaults() {
    try (Arena scratch = Arena.ofConfined()) {
      MemorySegment o = scratch.allocate(GraphNative.PAGERANK_OPTIONS);
      GraphNative.pagerankOptionsInit(o);
      return new PageRankOptions((double) GraphNative.PAGERANK_DAMPING.get(o, 0L),
          (double) GraphNative.PAGERANK_TOLERANCE.get(o, 0L), (int) GraphNative.PAGERANK_MAX_ITERATIONS.get(o, 0L),
          Dangling.of((int) GraphNative.PAGERANK_DANGLING.get(o, 0L)),
          Scores.of((int) GraphNative.PAGERANK_SCORES.get(o, 0L)));
    }
  }

  /** These options with damping d (0..1) in rank = (1 - d) / n + d * (incoming contributions). */
  public PageRankOptions withDamping(double damping) {
    return new PageRankOptions(damping, tolerance, maxIterations, dangling, scores);
  }

  /** These options stopping once the sum of |rank - previous rank| is below tolerance. */
  public PageRankOptions withTolerance(double tolerance) {
    return new PageRankOptions(damping, tolerance, maxIterations, dangling, scores);
  }

  /** These options stopping after maxIterations (>= 1; a run refuses 0) iterations even if not converged. */
  public PageRankOptions withMaxIterations(int maxIterations) {
    Native.requireNonNegative(maxIterations, "maxIterations");
    return new PageRankOptions(damping, tolerance, maxIterations, dangling, scores);
  }

  /** These options with the dangling-vertex rule. */
  public PageRankOptions withDangling(Dangling dangling) {
    Objects.requireNonNull(dangling, "dangling");
    return new PageRankOptions(damping, tolerance, maxIterations, dangling, scores);
  }

  /** These options with the rank and contribution arrays in precision scores (ranks come back as doubles). */
  public PageRankOptions withScores(Scores scores) {
    Objects.requireNonNull(scores, "scores");
    return new PageRankOptions(damping, tolerance, maxIterations, dangling, scores);
  }

  /** The damping factor. */
  public double damping() {
    return damping;
  }

  /** The convergence threshold. */
  public double tolerance() {
    return tolerance;
  }

  /** The iteration cap. */
  public int maxIterations() {
    return maxIterations;
  }

  /** The dangling-vertex rule. */
  public Dangling dangling() {
    return dangling;
  }

  /** The precision of the rank and contribution arrays. */
  public Scores scores() {
    return scores;
  }

  /** An sa_pagerank_options in arena holding these options. */
  MemorySegment marshal(Arena arena) {
    MemorySegment o = arena.allocate(GraphNative.PAGERANK_OPTIONS);
    GraphNative.pagerankOptionsInit(o);
    GraphNative.PAGERANK_DAMPING.set(o, 0L, damping);
    GraphNative.PAGERANK_TOLERANCE.set(o, 0L, tolerance);
    GraphNative.PAGERANK_MAX_ITERATIONS.set(o, 0L, maxIterations);
    GraphNative.PAGERANK_DANGLING.set(o, 0L, dangling.ordinal());
    GraphNative.PAGERANK_SCORES.set(o, 0L, scores.ordinal());
    return o;
  }

  @Override
  public String toString() {
    return "PageRankOptions[damping " + damping + ", tolerance " + tolerance + ", " + maxIterations
        + " iterations, dangling " + dangling + ", scores " + scores + "]";
  }
}
