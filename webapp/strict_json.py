"""Strict JSON decoding for untrusted input (CONTRACT §1), shared by the API edge and tokens.

``json.loads`` alone accepts what later breaks or misleads: a duplicate key keeps its last value
(a tool boundary whose parser keeps the first would run another action than the one approved),
a lone surrogate cannot be encoded again, a NUL is refused by PostgreSQL but kept by SQLite,
and nesting a thousand levels deep raises ``RecursionError`` here or in the CBOR encoder. This
decoder refuses all of those with a ``StrictJSONError`` that names what was wrong, so the edge
can answer 400 before anything is written.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64  # a whole body
MAX_VALUES = 200_000  # a whole body (1 MiB holds ~250,000 one-digit array items)
TOOL_ARGS_MAX_DEPTH = 32  # CONTRACT §1: tool_args itself is level 1
TOOL_ARGS_MAX_VALUES = 10_000
TOOL_ARGS_KEY = "tool_args"


class StrictJSONError(ValueError):
    """The text is not acceptable JSON; ``field`` names the key or path concerned."""

    def __init__(self, message: str, field: str = "body") -> None:
        super().__init__(message)
        self.field = field


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(
    text: str | bytes,
    *,
    max_depth: int = MAX_DEPTH,
    max_values: int = MAX_VALUES,
    tool_args_key: str | None = TOOL_ARGS_KEY,
) -> Any:
    """Decode ``text``; StrictJSONError for anything CONTRACT §1 refuses.

    Every object named ``tool_args_key``, at any level, is held to the tighter tool_args
    bounds (32 levels, 10,000 values), so each endpoint that carries tool arguments
    (clearance, consume-token, policy examples...) gets them without its own check.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise StrictJSONError("body is not valid UTF-8") from None
    try:
        value = json.loads(text, object_pairs_hook=_unique_object, parse_constant=_refuse_constant)
    except _DuplicateKey as duplicate:
        key = _printable(duplicate.key)
        raise StrictJSONError(f"duplicate key {key!r} in the JSON body", field=key) from None
    except RecursionError:
        raise StrictJSONError(f"JSON nests deeper than {max_depth} levels") from None
    except ValueError as error:
        raise StrictJSONError(f"body is not valid JSON: {str(error)[:200]}") from None
    check_shape(
        value,
        max_depth=max_depth,
        max_values=max_values,
        tool_args_key=tool_args_key,
        scan_text="\\u" in text,
    )
    return value


def check_shape(
    value: Any,
    *,
    max_depth: int = MAX_DEPTH,
    max_values: int = MAX_VALUES,
    tool_args_key: str | None = TOOL_ARGS_KEY,
    scan_text: bool = True,
) -> None:
    """Depth, value count, and text free of NUL and lone surrogates, in one iterative walk.

    Without ``\\u`` escapes in the source no string can hold a NUL or a surrogate (raw control
    characters are invalid JSON and UTF-8 cannot encode surrogates), so ``scan_text`` lets the
    caller skip the text checks then.
    """
    # Each entry: (value, depth, path, depth inside tool_args or 0, the tool_args path).
    stack: list[tuple[Any, int, str, int, str]] = [(value, 1, "", 0, "")]
    count = 0
    args_counts: dict[str, int] = {}
    while stack:
        item, depth, path, args_depth, args_path = stack.pop()
        count += 1
        if count > max_values:
            raise StrictJSONError(f"JSON holds more than {max_values} values")
        if args_depth:
            args_counts[args_path] = args_counts.get(args_path, 0) + 1
            if args_counts[args_path] > TOOL_ARGS_MAX_VALUES:
                raise StrictJSONError(
                    f"{args_path} holds more than {TOOL_ARGS_MAX_VALUES} values",
                    field=_printable(args_path),
                )
        if isinstance(item, str):
            if scan_text:
                _check_text(item, path or "body")
            continue
        if isinstance(item, dict):
            children = [(str(k), v, f"{path}.{k}" if path else str(k)) for k, v in item.items()]
        elif isinstance(item, list):
            children = [(None, v, f"{path}[{i}]") for i, v in enumerate(item)]
        else:
            continue
        # Levels are containers: {"a": 1} is one level, {"a": {"b": 1}} two.
        if depth > max_depth:
            raise StrictJSONError(
                f"JSON nests deeper than {max_depth} levels", field=_printable(path or "body")
            )
        if args_depth > TOOL_ARGS_MAX_DEPTH:
            raise StrictJSONError(
                f"{args_path} nests deeper than {TOOL_ARGS_MAX_DEPTH} levels",
                field=_printable(args_path),
            )
        for key, child, child_path in children:
            if key is not None and scan_text:
                _check_text(key, child_path)
            if args_depth:
                stack.append((child, depth + 1, child_path, args_depth + 1, args_path))
            elif key is not None and key == tool_args_key and isinstance(child, (dict, list)):
                stack.append((child, depth + 1, child_path, 1, child_path))
            else:
                stack.append((child, depth + 1, child_path, 0, ""))


def _check_text(text: str, field: str) -> None:
    if "\x00" in text:
        raise StrictJSONError(
            f"{_printable(field)} contains a NUL character", field=_printable(field)
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise StrictJSONError(
            f"{_printable(field)} contains a lone surrogate", field=_printable(field)
        ) from None


def _printable(text: str, limit: int = 100) -> str:
    """A key or path fit to quote in an error: no surrogates, NULs or unbounded length."""
    cleaned = text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")
    return cleaned if len(cleaned) <= limit else cleaned[:limit] + "…"
