"""Benchmark of the ledger's Merkle core: append throughput and proof latency (not a test).

Run: .venv/bin/python bench/merkle_core.py [--leaves 1000000] [--batch 1000]

Prints raw hashlib SHA-256 throughput measured in the same run (the ceiling for pure Python),
then the throughput of appending leaves in batches to an in-memory dict store keyed by
(level, index), then per-proof latency and node reads at 1k, 100k and 1M leaves.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "webapp"))  # import without Flask

from ledger import merkle  # noqa: E402


def raw_sha256_rate(count: int) -> float:
    """Hashes/s of hashlib on node-shaped input (0x01 || 32 || 32 bytes), in a tight loop."""
    left, right = b"\x11" * 32, b"\x22" * 32
    sha256 = hashlib.sha256
    start = time.perf_counter()
    for _ in range(count):
        sha256(b"\x01" + left + right).digest()
    return count / (time.perf_counter() - start)


def append_all(leaves: list[bytes], batch: int) -> tuple[dict, float, float]:
    """Append every leaf in batches to a dict store.

    Returns the store, the seconds spent in the core (`new_nodes_for_append`) and the seconds
    end to end (core plus writing the nodes into the dict).
    """
    store: dict[tuple[int, int], bytes] = {}
    get = store.__getitem__

    def get_node(level: int, index: int) -> bytes:
        return get((level, index))

    core = 0.0
    start = time.perf_counter()
    for offset in range(0, len(leaves), batch):
        began = time.perf_counter()
        nodes = merkle.new_nodes_for_append(offset, leaves[offset : offset + batch], get_node)
        core += time.perf_counter() - began
        store.update(((level, index), value) for level, index, value in nodes)
    return store, core, time.perf_counter() - start


def proof_latency(store: dict, size: int, samples: int) -> dict[str, float]:
    """Mean microseconds per operation at one tree size, over random indexes and sizes."""
    rng = random.Random(size)
    get = store.__getitem__

    def get_node(level: int, index: int) -> bytes:
        return get((level, index))

    indexes = [rng.randrange(size) for _ in range(samples)]
    olds = [rng.randrange(1, size + 1) for _ in range(samples)]
    root = merkle.root_from_nodes(size, get_node)
    results: dict[str, float] = {}

    start = time.perf_counter()
    paths = [merkle.inclusion_path_from_nodes(i, size, get_node) for i in indexes]
    results["inclusion proof"] = (time.perf_counter() - start) / samples * 1e6

    start = time.perf_counter()
    for index, path in zip(indexes, paths, strict=True):
        merkle.verify_inclusion(store[(0, index)], index, size, path, root)
    results["verify inclusion"] = (time.perf_counter() - start) / samples * 1e6

    start = time.perf_counter()
    proofs = [merkle.consistency_path_from_nodes(m, size, get_node) for m in olds]
    results["consistency proof"] = (time.perf_counter() - start) / samples * 1e6

    old_roots = [merkle.root_from_nodes(m, get_node) for m in olds]
    start = time.perf_counter()
    for m, old_root, proof in zip(olds, old_roots, proofs, strict=True):
        merkle.verify_consistency(m, size, old_root, root, proof)
    results["verify consistency"] = (time.perf_counter() - start) / samples * 1e6

    start = time.perf_counter()
    for m in olds:
        merkle.root_from_nodes(m, get_node)
    results["root"] = (time.perf_counter() - start) / samples * 1e6

    results["max node reads (inclusion)"] = max(
        len(merkle.nodes_needed_for_inclusion(i, size)) for i in indexes
    )
    results["max node reads (consistency)"] = max(
        len(merkle.nodes_needed_for_consistency(m, size)) for m in olds
    )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}")
    rate = raw_sha256_rate(1_000_000)
    print(f"raw hashlib SHA-256 (65-byte input):   {rate:>12,.0f} hashes/s")

    event_hashes = [hashlib.sha256(i.to_bytes(8, "big")).digest() for i in range(args.leaves)]
    start = time.perf_counter()
    leaves = [merkle.leaf_hash(h) for h in event_hashes]
    leaf_seconds = time.perf_counter() - start
    print(f"leaf hashing (0x00 || event_hash):     {args.leaves / leaf_seconds:>12,.0f} leaves/s")

    for batch in sorted({args.batch, 10_000, 100}):
        gc.collect()
        store, core, total = append_all(leaves, batch)
        print(
            f"append {args.leaves:,} leaves, batch {batch:>6,}: "
            f"core {args.leaves / core:>9,.0f} leaves/s ({core:.2f} s), "
            f"with dict store {args.leaves / total:>9,.0f} leaves/s ({total:.2f} s), "
            f"{len(store):,} nodes"
        )
    assert merkle.root_from_nodes(args.leaves, lambda lv, ix: store[(lv, ix)]) == merkle.root(
        leaves
    )

    for size in (1_000, 100_000, 1_000_000):
        if size > args.leaves:
            break
        gc.collect()
        timings = proof_latency(store, size, args.samples)
        print(f"\nsize {size:,} ({args.samples} random samples, in-memory dict store)")
        for name, value in timings.items():
            unit = "" if name.startswith("max") else " µs"
            print(f"  {name:<30} {value:>8.1f}{unit}")


if __name__ == "__main__":
    main()
