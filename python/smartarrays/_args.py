"""Argument normalisation shared by the package's constructors: placement and node arguments,
bit widths, and integer array-likes as contiguous unsigned numpy arrays the core takes."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Literal, Union

import numpy as np
import numpy.typing as npt

from ._core import SmartArray

Placement = Literal["os_default", "single_node", "interleaved", "replicated", "partitioned"]
"""The placement names the core accepts."""

HugePages = Union[Literal["auto", "on", "off", "2M", "1G"], bool]
"""The huge-page modes the core accepts; True and False mean "on" and "off"."""

Nodes = Union[int, Iterable[int], None]
"""A node (single_node), a node set (interleaved / replicated / partitioned), or None for the default."""


MAX_NODE = 4095
"""The largest node id the core takes (as the command's --node)."""


def is_integer(value: object) -> bool:
    """True for Python and numpy integers, False for bools (an int subclass that is no node or width)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def path_arg(value: object, name: str = "path") -> bytes:
    """A file path (str, bytes or os.PathLike) as the bytes the system names the file by: a name
    that is not UTF-8 (str from os.fsdecode, or bytes) reaches the core as it is on disk."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path (str, bytes or os.PathLike), got {type(value).__name__}")
    return os.fsencode(value)


def flag(value: object, name: str) -> bool:
    """A boolean argument: bool or numpy bool only, so huge_pages="no" is an error, not True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def word(value: object, name: str) -> str:
    """A string argument the core looks up by name (placement, variant, format, ...): TypeError naming
    name for anything but a str, never the binding's signature dump; the core names an unknown word."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    return value


def huge_pages_arg(value: object) -> str:
    """The huge_pages argument as the core's mode name; the core rejects an unknown name (ValueError)."""
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if not isinstance(value, str):
        raise TypeError(f"huge_pages must be 'auto', 'on', 'off', '2M', '1G' or a bool, got {type(value).__name__} {value!r}")
    return value


def node_list(nodes: Nodes) -> list[int]:
    """The node argument as the list the core takes; TypeError for a non-integer, ValueError past MAX_NODE."""
    if nodes is None:
        return []
    if is_integer(nodes):
        items = [nodes]
    elif isinstance(nodes, Iterable):
        items = list(nodes)
    else:
        raise TypeError(f"nodes must be integers, got {type(nodes).__name__} {nodes!r}")
    for n in items:
        if not is_integer(n):
            raise TypeError(f"nodes must be integers, got {type(n).__name__} {n!r}")
        if not 0 <= n <= MAX_NODE:
            raise ValueError(f"node {n} is out of range 0..{MAX_NODE}")
    return [int(n) for n in items]


def bits_arg(bits: int | Literal["auto", "min"]) -> int:
    """The bits argument as the core's: 0 means the fewest bits that hold the data."""
    if isinstance(bits, str):
        if bits not in ("auto", "min"):
            raise ValueError(f"bits must be 'auto' or an int 1..64, got {bits!r}")
        return 0
    if not is_integer(bits):
        raise TypeError(f"bits must be 'auto' or an int 1..64, got {type(bits).__name__}")
    if bits < 1:
        raise ValueError(f"bits must be 'auto' or an int 1..64, got {bits}")
    if bits > 64:  # checked here too: the core's unsigned parameter would turn 2**40 into a TypeError
        raise ValueError(f"bits {bits} out of range 1..64")
    return int(bits)


def pagerank_args(tol: object, damping: object, max_iterations: object) -> tuple[float, float, int]:
    """PageRank's numbers as the core takes them; their ranges are the library's to check (algo::validate),
    so Python, the command and the C ABI reject the same values with the same words."""
    tol, damping = real_number(tol, "tol"), real_number(damping, "damping")
    if not is_integer(max_iterations):
        raise TypeError(f"max_iterations must be an int, got {type(max_iterations).__name__}")
    if not 0 <= max_iterations < 2**32:  # type: ignore[operator]
        raise ValueError(f"pagerank: max_iterations must be from 1 to {2**32 - 1}, got {max_iterations}")
    return tol, damping, int(max_iterations)  # type: ignore[arg-type]


def unsigned_value(value: object, name: str, bits: int = 64) -> int:
    """value as an int from 0 to 2^bits - 1 (the core parameter's type); TypeError or ValueError naming
    name and the value otherwise, never the binding's signature dump (also the check of the core's
    methods that take a value, such as SmartArray.fill). The core checks the meaningful range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if not 0 <= value < 2**bits:
        raise ValueError(f"{name} must be from 0 to 2^{bits} - 1, got {value}")
    return int(value)


def real_number(value: object, name: str) -> float:
    """value as a float (any int or float, numpy's too, not a bool); TypeError naming name otherwise.
    The core checks the range, so every surface rejects the same values with the same words."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number, got an int of {int(value).bit_length()} bits") from None


