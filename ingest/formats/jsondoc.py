"""JSON: a policy in the shape of `POST /register-policy` is recognised and returned with its
rules; any other JSON is flattened to readable "path: value" lines.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ingest.document import Document, PolicySpec, Section
from ingest.errors import IngestError
from ingest.formats.tables import RULE_COLUMNS
from ingest.text import normalise_whitespace

POLICY_KEYS = frozenset({"policy_id", "description", "rules", "tools"})
MAX_RULES = 500
MAX_RULE_CHARS = 2000
MAX_DESCRIPTION_CHARS = 2000
_POLICY_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_MAX_LEAVES = 50_000


def extract_json(text: str, name: str, stem: str) -> Document:
    """Parse JSON strictly; return a policy document, or the flattened values of any JSON."""
    value = parse_json(text, name)
    if is_policy(value):
        policy = _policy(value, name)
        return _policy_document(policy, stem)
    sections = _flatten(value)
    return Document(title=stem, format="json", sections=tuple(sections))


def parse_json(text: str, name: str) -> Any:
    """Parse JSON, refusing NaN and Infinity, with the position of the first error."""

    def refuse_constant(constant: str) -> Any:
        raise ValueError(f"{constant} is not valid JSON")

    try:
        return json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as exc:
        raise IngestError(
            "malformed_json",
            f"{name} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}).",
        ) from None
    except ValueError as exc:
        raise IngestError("malformed_json", f"{name} is not valid JSON: {exc}.") from None
    except RecursionError:
        raise IngestError("malformed_json", f"{name} is nested too deeply to read.") from None


def is_policy(value: Any) -> bool:
    """A JSON object with a `rules` list, and either a `policy_id` or only policy keys."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("rules"), list)
        and ("policy_id" in value or set(value) <= POLICY_KEYS)
    )


def _policy(value: dict[str, Any], name: str) -> PolicySpec:
    def invalid(reason: str) -> IngestError:
        return IngestError("invalid_policy", f"{name} is a policy file, but {reason}.")

    policy_id = value.get("policy_id")
    if policy_id is not None and (
        not isinstance(policy_id, str) or not _POLICY_ID.match(policy_id)
    ):
        raise invalid("its policy_id must be 1 to 128 letters, digits or . _ : -")
    description = value.get("description") or ""
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION_CHARS:
        raise invalid(f"its description must be text of at most {MAX_DESCRIPTION_CHARS} characters")
    rules = value["rules"]
    if not 1 <= len(rules) <= MAX_RULES:
        raise invalid(f"it must have between 1 and {MAX_RULES} rules (it has {len(rules)})")
    for number, rule in enumerate(rules, start=1):
        if not isinstance(rule, str) or not rule.strip():
            raise invalid(f"rule {number} is not a non-empty text")
        if len(rule) > MAX_RULE_CHARS:
            raise invalid(f"rule {number} is longer than {MAX_RULE_CHARS} characters")
    tools = value.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, str) and t.strip() for t in tools):
        raise invalid("its tools must be a list of tool names or patterns")
    return PolicySpec(
        policy_id=policy_id,
        description=description,
        rules=tuple(rules),
        tools=tuple(tools),
    )


def _policy_document(policy: PolicySpec, stem: str) -> Document:
    sections: list[Section] = []
    if policy.description.strip():
        sections.append(
            Section(
                normalise_whitespace(policy.description),
                None,
                None,
                "paragraph",
                locator="description",
            )
        )
    if policy.tools:
        sections.append(
            Section(
                "Applies to tools: " + ", ".join(policy.tools),
                None,
                None,
                "paragraph",
                locator="tools",
            )
        )
    for index, rule in enumerate(policy.rules):
        text = normalise_whitespace(rule)
        sections.append(
            Section(text, "Rules", None, "list", ("Rules",), 1, f"rules[{index}]", text)
        )
    title = policy.policy_id or normalise_whitespace(policy.description)[:120] or stem
    return Document(title=title, format="json", sections=tuple(sections), policy=policy)


def _flatten(value: Any) -> list[Section]:
    sections: list[Section] = []
    stack: list[tuple[str, Any, tuple[str, ...], str | None]] = [("", value, (), None)]
    # Depth-first in document order: children are pushed in reverse.
    while stack:
        path, node, heading_path, parent_key = stack.pop()
        if isinstance(node, dict):
            items = list(node.items())
            for key, child in reversed(items):
                key = str(key)
                child_path = f"{path}.{key}" if path else key
                stack.append((child_path, child, heading_path or (key,), key))
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                stack.append((f"{path}[{index}]", node[index], heading_path, parent_key))
        else:
            if len(sections) >= _MAX_LEAVES:
                break
            text = _scalar(node)
            if text == "":
                continue
            is_rule_key = parent_key is not None and parent_key.lower() in RULE_COLUMNS
            declared = text if is_rule_key and isinstance(node, str) else None
            label = path or "value"
            sections.append(
                Section(
                    f"{label}: {text}",
                    heading_path[0] if heading_path else None,
                    None,
                    "paragraph",
                    heading_path,
                    None,
                    label,
                    declared,
                )
            )
    return sections


def _scalar(node: Any) -> str:
    if node is None:
        return "null"
    if isinstance(node, bool):
        return "true" if node else "false"
    if isinstance(node, str):
        return normalise_whitespace(node)
    return str(node)
