"""BM25 retrieval and reciprocal-rank fusion with vectors."""

from __future__ import annotations

import numpy as np
import pytest

from webapp.judge.retrieval import BM25Index, Chunk, HybridIndex, tokenize

CHUNKS = [
    Chunk(
        "c0", "Payments above $10,000 require approval from a treasury manager.", {"policy_id": "p"}
    ),
    Chunk("c1", "Deploys to production are not allowed on Fridays."),
    Chunk("c2", "Exports are limited to 10,000 rows."),
    Chunk("c3", "Refund amounts must not exceed the original charge."),
    Chunk("c4", "Agents must never delete S3 buckets."),
]


def test_tokenize_splits_tool_names_and_stems():
    assert tokenize("aws.s3.delete_bucket deletion Buckets") == [
        "aws",
        "s3",
        "delet",
        "bucket",
        "delet",
        "bucket",
    ]


def test_bm25_ranks_the_rule_that_shares_the_request_words_first():
    index = BM25Index(CHUNKS)
    hits = index.search("send_payment payee payment memo", k=3)
    assert hits[0].chunk.chunk_id == "c0"
    assert hits[0].chunk.metadata == {"policy_id": "p"}
    assert all(h.score > 0 for h in hits)
    assert index.search("aws.s3.delete_bucket bucket logs", k=1)[0].chunk.chunk_id == "c4"


def test_bm25_returns_nothing_for_unrelated_text_and_handles_empty_indexes():
    assert BM25Index(CHUNKS).search("zebra giraffe", k=5) == []
    assert BM25Index([]).search("anything", k=5) == []


def test_rarer_terms_weigh_more():
    index = BM25Index(
        [
            Chunk("a", "payment payment limit"),
            Chunk("b", "payment"),
            Chunk("c", "payment sanctions"),
        ]
    )
    assert index.search("sanctions payment", k=1)[0].chunk.chunk_id == "c"


def _fake_embed(texts: list[str]) -> np.ndarray:
    # A toy embedding: one dimension per topic word, so that 'money' is near 'payments'.
    topics = [
        ("payment", "money", "treasury"),
        ("deploy", "release"),
        ("export", "rows"),
        ("refund",),
        ("bucket", "s3"),
    ]
    out = np.zeros((len(texts), len(topics)), dtype=np.float32)
    for i, t in enumerate(texts):
        low = t.lower()
        for j, words in enumerate(topics):
            out[i, j] = sum(low.count(w) for w in words)
    return out


def test_hybrid_fuses_lexical_and_vector_ranks():
    vectors = _fake_embed([c.text for c in CHUNKS])
    hybrid = HybridIndex(CHUNKS, vectors=vectors, embed=_fake_embed)
    # 'money' shares no word with any chunk, only the vector side can find c0
    hits = hybrid.search("move money", k=2)
    assert hits[0].chunk.chunk_id == "c0"
    assert hits[0].vector is not None and hits[0].bm25 == 0.0
    both = hybrid.search("treasury payments", k=1)[0]
    assert both.chunk.chunk_id == "c0" and both.bm25 > 0


def test_hybrid_without_vectors_is_lexical():
    hits = HybridIndex(CHUNKS).search("rows export", k=1)
    assert hits[0].chunk.chunk_id == "c2" and hits[0].vector is None


def test_vectors_must_match_chunks():
    with pytest.raises(ValueError):
        HybridIndex(CHUNKS, vectors=np.zeros((2, 3)), embed=_fake_embed)
