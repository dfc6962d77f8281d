"""Merkle proofs: exhaustive and property tests, and the stored-node tree against the RFC lists."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.ledger import merkle
from webapp.ledger.errors import InvalidProofError, RootMismatchError, VerificationError

N = 300
LEAVES = [merkle.leaf_hash(i.to_bytes(4, "big")) for i in range(N)]
NODES = {(lvl, i): h for lvl, i, h in merkle.new_nodes_for_append(0, LEAVES, lambda *_: b"")}
ROOTS = [merkle.root(LEAVES[:size]) for size in range(N + 1)]


def get_node(level: int, index: int) -> bytes:
    return NODES[(level, index)]


def _rfc_mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) exactly as RFC 9162 §2.1.1 writes it (recursive split at the power of two)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return merkle.node_hash(_rfc_mth(leaves[:k]), _rfc_mth(leaves[k:]))


def test_root_matches_the_recursive_definition() -> None:
    for size in range(N + 1):
        assert ROOTS[size] == _rfc_mth(LEAVES[:size])
        assert merkle.root_from_nodes(size, get_node) == ROOTS[size]


def test_every_inclusion_proof_up_to_300_verifies() -> None:
    for size in range(1, N + 1):
        for index in range(size):
            path = merkle.inclusion_path_from_nodes(index, size, get_node)
            merkle.verify_inclusion(LEAVES[index], index, size, path, ROOTS[size])


def test_every_consistency_proof_up_to_130_verifies() -> None:
    for size2 in range(1, 131):
        for size1 in range(1, size2 + 1):
            path = merkle.consistency_path_from_nodes(size1, size2, get_node)
            merkle.verify_consistency(size1, size2, ROOTS[size1], ROOTS[size2], path)


def test_stored_node_proofs_equal_list_proofs_up_to_130() -> None:
    for size in range(1, 131):
        leaves = LEAVES[:size]
        for index in range(size):
            assert merkle.inclusion_path_from_nodes(index, size, get_node) == (
                merkle.inclusion_path(index, leaves)
            )
        for size1 in range(1, size + 1):
            assert merkle.consistency_path_from_nodes(size1, size, get_node) == (
                merkle.consistency_path(size1, leaves)
            )


def _flip(value: bytes, position: int, mask: int) -> bytes:
    changed = bytearray(value)
    changed[position % len(changed)] ^= mask
    return bytes(changed)


def test_every_single_byte_change_breaks_small_inclusion_proofs() -> None:
    for size in range(1, 41):
        for index in range(size):
            path = merkle.inclusion_path_from_nodes(index, size, get_node)
            for position in range(len(path)):
                broken = (
                    path[:position] + [_flip(path[position], index, 0x80)] + path[position + 1 :]
                )
                with pytest.raises(RootMismatchError):
                    merkle.verify_inclusion(LEAVES[index], index, size, broken, ROOTS[size])
            with pytest.raises(RootMismatchError):
                merkle.verify_inclusion(_flip(LEAVES[index], 0, 1), index, size, path, ROOTS[size])
            with pytest.raises(RootMismatchError):
                merkle.verify_inclusion(LEAVES[index], index, size, path, _flip(ROOTS[size], 31, 1))


sizes = st.integers(min_value=1, max_value=N)


@settings(max_examples=400, deadline=None)
@given(sizes, st.data())
def test_inclusion_proof_with_one_byte_changed_fails(size: int, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, size - 1))
    path = merkle.inclusion_path_from_nodes(index, size, get_node)
    leaf, root = LEAVES[index], ROOTS[size]
    target = data.draw(st.integers(-2, len(path) - 1))  # -2: the leaf, -1: the root
    position = data.draw(st.integers(0, 31))
    mask = data.draw(st.integers(1, 255))
    if target == -2:
        leaf = _flip(leaf, position, mask)
    elif target == -1:
        root = _flip(root, position, mask)
    else:
        path = list(path)
        path[target] = _flip(path[target], position, mask)
    with pytest.raises(RootMismatchError):
        merkle.verify_inclusion(leaf, index, size, path, root)


@settings(max_examples=400, deadline=None)
@given(sizes, st.data())
def test_consistency_proof_with_one_byte_changed_fails(size2: int, data: st.DataObject) -> None:
    size1 = data.draw(st.integers(1, size2))
    path = merkle.consistency_path_from_nodes(size1, size2, get_node)
    hashes = [ROOTS[size1], ROOTS[size2], *path]
    target = data.draw(st.integers(0, len(hashes) - 1))
    hashes[target] = _flip(
        hashes[target], data.draw(st.integers(0, 31)), data.draw(st.integers(1, 255))
    )
    with pytest.raises(RootMismatchError):
        merkle.verify_consistency(size1, size2, hashes[0], hashes[1], hashes[2:])


@settings(max_examples=300, deadline=None)
@given(sizes, st.data())
def test_inclusion_proof_for_another_index_or_size_fails(size: int, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, size - 1))
    path = merkle.inclusion_path_from_nodes(index, size, get_node)
    other_index = data.draw(st.integers(0, size + 3).filter(lambda i: i != index))
    with pytest.raises(VerificationError):
        merkle.verify_inclusion(LEAVES[index], other_index, size, path, ROOTS[size])
    other_size = data.draw(st.integers(1, N).filter(lambda s: s != size))
    with pytest.raises(VerificationError):
        merkle.verify_inclusion(LEAVES[index], index, other_size, path, ROOTS[other_size])


@settings(max_examples=300, deadline=None)
@given(sizes, st.data())
def test_truncated_or_extended_proofs_fail(size: int, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, size - 1))
    path = merkle.inclusion_path_from_nodes(index, size, get_node)
    extra = LEAVES[data.draw(st.integers(0, N - 1))]
    with pytest.raises(InvalidProofError):
        merkle.verify_inclusion(LEAVES[index], index, size, [*path, extra], ROOTS[size])
    if path:
        with pytest.raises(InvalidProofError):
            merkle.verify_inclusion(LEAVES[index], index, size, path[:-1], ROOTS[size])


def test_stored_nodes_do_not_depend_on_how_appends_were_batched() -> None:
    @given(st.lists(st.integers(1, 40), min_size=1, max_size=20))
    @settings(max_examples=100, deadline=None)
    def check(batches: list[int]) -> None:
        store: dict[tuple[int, int], bytes] = {}
        reads: list[tuple[int, int]] = []

        def read(level: int, index: int) -> bytes:
            reads.append((level, index))
            return store[(level, index)]

        size = 0
        for count in batches:
            batch = LEAVES[size : size + count]
            reads.clear()
            for level, index, value in merkle.new_nodes_for_append(size, batch, read):
                assert (level, index) not in store  # each node is written once
                store[(level, index)] = value
            assert set(reads) <= set(merkle.nodes_needed_for_append(size))
            size += len(batch)
            assert merkle.root_from_nodes(size, read) == ROOTS[size]
        assert store == {key: NODES[key] for key in store}
        complete = {(lvl, i) for (lvl, i) in NODES if (i + 1) << lvl <= size}
        assert set(store) == complete

    check()


def _reads(function, *args) -> list[tuple[int, int]]:  # noqa: ANN001
    reads: list[tuple[int, int]] = []

    def read(level: int, index: int) -> bytes:
        reads.append((level, index))
        return hashlib.sha256(f"{level}/{index}".encode()).digest()

    function(*args, read)
    return reads


def _ceil_log2(n: int) -> int:
    return (n - 1).bit_length()


@pytest.mark.parametrize(
    "size", [1, 2, 3, 7, 8, 9, 1000, 100_000, 1_000_000, 2**20 - 1, 2**20 + 1, 10**12 + 7]
)
def test_proofs_read_only_logarithmically_many_stored_nodes(size: int) -> None:
    bound = max(1, 2 * _ceil_log2(size))
    for index in {i for i in (0, 1, size // 3, size // 2, size - 2, size - 1) if 0 <= i < size}:
        keys = merkle.nodes_needed_for_inclusion(index, size)
        assert _reads(merkle.inclusion_path_from_nodes, index, size) == keys
        assert len(keys) <= bound
        assert all((i + 1) << lvl <= size for lvl, i in keys)  # only complete subtrees
    for size1 in {m for m in (1, 2, size // 3, size // 2 + 1, size - 1, size) if 1 <= m <= size}:
        keys = merkle.nodes_needed_for_consistency(size1, size)
        assert _reads(merkle.consistency_path_from_nodes, size1, size) == keys
        assert len(keys) <= bound
        assert all((i + 1) << lvl <= size for lvl, i in keys)
    keys = merkle.nodes_needed_for_root(size)
    assert _reads(merkle.root_from_nodes, size) == keys
    assert len(keys) == bin(size).count("1")


def test_worst_case_node_reads_up_to_300() -> None:
    for size in range(1, N + 1):
        bound = max(1, 2 * _ceil_log2(size))
        for index in range(size):
            assert len(merkle.nodes_needed_for_inclusion(index, size)) <= bound
        for size1 in range(1, size + 1):
            assert len(merkle.nodes_needed_for_consistency(size1, size)) <= bound


@settings(max_examples=60, deadline=None)
@given(st.integers(301, 3000), st.data())
def test_stored_node_proofs_equal_list_proofs_for_larger_trees(
    size: int, data: st.DataObject
) -> None:
    leaves = [merkle.leaf_hash(i.to_bytes(4, "big")) for i in range(size)]
    old = data.draw(st.integers(0, size))
    store = {(lvl, i): h for lvl, i, h in merkle.new_nodes_for_append(0, leaves[:old], None)}
    store.update(
        {
            (lvl, i): h
            for lvl, i, h in merkle.new_nodes_for_append(old, leaves[old:], lambda *k: store[k])
        }
    )
    read = lambda level, index: store[(level, index)]  # noqa: E731
    index = data.draw(st.integers(0, size - 1))
    size1 = data.draw(st.integers(1, size))
    assert merkle.root_from_nodes(size, read) == merkle.root(leaves)
    assert merkle.inclusion_path_from_nodes(index, size, read) == merkle.inclusion_path(
        index, leaves
    )
    assert merkle.consistency_path_from_nodes(size1, size, read) == (
        merkle.consistency_path(size1, leaves)
    )


@pytest.mark.parametrize(("index", "size"), [(0, 0), (-1, 5), (5, 5), (6, 5)])
def test_proof_builders_refuse_out_of_range_indexes(index: int, size: int) -> None:
    with pytest.raises(ValueError):
        merkle.inclusion_path(index, LEAVES[:size])
    with pytest.raises(ValueError):
        merkle.inclusion_path_from_nodes(index, size, get_node)


@pytest.mark.parametrize(("size1", "size2"), [(0, 5), (6, 5), (0, 0), (-1, 3)])
def test_consistency_builders_refuse_impossible_sizes(size1: int, size2: int) -> None:
    with pytest.raises(ValueError):
        merkle.consistency_path(size1, LEAVES[: max(size2, 0)])
    with pytest.raises(ValueError):
        merkle.consistency_path_from_nodes(size1, size2, get_node)


def test_verifiers_refuse_negative_indexes_and_non_bytes() -> None:
    with pytest.raises(InvalidProofError):
        merkle.verify_inclusion(LEAVES[0], -1, 1, [], ROOTS[1])
    with pytest.raises(InvalidProofError):
        merkle.verify_inclusion(LEAVES[0].hex(), 0, 1, [], ROOTS[1])  # type: ignore[arg-type]
    with pytest.raises(InvalidProofError):
        merkle.verify_consistency(1, 2, ROOTS[1], ROOTS[2], ["00" * 32])  # type: ignore[list-item]


def test_append_refuses_leaves_that_are_not_32_bytes() -> None:
    with pytest.raises(ValueError):
        merkle.new_nodes_for_append(0, [LEAVES[0], LEAVES[1][:31]], get_node)
    with pytest.raises(ValueError):
        merkle.new_nodes_for_append(0, [LEAVES[0].hex().encode()], get_node)
