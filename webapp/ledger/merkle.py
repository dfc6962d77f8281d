"""RFC 9162 §2.1 (RFC 6962) Merkle tree hashing, proofs and their verification, over SHA-256.

Two ways to build proofs:

- List-based (`root`, `inclusion_path`, `consistency_path`): the RFC's recursive definitions
  over all leaf hashes; O(n) hashing per call. The reference, and fine for small trees.
- Stored-node (`*_from_nodes`): the tree keeps every complete subtree node, keyed by
  `(level, index)` = hash of leaves `[index * 2**level, (index + 1) * 2**level)`; level 0 holds
  the leaf hashes. A proof for a tree of size n reads at most 2⌈log2 n⌉ stored nodes: one per
  path element, except that the single path element on the tree's incomplete right edge is
  folded from at most ⌈log2 n⌉ nodes. At n = 1,000,000 the worst case over every index is 25
  reads for an inclusion proof and 26 for a consistency proof. Nothing is
  recomputed over all leaves, and a store holding a larger tree serves any smaller size. The
  `nodes_needed_for_*` functions name those keys up front so a store can fetch them in one
  query.

Verification follows RFC 9162 §2.1.3.2 and §2.1.4.2 plus the transparency-dev/merkle edge
policy: every hash is 32 bytes, `index < size`, equal sizes need an empty proof and equal roots,
and size 0 is never a valid first size. Failures raise a `VerificationError` subclass.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from itertools import repeat

from .errors import InvalidProofError, RootMismatchError

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "GetNode",
    "NodeKey",
    "consistency_path",
    "consistency_path_from_nodes",
    "inclusion_path",
    "inclusion_path_from_nodes",
    "leaf_hash",
    "new_nodes_for_append",
    "node_hash",
    "nodes_needed_for_append",
    "nodes_needed_for_consistency",
    "nodes_needed_for_inclusion",
    "nodes_needed_for_root",
    "root",
    "root_from_nodes",
    "verify_consistency",
    "verify_inclusion",
]

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

NodeKey = tuple[int, int]
"""(level, index): the complete subtree over leaves [index * 2**level, (index + 1) * 2**level)."""

GetNode = Callable[[int, int], bytes]
"""Reads a stored node hash by (level, index); raises (e.g. KeyError) when it is missing."""

_sha256 = hashlib.sha256


def leaf_hash(data: bytes) -> bytes:
    """MTH of one entry: SHA-256(0x00 || data)."""
    return _sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """Interior node: SHA-256(0x01 || left || right)."""
    return _sha256(b"\x01" + left + right).digest()


# --- list-based: the RFC 9162 definitions ---------------------------------------------------


def root(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH(D[n]) from the n leaf hashes; SHA-256('') for the empty tree."""
    if not leaf_hashes:
        return EMPTY_ROOT
    # Pairing level by level and carrying an odd last node up unchanged builds exactly the
    # RFC tree, whose left subtree is always the largest power of two below n.
    level = list(leaf_hashes)
    while len(level) > 1:
        pairs = iter(level)
        carried = [level[-1]] if len(level) % 2 else []
        level = [
            _sha256(b"\x01" + a + b).digest() for a, b in zip(pairs, pairs, strict=False)
        ] + carried
    return level[0]


def inclusion_path(index: int, leaf_hashes: Sequence[bytes]) -> list[bytes]:
    """PATH(index, D[n]) of RFC 9162 §2.1.3.1, leaf sibling first."""
    size = len(leaf_hashes)
    if not 0 <= index < size:
        raise ValueError(f"leaf index {index} is not in a tree of size {size}")
    path: list[bytes] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split(hi - lo)
        if index < lo + k:
            path.append(root(leaf_hashes[lo + k : hi]))
            hi = lo + k
        else:
            path.append(root(leaf_hashes[lo : lo + k]))
            lo += k
    path.reverse()
    return path


def consistency_path(size1: int, leaf_hashes: Sequence[bytes]) -> list[bytes]:
    """PROOF(size1, D[n]) of RFC 9162 §2.1.4.1 (empty when size1 == n)."""
    size2 = len(leaf_hashes)
    if not 0 < size1 <= size2:
        raise ValueError(f"no consistency proof from size {size1} to size {size2}")
    proof: list[bytes] = []
    lo, hi, whole = 0, size2, True  # SUBPROOF(size1 - lo, D[lo:hi], whole)
    while True:
        if size1 == hi:
            if not whole:
                proof.append(root(leaf_hashes[lo:hi]))
            break
        k = _split(hi - lo)
        if size1 - lo <= k:
            proof.append(root(leaf_hashes[lo + k : hi]))
            hi = lo + k
        else:
            proof.append(root(leaf_hashes[lo : lo + k]))
            lo += k
            whole = False
    proof.reverse()
    return proof


