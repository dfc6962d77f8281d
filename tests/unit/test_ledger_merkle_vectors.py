"""Every vector of tests/vectors/rfc6962-vectors.json (RFC 6962 / RFC 9162, transparency-dev)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from webapp.ledger import merkle
from webapp.ledger.errors import InvalidProofError, VerificationError

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "vectors" / "rfc6962-vectors.json").read_text()
)
TREES = VECTORS["trees"]
H = bytes.fromhex


def _ids(cases: list[dict]) -> list[str]:
    return [case["id"] for case in cases]


def _store(leaf_hashes: list[bytes]) -> Callable[[int, int], bytes]:
    nodes = {(lvl, i): h for lvl, i, h in merkle.new_nodes_for_append(0, leaf_hashes, _no_reads)}
    return lambda level, index: nodes[(level, index)]


def _no_reads(level: int, index: int) -> bytes:
    raise AssertionError("appending to an empty tree reads nothing")


def test_empty_tree_hash() -> None:
    assert merkle.root([]).hex() == VECTORS["empty_tree_hash"]
    assert merkle.root_from_nodes(0, _no_reads).hex() == VECTORS["empty_tree_hash"]
    assert merkle.EMPTY_ROOT.hex() == VECTORS["empty_tree_hash"]


@pytest.mark.parametrize(
    "case", VECTORS["leaf_hash_vectors"], ids=_ids(VECTORS["leaf_hash_vectors"])
)
def test_leaf_hash(case: dict) -> None:
    assert merkle.leaf_hash(H(case["leaf_data"])).hex() == case["leaf_hash"]


@pytest.mark.parametrize(
    "case", VECTORS["node_hash_vectors"], ids=_ids(VECTORS["node_hash_vectors"])
)
def test_node_hash(case: dict) -> None:
    assert merkle.node_hash(H(case["left"]), H(case["right"])).hex() == case["node_hash"]


@pytest.mark.parametrize("name", sorted(TREES))
def test_tree_roots_for_every_size(name: str) -> None:
    tree = TREES[name]
    leaves = [merkle.leaf_hash(H(data)) for data in tree["leaf_data"]]
    assert [leaf.hex() for leaf in leaves] == tree["leaf_hashes"]
    get_node = _store(leaves)
    for size, expected in tree["roots"].items():
        assert merkle.root(leaves[: int(size)]).hex() == expected
        assert merkle.root_from_nodes(int(size), get_node).hex() == expected


@pytest.mark.parametrize(
    "name", [n for n in sorted(TREES) if "complete_subtree_hashes" in TREES[n]]
)
def test_stored_nodes_are_the_complete_subtrees(name: str) -> None:
    tree = TREES[name]
    leaves = [H(h) for h in tree["leaf_hashes"]]
    stored = {
        (level, index): value.hex()
        for level, index, value in merkle.new_nodes_for_append(0, leaves, _no_reads)
    }
    expected = {
        (level, index): value
        for level, row in enumerate(tree["complete_subtree_hashes"])
        for index, value in enumerate(row)
    }
    assert stored == expected


@pytest.mark.parametrize("case", VECTORS["inclusion"], ids=_ids(VECTORS["inclusion"]))
def test_inclusion_vector(case: dict) -> None:
    args = (
        H(case["leaf_hash"]),
        case["leaf_index"],
        case["tree_size"],
        [H(p) for p in case["proof"]],
        H(case["root"]),
    )
    if case["valid"]:
        merkle.verify_inclusion(*args)
    else:
        with pytest.raises(VerificationError):
            merkle.verify_inclusion(*args)
    if case["valid"] and case.get("tree"):
        leaves = [H(h) for h in TREES[case["tree"]]["leaf_hashes"]][: case["tree_size"]]
        expected = case["proof"]
        assert [p.hex() for p in merkle.inclusion_path(case["leaf_index"], leaves)] == expected
        from_nodes = merkle.inclusion_path_from_nodes(
            case["leaf_index"], case["tree_size"], _store(leaves)
        )
        assert [p.hex() for p in from_nodes] == expected


@pytest.mark.parametrize("case", VECTORS["consistency"], ids=_ids(VECTORS["consistency"]))
def test_consistency_vector(case: dict) -> None:
    args = (
        case["size1"],
        case["size2"],
        H(case["root1"]),
        H(case["root2"]),
        [H(p) for p in case["proof"]],
    )
    if case["valid"]:
        merkle.verify_consistency(*args)
    else:
        with pytest.raises(VerificationError):
            merkle.verify_consistency(*args)
    if case["valid"] and case.get("tree"):
        leaves = [H(h) for h in TREES[case["tree"]]["leaf_hashes"]][: case["size2"]]
        expected = case["proof"]
        assert [p.hex() for p in merkle.consistency_path(case["size1"], leaves)] == expected
        from_nodes = merkle.consistency_path_from_nodes(
            case["size1"], case["size2"], _store(leaves)
        )
        assert [p.hex() for p in from_nodes] == expected


def test_edge_policy_rejects_short_hashes_even_for_equal_sizes() -> None:
    root = hashlib.sha256(b"x").digest()
    with pytest.raises(InvalidProofError):
        merkle.verify_consistency(1, 1, root[:31], root[:31], [])
    with pytest.raises(InvalidProofError):
        merkle.verify_inclusion(root, 0, 1, [], root + b"\x00")


# --- accumulated vectors: d[i] = bytes([i]) for i < 130, one text line per item, SHA-256'd ---

ACCUMULATED = {case["kind"]: case for case in VECTORS["accumulated"]}
MAX = ACCUMULATED["root"]["max_size"]
LEAVES = [merkle.leaf_hash(bytes([i])) for i in range(MAX)]


def _line(prefix: str, hashes: list[bytes]) -> bytes:
    return (prefix + "".join(" " + h.hex() for h in hashes) + "\n").encode()


def _is_subtree(start: int, end: int) -> bool:
    """A subtree of draft-ietf-plants-merkle-tree-certs: start aligned to bit_ceil(end - start)."""
    if start == 0 or start == end:
        return True
    return start % (1 << (end - start - 1).bit_length()) == 0


@functools.cache
def _range_root(start: int, end: int) -> bytes:
    return merkle.root(LEAVES[start:end])


def _subtree_consistency(start: int, end: int, lo: int, hi: int, known: bool) -> list[bytes]:
    """SUBTREE_PROOF of the same draft over D[lo:hi], written from its recursive definition."""
    if start == lo and end == hi:
        return [] if known else [_range_root(lo, hi)]
    k = 1 << ((hi - lo - 1).bit_length() - 1)
    if end <= lo + k:
        return _subtree_consistency(start, end, lo, lo + k, known) + [_range_root(lo + k, hi)]
    if start >= lo + k:
        return _subtree_consistency(start, end, lo + k, hi, known) + [_range_root(lo, lo + k)]
    return _subtree_consistency(lo + k, end, lo + k, hi, False) + [_range_root(lo, lo + k)]


def _accumulate(kind: str) -> str:
    digest = hashlib.sha256()
    get_node = _store(LEAVES)
    subtrees = [(s, e) for e in range(MAX + 1) for s in range(e + 1) if _is_subtree(s, e)]
    if kind == "root":
        for size in range(MAX + 1):
            digest.update(f"{size} {merkle.root_from_nodes(size, get_node).hex()}\n".encode())
    elif kind == "inclusion":
        for size in range(1, MAX + 1):
            for index in range(size):
                path = merkle.inclusion_path_from_nodes(index, size, get_node)
                digest.update(_line(f"{index} {size}", path))
    elif kind == "consistency":
        for size2 in range(MAX + 1):
            for size1 in range(1, size2 + 1):
                path = merkle.consistency_path_from_nodes(size1, size2, get_node)
                digest.update(_line(f"{size1} {size2}", path))
    elif kind == "subtree_hash":
        for start, end in subtrees:
            digest.update(f"[{start}, {end}) {merkle.root(LEAVES[start:end]).hex()}\n".encode())
    elif kind == "subtree_inclusion":
        for start, end in subtrees:
            for index in range(start, end):
                path = merkle.inclusion_path(index - start, LEAVES[start:end])
                digest.update(_line(f"{index} [{start}, {end})", path))
    elif kind == "subtree_consistency":
        for size in range(MAX + 1):
            for start, end in subtrees:
                if end <= size:
                    # The draft gives an empty subtree an empty proof.
                    empty = start == end
                    proof = [] if empty else _subtree_consistency(start, end, 0, size, True)
                    digest.update(_line(f"[{start}, {end}) {size}", proof))
    return digest.hexdigest()


@pytest.mark.parametrize("kind", sorted(ACCUMULATED))
def test_accumulated_vector(kind: str) -> None:
    assert _accumulate(kind) == ACCUMULATED[kind]["expected"]
