// Owns the input data of the paper's aggregation (§5.1), a[i] = (i + random{0,1,2}) & (2^bits - 1),
// with the same counter-based generator as the C++ workload (algo::aggregation_value), so the
// Java-driven runs read the very values the C++-driven runs of `smartarrays bench aggregate` read.
package org.smartarrays.bench;

final class AggregationData {
  private AggregationData() {}

  /** splitmix64, as algo::mix64. */
  static long mix64(long x) {
    x += 0x9e3779b97f4a7c15L;
    x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
    return x ^ (x >>> 31);
  }

  /** Values 0..length-1 of the aggregation data for bits and seed. */
  static long[] values(int length, int bits, long seed) {
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    long[] values = new long[length];
    for (int i = 0; i < length; i++) values[i] = (i + Long.remainderUnsigned(mix64(seed ^ mix64(i)), 3)) & mask;
    return values;
  }
}