# --- stored-node tree ------------------------------------------------------------------------


def new_nodes_for_append(
    old_size: int, new_leaf_hashes: Sequence[bytes], get_node: GetNode
) -> list[tuple[int, int, bytes]]:
    """The (level, index, hash) nodes to store when appending leaves to a tree of `old_size`.

    Includes the new leaves themselves at level 0 and every complete subtree that the batch
    finishes. Reads at most one stored node per level (the left siblings on the old tree's
    right edge; see `nodes_needed_for_append`).
    """
    if old_size < 0:
        raise ValueError("tree size cannot be negative")
    current = list(new_leaf_hashes)
    if set(map(len, current)) - {HASH_SIZE}:
        raise ValueError(f"every leaf hash must be {HASH_SIZE} bytes")
    nodes = list(zip(repeat(0), range(old_size, old_size + len(current)), current))
    level, first = 0, old_size  # `current` holds the new complete nodes of `level`, from `first`
    while current:
        parents: list[bytes] = []
        pairs = iter(current)
        if first & 1:
            # The first new node is a right child: its left sibling was already stored.
            parents.append(_sha256(b"\x01" + get_node(level, first - 1) + next(pairs)).digest())
        # zip drops an unpaired last node: it is not complete yet, its parent comes later.
        parents += [_sha256(b"\x01" + a + b).digest() for a, b in zip(pairs, pairs, strict=False)]
        level, first, current = level + 1, first >> 1, parents
        nodes += zip(repeat(level), range(first, first + len(parents)), parents)
    return nodes


def nodes_needed_for_append(old_size: int) -> list[NodeKey]:
    """Every stored node `new_nodes_for_append(old_size, …)` may read: the old tree's frontier."""
    return [
        (level, (old_size >> level) - 1)
        for level in range(old_size.bit_length())
        if (old_size >> level) & 1
    ]


def nodes_needed_for_root(size: int) -> list[NodeKey]:
    """The stored nodes `root_from_nodes(size, …)` reads: at most ⌊log2 n⌋ + 1."""
    return _range_keys(0, size)


def nodes_needed_for_inclusion(index: int, size: int) -> list[NodeKey]:
    """The stored nodes `inclusion_path_from_nodes(index, size, …)` reads, at most 2⌈log2 n⌉."""
    return _flatten(_inclusion_plan(index, size))


def nodes_needed_for_consistency(size1: int, size2: int) -> list[NodeKey]:
    """The stored nodes `consistency_path_from_nodes(size1, size2, …)` reads (≤ 2⌈log2 n⌉)."""
    return _flatten(_consistency_plan(size1, size2))


def root_from_nodes(size: int, get_node: GetNode) -> bytes:
    """MTH(D[size]) from stored complete-subtree nodes."""
    if size < 0:
        raise ValueError("tree size cannot be negative")
    if size == 0:
        return EMPTY_ROOT
    return _fold(_range_keys(0, size), get_node)


def inclusion_path_from_nodes(index: int, size: int, get_node: GetNode) -> list[bytes]:
    """PATH(index, D[size]) from stored nodes; equal to `inclusion_path`."""
    return [_fold(keys, get_node) for keys in _inclusion_plan(index, size)]


def consistency_path_from_nodes(size1: int, size2: int, get_node: GetNode) -> list[bytes]:
    """PROOF(size1, D[size2]) from stored nodes; equal to `consistency_path`."""
    return [_fold(keys, get_node) for keys in _consistency_plan(size1, size2)]


# --- verification ----------------------------------------------------------------------------


def verify_inclusion(
    leaf: bytes, index: int, size: int, path: Sequence[bytes], root_hash: bytes
) -> None:
    """Check that `leaf` is entry `index` of the tree of `size` with `root_hash` (RFC 9162).

    Raises InvalidProofError for a malformed proof and RootMismatchError when it does not lead
    to `root_hash`.
    """
    _require_hashes(leaf, root_hash, *path)
    if not 0 <= index < size:
        raise InvalidProofError(f"leaf index {index} is not below tree size {size}")
    fn, sn, result = index, size - 1, leaf
    for sibling in path:
        if sn == 0:
            raise InvalidProofError("inclusion proof has too many hashes")
        if fn & 1 or fn == sn:
            result = node_hash(sibling, result)
            while not fn & 1 and fn:
                fn >>= 1
                sn >>= 1
        else:
            result = node_hash(result, sibling)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise InvalidProofError("inclusion proof has too few hashes")
    if result != root_hash:
        raise RootMismatchError("inclusion proof does not lead to the root hash")


