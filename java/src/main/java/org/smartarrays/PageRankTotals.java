// Owns the Java form of what one pull iteration of a caller-driven PageRank reports besides the
// ranks and contributions it writes (the C ABI's difference and new_dangling).
package org.smartarrays;

/**
 * What one pull iteration ({@link Graph#pagerankStep}, {@link PullPart#step}) reports: the sum of
 * |new rank - previous rank| over its vertices, and the new ranks of its dangling vertices summed
 * (the dangling rank of the next iteration under {@link PageRankOptions.Dangling#UNIFORM}; else 0).
 */
public record PageRankTotals(double difference, double dangling) {}
