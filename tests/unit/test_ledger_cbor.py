"""Deterministic CBOR of CONTRACT §11: golden bytes checked by hand, strict decoding, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.ledger_support import client_cbor
from webapp.ledger import cbor

GOLDEN = [
    # integers: shortest head (RFC 8949 §3.1 and Appendix A)
    (0, "00"),
    (1, "01"),
    (23, "17"),
    (24, "1818"),
    (255, "18ff"),
    (256, "190100"),
    (65535, "19ffff"),
    (65536, "1a00010000"),
    (2**32 - 1, "1affffffff"),
    (2**32, "1b0000000100000000"),
    (2**64 - 1, "1bffffffffffffffff"),
    (-1, "20"),
    (-24, "37"),
    (-25, "3818"),
    (-256, "38ff"),
    (-257, "390100"),
    (-(2**64), "3bffffffffffffffff"),
    # every float is 64-bit, even when a shorter form would be exact
    (0.0, "fb0000000000000000"),
    (-0.0, "fb8000000000000000"),
    (1.0, "fb3ff0000000000000"),
    (1.5, "fb3ff8000000000000"),
    (0.1, "fb3fb999999999999a"),
    (-4.1, "fbc010666666666666"),
    (1e300, "fb7e37e43c8800759c"),
    # simple values
    (False, "f4"),
    (True, "f5"),
    (None, "f6"),
    # strings
    ("", "60"),
    ("a", "6161"),
    ("IETF", "6449455446"),
    ("ü", "62c3bc"),
    ("水", "63e6b0b4"),
    ("x" * 24, "7818" + "78" * 24),
    (b"", "40"),
    (b"\x01\x02\x03\x04", "4401020304"),
    # arrays and nesting
    ([], "80"),
    ([1, [2, 3], [4, 5]], "8301820203820405"),
    (list(range(1, 26)), "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
    (("a", None), "826161f6"),
    # maps: keys by length first, then code point
    ({}, "a0"),
    ({"b": 1, "a": 2}, "a2616102616201"),
    ({"aa": 1, "b": 2}, "a261620262616101"),
    ({"a": 1, "b": [2, 3]}, "a26161016162820203"),
    ({"Z": 1, "a": 2, "AA": 3}, "a3615a016161026241410" + "3"),
    ({"é": 1, "z": 2}, "a2617a0262c3a901"),
    ({"n": {"y": True, "x": 1.0}}, "a1616ea26178fb3ff00000000000006179f5"),
]


@pytest.mark.parametrize(("value", "expected"), GOLDEN, ids=[repr(v)[:40] for v, _ in GOLDEN])
def test_golden_encoding(value: object, expected: str) -> None:
    assert cbor.encode(value).hex() == expected


@pytest.mark.parametrize(("value", "expected"), GOLDEN, ids=[repr(v)[:40] for v, _ in GOLDEN])
def test_golden_decoding_round_trips(value: object, expected: str) -> None:
    decoded = cbor.decode(bytes.fromhex(expected))
    assert cbor.encode(decoded).hex() == expected
    if isinstance(value, tuple):
        value = list(value)
    assert decoded == value
    assert type(decoded) is type(value)


def test_map_key_order_is_length_then_code_point_not_bytewise() -> None:
    # RFC 8949's bytewise order of encoded keys would put "aa" (62 61 61) before "ÿ" (62 c3 bf);
    # the contract counts characters, so the one-character "ÿ" comes first.
    keys = ["policy_id", "b", "tool_args", "confidence", "ab", "aa", "ÿ", "z", "accepted_at"]
    encoded = cbor.encode(dict.fromkeys(keys, 0))
    decoded_order = list(cbor.decode(encoded))
    assert decoded_order == sorted(keys, key=lambda k: (len(k), k))
    assert decoded_order[:4] == ["b", "z", "ÿ", "aa"]


def test_event_shaped_map_golden() -> None:
    value = {"version": 1, "type": "event_receipt", "leaf_hash": "ab"}
    # type (4) < version (7) < leaf_hash (9)
    assert cbor.encode(value).hex() == (
        "a3" + "6474797065" + "6d6576656e745f72656365697074"
        "6776657273696f6e" + "01" + "696c6561665f68617368" + "626162"
    )


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_floats_are_refused(value: float) -> None:
    with pytest.raises(ValueError):
        cbor.encode({"x": [value]})


@pytest.mark.parametrize("value", [object(), {1: "a"}, {("a",): 1}, {1.5}, 1j, bytearray])
def test_unsupported_types_are_refused(value: object) -> None:
    with pytest.raises(TypeError):
        cbor.encode(value)


@pytest.mark.parametrize("value", [2**64, -(2**64) - 1])
def test_integers_beyond_64_bits_are_refused(value: int) -> None:
    with pytest.raises(ValueError):
        cbor.encode(value)


def test_lone_surrogates_are_refused() -> None:
    with pytest.raises(ValueError):
        cbor.encode("\ud800")


@pytest.mark.parametrize(
    ("hex_bytes", "why"),
    [
        ("1817", "23 not in its shortest form"),
        ("190017", "16-bit head for a small value"),
        ("1a0000ffff", "32-bit head for a 16-bit value"),
        ("1b00000000ffffffff", "64-bit head for a 32-bit value"),
        ("5f4101ff", "indefinite byte string"),
        ("9f01ff", "indefinite array"),
        ("bf616101ff", "indefinite map"),
        ("c11a514b67b0", "tag"),
        ("f93c00", "half float"),
        ("fa3fc00000", "single float"),
        ("fb7ff8000000000000", "NaN"),
        ("fb7ff0000000000000", "infinity"),
        ("f7", "undefined"),
        ("f0", "unassigned simple value"),
        ("f818", "one-byte simple value"),
        ("a2616201616102", "keys out of order"),
        ("a2616101616102", "duplicate key"),
        ("a2626161016162" + "02", "longer key before shorter"),
        ("a10101", "integer map key"),
        ("a1410101", "byte string map key"),
        ("62c3", "truncated text"),
        ("62c328", "invalid UTF-8"),
        ("0000", "trailing bytes"),
        ("", "empty input"),
        ("9bffffffffffffffff", "array longer than the input"),
        ("1c", "reserved additional information"),
        ("fb3ff00000", "truncated float"),
    ],
)
def test_decoder_accepts_only_the_deterministic_subset(hex_bytes: str, why: str) -> None:
    with pytest.raises(cbor.CBORDecodeError):
        cbor.decode(bytes.fromhex(hex_bytes))


def test_decoder_bounds_nesting() -> None:
    with pytest.raises(cbor.CBORDecodeError):
        cbor.decode(b"\x81" * 1000 + b"\x00")


def test_json_numbers_become_floats_but_bools_do_not() -> None:
    value = {"a": 1, "b": [2, 2.5, True, None, "3"], "c": {"d": -7, "e": False}}
    converted = cbor.json_numbers_as_floats(value)
    assert converted == {"a": 1.0, "b": [2.0, 2.5, True, None, "3"], "c": {"d": -7.0, "e": False}}
    assert type(converted["a"]) is float
    assert converted["b"][2] is True and converted["c"]["e"] is False
    assert value["a"] == 1 and type(value["a"]) is int  # the input is left alone
    assert cbor.encode(cbor.json_numbers_as_floats({"n": 1})) == cbor.encode({"n": 1.0})


def test_json_numbers_as_floats_refuses_non_json() -> None:
    with pytest.raises(TypeError):
        cbor.json_numbers_as_floats({"a": object()})
    with pytest.raises(ValueError):
        cbor.json_numbers_as_floats(10**400)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.binary(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@given(json_values)
def test_decode_inverts_encode(value: object) -> None:
    encoded = cbor.encode(value)
    decoded = cbor.decode(encoded)
    assert cbor.encode(decoded) == encoded
    assert _same(decoded, value)


@given(st.binary(max_size=64))
def test_decoder_never_crashes_and_only_accepts_canonical_bytes(data: bytes) -> None:
    try:
        value = cbor.decode(data)
    except cbor.CBORDecodeError:
        return
    assert cbor.encode(value) == data


def _same(a: object, b: object) -> bool:
    """Equality that also tells 1 from 1.0 from True, and -0.0 from 0.0."""
    if isinstance(b, float):
        return isinstance(a, float) and math.copysign(1, a) == math.copysign(1, b) and a == b
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in b)
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@given(json_values)
def test_encoder_matches_theclient_cbor(value: object) -> None:
    assert cbor.encode(value) == client_cbor(value)


json_only = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@given(st.dictionaries(st.text(max_size=6), json_only, max_size=6), st.data())
def test_json_float_keys_encode_as_the_converted_copy(value: dict, data: st.DataObject) -> None:
    """Encoding some top-level values with their numbers as floats, in one pass, gives the
    bytes of the converted copy that the ledger hashed before (CONTRACT §11)."""
    float_keys = data.draw(st.sets(st.sampled_from(sorted(value) or [""])))
    converted = {
        key: cbor.json_numbers_as_floats(item) if key in float_keys else item
        for key, item in value.items()
    }
    assert cbor.encode(value, json_float_keys=float_keys) == cbor.encode(converted)
    assert cbor.encode(value, json_float_keys=float_keys) == client_cbor(converted)


def test_json_float_keys_refuse_what_is_not_json() -> None:
    with pytest.raises(TypeError):
        cbor.encode({"tool_args": {"a": b"bytes"}}, json_float_keys={"tool_args"})
    with pytest.raises(ValueError):
        cbor.encode({"tool_args": {"a": 10**400}}, json_float_keys={"tool_args"})
    assert cbor.encode({"raw": b"x"}, json_float_keys={"tool_args"}) == cbor.encode({"raw": b"x"})
