"""Deterministic CBOR (RFC 8949, definite lengths) exactly as CONTRACT §11 fixes it.

Encoding rules: map keys are text, sorted by (length in code points, code point order), which
is what existing clients do (`sorted(keys, key=lambda k: (len(k), k))`); integers take their
shortest head; every float is a 64-bit `0xfb` float; `null`, `true`, `false` are the simple
values 0xf6, 0xf5, 0xf4. Nothing else (tags, undefined, half or single floats, indefinite
lengths, bignums) is ever written, and the decoder accepts only what the encoder writes, so that
`encode(decode(b)) == b` for every accepted `b`.
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Collection, Mapping
from typing import Any

__all__ = [
    "CBORDecodeError",
    "decode",
    "encode",
    "json_numbers_as_floats",
]

_MAX_UINT64 = (1 << 64) - 1
_MAX_DEPTH = 64  # payloads are shallow; a bound stops recursion bombs in hostile input

_MAJOR_UINT = 0
_MAJOR_NEGINT = 1
_MAJOR_BYTES = 2
_MAJOR_TEXT = 3
_MAJOR_ARRAY = 4
_MAJOR_MAP = 5

_FALSE = b"\xf4"
_TRUE = b"\xf5"
_NULL = b"\xf6"
_FLOAT64 = 0xFB


class CBORDecodeError(ValueError):
    """The bytes are not deterministic CBOR of the subset this ledger writes."""


def encode(value: Any, *, json_float_keys: Collection[str] = ()) -> bytes:
    """Encode `value` (dict with str keys, list/tuple, str, bytes, int, float, bool, None).

    ``json_float_keys``: top-level keys of a map whose values are JSON, encoded as
    ``json_numbers_as_floats`` would convert them (every number a float), in the same pass.
    """
    out = bytearray()
    if json_float_keys and isinstance(value, Mapping):
        _encode_map(out, value, False, json_float_keys)
    else:
        _encode_into(out, value)
    return bytes(out)


def decode(data: bytes) -> Any:
    """Decode one deterministic CBOR item, rejecting anything `encode` would not produce."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("CBOR input must be bytes")
    reader = _Reader(bytes(data))
    value = reader.item(0)
    if reader.pos != len(reader.data):
        raise CBORDecodeError(f"{len(reader.data) - reader.pos} trailing bytes after the item")
    return value


def json_numbers_as_floats(value: Any) -> Any:
    """Return a copy of a JSON value with every number (not bools) as a float.

    CONTRACT §11 encodes every number inside `tool_args`, `action_metadata`, `citations` and
    `evidence_chunks` as a 64-bit float, so `1` and `1.0` hash alike whatever the JSON spelling.
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError as exc:
            raise ValueError(f"integer {value} does not fit a 64-bit float") from exc
    if isinstance(value, float):
        return value
    if isinstance(value, Mapping):
        return {key: json_numbers_as_floats(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_numbers_as_floats(item) for item in value]
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _head(major: int, argument: int) -> bytes:
    """The initial byte plus the shortest argument encoding (RFC 8949 §4.2.1)."""
    if argument < 24:
        return _SMALL_HEADS[major][argument]
    if argument <= 0xFF:
        return bytes(((major << 5) | 24, argument))
    if argument <= 0xFFFF:
        return bytes(((major << 5) | 25,)) + argument.to_bytes(2, "big")
    if argument <= 0xFFFFFFFF:
        return bytes(((major << 5) | 26,)) + argument.to_bytes(4, "big")
    return bytes(((major << 5) | 27,)) + argument.to_bytes(8, "big")


_SMALL_HEADS = tuple(tuple(bytes(((major << 5) | n,)) for n in range(24)) for major in range(6))
_PACK_FLOAT64 = struct.Struct(">Bd").pack


def _map_key_order(key: str) -> tuple[int, str]:
    return (len(key), key)


@functools.lru_cache(maxsize=2048)
def _text_key(key: str) -> bytes:
    """A map key's encoding: the same few keys recur in every event, so they are kept."""
    try:
        raw = key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("text is not valid Unicode (lone surrogate)") from exc
    return _head(_MAJOR_TEXT, len(raw)) + raw


