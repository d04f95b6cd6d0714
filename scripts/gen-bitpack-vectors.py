#!/usr/bin/env python3
"""Owns the generation of tests/data/bitpack_vectors.txt, the bit-layout test vectors (format in
docs/bit-layout.md) that the C++, Java and Python tests check the library against, both ways.

It shares no code with the library on purpose: the stream is built with Python's big integers
(value i shifted to bit i*b), the plainest possible statement of docs/bit-layout.md, so a bug in the
library's kernels cannot be copied into its own oracle. Run once; the output is checked in.

    scripts/gen-bitpack-vectors.py > tests/data/bitpack_vectors.txt
"""
import sys

LENGTHS = (1, 3, 64, 65, 129)  # single value, short partial chunk, exact chunk, chunk + 1, two chunks + 1
MASK64 = (1 << 64) - 1


def splitmix64(state):
    """A fixed generator, so the file is reproducible whatever Python's random module does."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def case_values(bits, n, rng):
    """Edge values (0 and 2^b - 1, including the last value) mixed with random ones of varied magnitude."""
    top = (1 << bits) - 1
    values = []
    for i in range(n):
        if i % 7 == 0 or i == n - 1:
            values.append(top)
        elif i % 7 == 1:
            values.append(0)
        else:
            values.append((next(rng) & top) >> (next(rng) % bits))
    return values


def pack(values, bits):
    """docs/bit-layout.md: value i at bits [i*b, (i+1)*b) of one LSB-first stream, cut into 64-bit words."""
    stream = 0
    for i, v in enumerate(values):
        assert 0 <= v < (1 << bits)
        stream |= v << (i * bits)
    nwords = (len(values) + 63) // 64 * bits
    return [(stream >> (64 * k)) & MASK64 for k in range(nwords)]


def main():
    rng = splitmix64(20180423)
    out = sys.stdout
    out.write("# smartarrays bit-layout test vectors; format: docs/bit-layout.md\n")
    out.write("# bits n value_0 .. value_{n-1} word_0 .. word_{m-1}   (m = ceil(n/64)*bits; words in hex)\n")
    for bits in range(1, 65):
        for n in LENGTHS:
            values = case_values(bits, n, rng)
            words = pack(values, bits)
            fields = [str(bits), str(n)] + [str(v) for v in values] + ["%016x" % w for w in words]
            out.write(" ".join(fields) + "\n")


if __name__ == "__main__":
    main()
