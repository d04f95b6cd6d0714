"""The shared bit-layout test vectors (tests/data/bitpack_vectors.txt, docs/bit-layout.md): the
package must produce exactly the oracle's packed words and read the oracle's values back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import smartarrays as sa


def load_vectors(path: Path) -> list[tuple[int, list[int], list[int]]]:
    """(bits, values, words) of every line: 'bits n value_0 .. value_n-1 word_0 .. word_m-1' (words in hex)."""
    cases = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        bits, n = int(fields[0]), int(fields[1])
        values = [int(v) for v in fields[2 : 2 + n]]
        words = [int(w, 16) for w in fields[2 + n :]]
        assert len(words) == (n + 63) // 64 * bits, f"malformed vector line for bits={bits} n={n}"
        cases.append((bits, values, words))
    return cases


@pytest.fixture(scope="module")
def vectors(test_data: Path) -> list[tuple[int, list[int], list[int]]]:
    """Every vector of the shared file, which covers every width 1..64."""
    cases = load_vectors(test_data / "bitpack_vectors.txt")
    assert {bits for bits, _, _ in cases} == set(range(1, 65))
    return cases


def test_encoding_matches_the_oracle_words(vectors):
    for bits, values, words in vectors:
        a = sa.array(values, bits=bits)
        assert a.words().tolist() == words, f"bits={bits} n={len(values)}"


def test_decoding_returns_the_oracle_values(vectors):
    for bits, values, _ in vectors:
        a = sa.array(np.array(values, dtype=np.uint64), bits=bits)
        assert a.to_numpy().tolist() == values, f"bits={bits} n={len(values)}"
        assert [a[i] for i in range(len(values))] == values
        assert a.sum() == sum(values) % 2**64


def test_auto_bits_is_the_fewest_that_hold_the_vectors(vectors):
    for bits, values, words in vectors:
        a = sa.array(values)
        assert a.bits == max(values).bit_length() == bits
        assert a.words().tolist() == words
