"""Request bodies of the JSON API, as pydantic models (also the OpenAPI schemas)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr


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


class ClearanceContext(Body):
    policy_id: StrictStr | None = Field(default=None, max_length=128)


class ClearanceRequestBody(Body):
    """Spec §2.1. Validated by the clearance service; this model documents it."""

    tool_name: StrictStr = Field(min_length=1, max_length=256)
    tool_args: dict
    agent_id: StrictStr = Field(min_length=1, max_length=256)
    session_id: StrictStr | None = Field(default=None, max_length=256)
    context: ClearanceContext | None = None
    human_principal: StrictStr | None = None
    parent_jti: StrictStr | None = None
    destination_uri: StrictStr | None = None
    destination_provider: StrictStr | None = None
    destination_account_ref: StrictStr | None = None
    data_categories: list | None = None
    purpose: StrictStr | None = None
    processing_register_ref: StrictStr | None = None
    dataset_ref: StrictStr | None = None


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