def _encode_into(out: bytearray, value: Any, floats: bool = False) -> None:
    """Append the encoding of ``value``; with ``floats``, every int (not bool) as a float.

    Dispatches on the exact type first (the common case, and the bulk of a decision's cost);
    subclasses (an ``OrderedDict``, an ``IntEnum``) take the general branches below.
    """
    kind = type(value)
    if kind is str:
        _encode_text(out, value)
    elif kind is dict:
        _encode_map(out, value, floats)
    elif value is None:
        out += _NULL
    elif value is True:
        out += _TRUE
    elif value is False:
        out += _FALSE
    elif kind is float or (floats and kind is int):
        _encode_float(out, value)
    elif kind is int:
        _encode_int(out, value)
    elif kind is list or kind is tuple:
        out += _head(_MAJOR_ARRAY, len(value))
        for item in value:
            _encode_into(out, item, floats)
    # bool before int: bool is a subclass of int in Python.
    elif isinstance(value, int):
        if floats:
            _encode_float(out, value)
        else:
            _encode_int(out, int(value))
    elif isinstance(value, float):
        _encode_float(out, value)
    elif isinstance(value, str):
        _encode_text(out, value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        if floats:
            raise TypeError(f"not a JSON value: {type(value).__name__}")
        raw = bytes(value)
        out += _head(_MAJOR_BYTES, len(raw))
        out += raw
    elif isinstance(value, (list, tuple)):
        out += _head(_MAJOR_ARRAY, len(value))
        for item in value:
            _encode_into(out, item, floats)
    elif isinstance(value, Mapping):
        _encode_map(out, value, floats)
    elif floats:
        raise TypeError(f"not a JSON value: {type(value).__name__}")
    else:
        raise TypeError(f"cannot encode {type(value).__name__} as ledger CBOR")


def _encode_text(out: bytearray, value: str) -> None:
    try:
        raw = value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("text is not valid Unicode (lone surrogate)") from exc
    out += _head(_MAJOR_TEXT, len(raw))
    out += raw


def _encode_int(out: bytearray, value: int) -> None:
    if value >= 0:
        if value > _MAX_UINT64:
            raise ValueError(f"integer {value} is out of the CBOR 64-bit range")
        out += _head(_MAJOR_UINT, value)
    else:
        if -1 - value > _MAX_UINT64:
            raise ValueError(f"integer {value} is out of the CBOR 64-bit range")
        out += _head(_MAJOR_NEGINT, -1 - value)


def _encode_float(out: bytearray, value: float | int) -> None:
    try:
        number = float(value)
    except OverflowError as exc:
        raise ValueError(f"integer {value} does not fit a 64-bit float") from exc
    if not math.isfinite(number):
        raise ValueError("NaN and infinities have no place in the ledger")
    out += _PACK_FLOAT64(_FLOAT64, number)


def _encode_map(
    out: bytearray, value: Mapping, floats: bool, float_keys: Collection[str] = ()
) -> None:
    for key in value:
        if type(key) is not str and not isinstance(key, str):
            raise TypeError(f"map keys must be text, not {type(key).__name__}")
    out += _head(_MAJOR_MAP, len(value))
    # (length, code points): a stable sort by length of the keys in code point order.
    for key in sorted(sorted(value), key=len):
        if type(key) is str:
            out += _text_key(key)
        else:
            _encode_into(out, key)
        _encode_into(out, value[key], floats or key in float_keys)


class _Reader:
    """A strict cursor over one buffer; every method raises CBORDecodeError on bad input."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, count: int) -> bytes:
        end = self.pos + count
        if end > len(self.data):
            raise CBORDecodeError("unexpected end of input")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def argument(self, info: int) -> int:
        if info < 24:
            return info
        if info == 24:
            value, minimum = self.take(1)[0], 24
        elif info == 25:
            value, minimum = int.from_bytes(self.take(2), "big"), 0x100
        elif info == 26:
            value, minimum = int.from_bytes(self.take(4), "big"), 0x10000
        elif info == 27:
            value, minimum = int.from_bytes(self.take(8), "big"), 0x100000000
        elif info == 31:
            raise CBORDecodeError("indefinite lengths are not deterministic CBOR")
        else:
            raise CBORDecodeError(f"reserved additional information {info}")
        if value < minimum:
            raise CBORDecodeError("integer or length not in its shortest form")
        return value

    def item(self, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise CBORDecodeError("nesting too deep")
        initial = self.take(1)[0]
        major, info = initial >> 5, initial & 0x1F
        if major == 7:
            return self.simple(initial)
        argument = self.argument(info)
        if major == _MAJOR_UINT:
            return argument
        if major == _MAJOR_NEGINT:
            return -1 - argument
        if major == _MAJOR_BYTES:
            return self.take(argument)
        if major == _MAJOR_TEXT:
            try:
                return self.take(argument).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CBORDecodeError("text is not valid UTF-8") from exc
        if major == _MAJOR_ARRAY:
            self.need(argument)
            return [self.item(depth + 1) for _ in range(argument)]
        if major == _MAJOR_MAP:
            return self.map(argument, depth)
        raise CBORDecodeError("tags are not part of ledger CBOR")

    def need(self, count: int) -> None:
        # Every element takes at least one byte: refuse lengths the input cannot hold
        # before allocating for them.
        if count > len(self.data) - self.pos:
            raise CBORDecodeError("length exceeds the remaining input")

    def map(self, count: int, depth: int) -> dict[str, Any]:
        self.need(2 * count)
        result: dict[str, Any] = {}
        previous: tuple[int, str] | None = None
        for _ in range(count):
            key = self.item(depth + 1)
            if not isinstance(key, str):
                raise CBORDecodeError("map keys must be text")
            order = _map_key_order(key)
            if previous is not None and order <= previous:
                raise CBORDecodeError(f"map key {key!r} is duplicated or out of order")
            previous = order
            result[key] = self.item(depth + 1)
        return result

    def simple(self, initial: int) -> Any:
        if initial == 0xF4:
            return False
        if initial == 0xF5:
            return True
        if initial == 0xF6:
            return None
        if initial == _FLOAT64:
            (value,) = struct.unpack(">d", self.take(8))
            if not math.isfinite(value):
                raise CBORDecodeError("NaN and infinities have no place in the ledger")
            return value
        raise CBORDecodeError(f"simple value or float form 0x{initial:02x} is not used here")
