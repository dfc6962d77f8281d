"""Request bodies of the JSON API, as pydantic models (also the OpenAPI schemas)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from webapp.api.parsing import check_json_numbers
from webapp.services.clearance import CLIENT_METADATA_FIELDS, NewRequest


class Body(BaseModel):
    # Unknown top-level fields are ignored so newer clients keep working (CONTRACT §1).
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)


class NewTenant(Body):
    name: StrictStr = Field(min_length=1, max_length=200)


class NewApiKey(Body):
    label: StrictStr = Field(default="", max_length=200)
    # CONTRACT §12: agent | review | manage; left out = all three. Checked by the service.
    scopes: list[StrictStr] | None = Field(default=None, max_length=10)


class NewUser(Body):
    email: StrictStr = Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    password: StrictStr = Field(min_length=12, max_length=512)
    role: StrictStr = Field(pattern="^(owner|reviewer|viewer)$")


class ReviewSettingsUpdate(Body):
    minimum_confidence_score: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    judge_failure_mode: StrictStr | None = Field(default=None, pattern="^(deny|review)$")
    required_approvals: StrictInt | None = Field(default=None, ge=1, le=5)
    # CONTRACT §7: the TypeScript client 0.4 sends a bucket instead of the score.
    minimum_confidence_bucket: StrictStr | None = Field(
        default=None, pattern="^(extra_high|high|medium|low|none)$"
    )


class ClearanceContext(Body):
    policy_id: StrictStr | None = Field(default=None)


class ClearanceRequestBody(Body):
    """Spec §2.1, validated here at the edge; ``command()`` gives the service its NewRequest."""

    tool_name: StrictStr = Field(max_length=256)
    tool_args: dict[str, Any]
    agent_id: StrictStr = Field(max_length=256)
    session_id: StrictStr | None = Field(default=None, max_length=256)
    context: ClearanceContext | None = None
    # Fields existing clients send (CONTRACT §1): kept as sent, whatever their JSON type.
    human_principal: Any = None
    parent_jti: Any = None
    destination_uri: Any = None
    destination_provider: Any = None
    destination_account_ref: Any = None
    data_categories: Any = None
    purpose: Any = None
    processing_register_ref: Any = None
    dataset_ref: Any = None

    @field_validator("tool_name", "agent_id")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        # CONTRACT §1: a string of only white space counts as empty.
        if not value.strip():
            raise ValueError("is required")
        return value.strip()

    def command(self) -> NewRequest:
        """The typed command; numbers are checked against CONTRACT §1 with their paths."""
        check_json_numbers(self.tool_args, "tool_args")
        metadata = {
            name: getattr(self, name)
            for name in CLIENT_METADATA_FIELDS
            if getattr(self, name) is not None
        }
        check_json_numbers(metadata, "metadata")
        hint = self.context.policy_id if self.context and self.context.policy_id else ""
        return NewRequest(
            tool_name=self.tool_name,
            tool_args=self.tool_args,
            agent_id=self.agent_id,
            session_id=(self.session_id or "").strip(),
            policy_hint=hint.strip()[:128],
            metadata=metadata,
        )


class ConsumeTokenBody(Body):
    token: StrictStr = Field(min_length=1, max_length=8192)
    tool_name: StrictStr | None = None
    tool_args: dict | None = None


class PolicyBody(Body):
    """CONTRACT §6; validated by the policy service, documented here."""

    policy_id: StrictStr = Field(pattern=r"^[A-Za-z0-9._:-]{1,128}$")
    description: StrictStr | None = Field(default="", max_length=2000)
    rules: list[StrictStr] = Field(min_length=1, max_length=500)
    tools: list[StrictStr] | None = Field(default=None, max_length=500)


class LockdownBody(Body):
    reason: StrictStr | None = Field(default="", max_length=2000)