def shown(value: object) -> str:
    """value's repr, cut for a message about received bytes."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def received_shape(length: object, bits: object, what: str) -> tuple[int, int]:
    """A received array's length and bits (a pickle's or a Dask header's) as ints >= 0 that fit the
    core's parameters (64 and 32 bits), the core checking what they mean; ValueError naming what and
    the field for anything else, never the binding's signature dump."""
    if not (is_integer(length) and is_integer(bits)) or length < 0 or bits < 0:  # type: ignore[operator]
        raise ValueError(f"malformed {what}: an array's length and bits must be ints >= 0, got {shown(length)} and {shown(bits)}")
    for field, value, width in (("length", length, 64), ("bits", bits, 32)):
        if value >= 2**width:  # type: ignore[operator]
            raise ValueError(f"malformed {what}: an array's {field} must be below 2^{width}, got {value}")
    return int(length), int(bits)  # type: ignore[call-overload]


def received_directed(value: object, what: str) -> bool:
    """A received graph's direction flag; ValueError naming what for anything but a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"malformed {what}: directed must be a bool, got {shown(value)}")
    return bool(value)


def smart_array(value: object, name: str) -> SmartArray:
    """value, which must be a SmartArray; TypeError naming name and what it got otherwise."""
    if not isinstance(value, SmartArray):
        raise TypeError(f"{name} must be a SmartArray, got {type(value).__name__}")
    return value


def exact_integers(values: npt.ArrayLike) -> np.ndarray:
    """A sequence numpy cannot type exactly (ints past 2^63 mixed with negatives or past 2^64) as uint64."""
    objects = np.array(values, dtype=object)
    if objects.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {objects.shape}")
    for i, v in enumerate(objects):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"values must be integers, got {type(v).__name__} at index {i}")
        if v < 0:
            raise ValueError(f"value {v} at index {i} is negative; smart arrays hold unsigned values")
        if v >= 2**64:
            raise ValueError(f"value {v} at index {i} does not fit in 64 bits")
    return objects.astype(np.uint64)


def unsigned_values(values: npt.ArrayLike) -> np.ndarray:
    """values as a contiguous 1-D uint32 or uint64 array; ValueError for negative or oversized values,
    TypeError for what is no array of integers (None, a str, a mapping, a set, an iterator)."""
    if values is None or isinstance(values, (str, bytes, Mapping, Set, Iterator)):
        raise TypeError(f"values must be an array of integers, got {type(values).__name__}")
    if isinstance(values, np.ndarray):
        data = values
    else:
        try:
            data = np.asarray(values)
        except OverflowError:
            data = exact_integers(values)
        if data.dtype.kind in "fO" and data.size:
            # numpy turns ints past 2^63 mixed with negatives into float64 and ints past 2^64 into objects.
            data = exact_integers(values)
    if data.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {data.shape}")
    kind = data.dtype.kind
    if kind not in "biu" and not (kind == "f" and data.size == 0):
        raise TypeError(f"values must be integers, got dtype {data.dtype}")
    if kind == "i" and data.size and data.min() < 0:
        first = int(np.argmax(data < 0))
        raise ValueError(f"value {int(data[first])} at index {first} is negative; smart arrays hold unsigned values")
    if data.dtype == np.uint32 or data.dtype == np.uint64:
        return np.ascontiguousarray(data)
    if data.dtype == np.int64:  # native byte order, checked non-negative: the same bits as uint64
        return np.ascontiguousarray(data).view(np.uint64)
    return np.ascontiguousarray(data, dtype=np.uint64)


def id_array(ids: npt.ArrayLike, name: str) -> np.ndarray:
    """An integer column (vertex ids, keys, values) as a contiguous uint64 array, the core's input;
    errors name the argument."""
    try:
        data = unsigned_values(ids)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{name}: {error}") from None
    return np.ascontiguousarray(data, dtype=np.uint64)


_HINTS = ("read_only", "pattern", "passes", "threads")


def hints_args(hints: Mapping[str, object] | None) -> tuple[bool, str, float, int]:
    """Access hints as the core's (read_only, pattern, passes, threads), each checked by name."""
    hints = {} if hints is None else hints
    if not isinstance(hints, Mapping):
        raise TypeError(f"hints must be a dict, got {type(hints).__name__}")
    for name in hints:
        if name not in _HINTS:
            raise ValueError(f"unknown hint {name!r} (expected one of: read_only, pattern, passes, threads)")
    read_only = flag(hints.get("read_only", False), "hints['read_only']")
    pattern = hints.get("pattern", "sequential")
    if not isinstance(pattern, str):
        raise TypeError(f"hints['pattern'] must be a str, got {type(pattern).__name__}")
    passes = real_number(hints.get("passes", 1.0), "hints['passes']")
    if not math.isfinite(passes) or passes <= 0:
        raise ValueError(f"hints['passes'] must be a finite number > 0, got {passes}")
    threads = hints.get("threads", 0)
    if not is_integer(threads):
        raise TypeError(f"hints['threads'] must be an int, got {type(threads).__name__}")
    if threads < 0 or threads > 4096:
        raise ValueError(f"hints['threads'] must be 0..4096, got {threads}")
    return read_only, pattern, float(passes), int(threads)
