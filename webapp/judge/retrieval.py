"""Lexical BM25 retrieval over policy chunks, fused with optional vectors by reciprocal rank."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from webapp.judge.text import content_stems

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of policy text (a rule, or a chunk of an ingested document)."""

    chunk_id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    """One search result; `score` is the fused score, the parts are kept for evidence."""

    chunk: Chunk
    score: float
    bm25: float = 0.0
    vector: float | None = None


def tokenize(text: str) -> list[str]:
    """Index terms of `text`: stems of its meaningful words (snake_case and camelCase split)."""
    return list(content_stems(text))


class BM25Index:
    """Okapi BM25 over a fixed list of chunks; postings are NumPy arrays, so a query is a few adds."""

    def __init__(self, chunks: Sequence[Chunk], k1: float = 1.2, b: float = 0.75) -> None:
        self.chunks = list(chunks)
        n = len(self.chunks)
        postings: dict[str, dict[int, int]] = {}
        lengths = np.zeros(n, dtype=np.float64)
        for i, chunk in enumerate(self.chunks):
            toks = tokenize(chunk.text)
            lengths[i] = len(toks)
            for t in toks:
                postings.setdefault(t, {}).setdefault(i, 0)
                postings[t][i] += 1
        avg = float(lengths.mean()) if n else 0.0
        self._ids: dict[str, np.ndarray] = {}
        self._weights: dict[str, np.ndarray] = {}
        for term, docs in postings.items():
            ids = np.fromiter(docs.keys(), dtype=np.int64, count=len(docs))
            tf = np.fromiter(docs.values(), dtype=np.float64, count=len(docs))
            idf = math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            norm = k1 * (1.0 - b + b * lengths[ids] / avg) if avg else k1
            self._ids[term] = ids
            self._weights[term] = idf * tf * (k1 + 1.0) / (tf + norm)

    def __len__(self) -> int:
        return len(self.chunks)

    def scores(self, query_text: str) -> np.ndarray:
        """BM25 score of every chunk for `query_text` (zeros where no term matches)."""
        scores = np.zeros(len(self.chunks), dtype=np.float64)
        for term in set(tokenize(query_text)):
            ids = self._ids.get(term)
            if ids is not None:
                scores[ids] += self._weights[term]
        return scores

    def search(self, query_text: str, k: int = 5) -> list[Hit]:
        """The `k` best chunks for `query_text`, best first; chunks with score 0 are left out."""
        scores = self.scores(query_text)
        order = _top(scores, k)
        return [
            Hit(self.chunks[i], float(scores[i]), bm25=float(scores[i]))
            for i in order
            if scores[i] > 0
        ]


class HybridIndex:
    """BM25 plus, when vectors and an embedder are given, cosine similarity; fused by reciprocal rank."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        vectors: np.ndarray | None = None,
        embed: Embed | None = None,
        rrf_k: int = 60,
        depth: int = 50,
    ) -> None:
        self.bm25 = BM25Index(chunks)
        self.chunks = self.bm25.chunks
        self.embed = embed
        self.rrf_k = rrf_k
        self.depth = depth
        self.vectors: np.ndarray | None = None
        if vectors is not None:
            v = np.asarray(vectors, dtype=np.float32)
            if v.shape[0] != len(self.chunks):
                raise ValueError("one vector per chunk is required")
            norms = np.linalg.norm(v, axis=1, keepdims=True)
            self.vectors = v / np.where(norms == 0, 1.0, norms)

    def search(self, query_text: str, k: int = 5) -> list[Hit]:
        """The `k` best chunks; lexical only unless both vectors and an embedder are present."""
        lexical = self.bm25.scores(query_text)
        if self.vectors is None or self.embed is None:
            order = _top(lexical, k)
            return [
                Hit(self.chunks[i], float(lexical[i]), bm25=float(lexical[i]))
                for i in order
                if lexical[i] > 0
            ]
        q = np.asarray(self.embed([query_text]), dtype=np.float32).reshape(-1)
        qn = float(np.linalg.norm(q))
        dense = self.vectors @ (q / qn if qn else q)
        fused: dict[int, float] = {}
        for rank, i in enumerate(i for i in _top(lexical, self.depth) if lexical[i] > 0):
            fused[i] = fused.get(i, 0.0) + 1.0 / (self.rrf_k + rank + 1)
        for rank, i in enumerate(_top(dense, self.depth)):
            fused[i] = fused.get(i, 0.0) + 1.0 / (self.rrf_k + rank + 1)
        best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [
            Hit(self.chunks[i], s, bm25=float(lexical[i]), vector=float(dense[i])) for i, s in best
        ]


def _top(scores: np.ndarray, k: int) -> list[int]:
    n = scores.shape[0]
    if n == 0 or k <= 0:
        return []
    if k >= n:
        return [int(i) for i in np.argsort(-scores, kind="stable")]
    part = np.argpartition(-scores, k - 1)[:k]
    return [int(i) for i in part[np.argsort(-scores[part], kind="stable")]]