def verify_consistency(
    size1: int, size2: int, root1: bytes, root2: bytes, path: Sequence[bytes]
) -> None:
    """Check that the tree (size1, root1) is a prefix of the tree (size2, root2) (RFC 9162)."""
    _require_hashes(root1, root2, *path)
    if size1 < 1:
        raise InvalidProofError("the first tree size must be at least 1")
    if size1 > size2:
        raise InvalidProofError(f"tree size {size1} is larger than {size2}")
    if size1 == size2:
        if path:
            raise InvalidProofError("equal tree sizes need an empty proof")
        if root1 != root2:
            raise RootMismatchError("equal tree sizes but different roots")
        return
    if not path:
        raise InvalidProofError("consistency proof is empty")
    hashes = list(path)
    if size1 & (size1 - 1) == 0:  # a power of two: the old root is itself a node of the new tree
        hashes.insert(0, root1)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    first = second = hashes[0]
    for value in hashes[1:]:
        if sn == 0:
            raise InvalidProofError("consistency proof has too many hashes")
        if fn & 1 or fn == sn:
            first = node_hash(value, first)
            second = node_hash(value, second)
            while not fn & 1 and fn:
                fn >>= 1
                sn >>= 1
        else:
            second = node_hash(second, value)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise InvalidProofError("consistency proof has too few hashes")
    if first != root1:
        raise RootMismatchError("consistency proof does not lead to the first root")
    if second != root2:
        raise RootMismatchError("consistency proof does not lead to the second root")


# --- helpers ---------------------------------------------------------------------------------


def _split(size: int) -> int:
    """The largest power of two strictly below size (size >= 2)."""
    return 1 << ((size - 1).bit_length() - 1)


def _range_keys(start: int, end: int) -> list[NodeKey]:
    """Complete subtrees covering [start, end), largest first.

    Valid for every range the RFC recursion visits: `start` is a multiple of the smallest
    power of two >= end - start, so the binary digits of the length give aligned subtrees.
    """
    keys: list[NodeKey] = []
    remaining = end - start
    while remaining:
        level = remaining.bit_length() - 1
        keys.append((level, start >> level))
        start += 1 << level
        remaining -= 1 << level
    return keys


def _fold(keys: list[NodeKey], get_node: GetNode) -> bytes:
    """MTH of the range those subtrees cover: hash right to left, as the RFC tree nests."""
    hashes = [get_node(level, index) for level, index in keys]
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = node_hash(left, result)
    return result


def _flatten(plan: list[list[NodeKey]]) -> list[NodeKey]:
    return [key for keys in plan for key in keys]


def _inclusion_plan(index: int, size: int) -> list[list[NodeKey]]:
    """For each path element, bottom up, the stored nodes that fold into it."""
    if not 0 <= index < size:
        raise ValueError(f"leaf index {index} is not in a tree of size {size}")
    plan: list[list[NodeKey]] = []
    for level in range((size - 1).bit_length()):
        sibling = (index >> level) ^ 1
        start = sibling << level
        if start >= size:
            continue  # no sibling at this level: the node is carried up unchanged
        end = start + (1 << level)
        # Only the right edge of the tree can be incomplete, and only once along a path.
        plan.append([(level, sibling)] if end <= size else _range_keys(start, size))
    return plan


def _consistency_plan(size1: int, size2: int) -> list[list[NodeKey]]:
    """SUBPROOF of RFC 9162 §2.1.4.1 as stored-node ranges, in proof order."""
    if not 0 < size1 <= size2:
        raise ValueError(f"no consistency proof from size {size1} to size {size2}")
    plan: list[list[NodeKey]] = []
    lo, hi, whole = 0, size2, True
    while True:
        if size1 == hi:
            if not whole:
                plan.append(_range_keys(lo, hi))
            break
        k = _split(hi - lo)
        if size1 - lo <= k:
            plan.append(_range_keys(lo + k, hi))
            hi = lo + k
        else:
            plan.append(_range_keys(lo, lo + k))
            lo += k
            whole = False
    plan.reverse()
    return plan


def _require_hashes(*values: bytes) -> None:
    for value in values:
        if not isinstance(value, (bytes, bytearray)) or len(value) != HASH_SIZE:
            raise InvalidProofError(f"every hash must be {HASH_SIZE} bytes")
