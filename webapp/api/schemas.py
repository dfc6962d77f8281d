"""Request bodies of the JSON API, as pydantic models (also the OpenAPI schemas)."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from webapp.api.parsing import check_json_numbers
from webapp.errors import InvalidInput, field_error
from webapp.judge.types import ClearanceQuery
from webapp.judge.vocabulary import MAX_TERMS, MAX_VALUE_CHARS, MAX_VALUES
from webapp.models import API_KEY_SCOPES, utcnow
from webapp.runtime import vault
from webapp.services import (
    drift,
    glossary,
    notifications,
    outbound,
    policies,
    policy_trials,
    reports,
    reviews,
    settings,
    webhooks,
)
from webapp.services.clearance import CLIENT_METADATA_FIELDS, NewRequest
from webapp.services.notifications import is_valid_email

# A sensitive argument name: printable, 1 to 128 characters (\Z: no trailing newline).
_ARG_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,128}\Z")


class Body(BaseModel):
    # Unknown top-level fields are ignored so newer clients keep working (CONTRACT §1).
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)


class NewTenant(Body):
    name: StrictStr = Field(min_length=1, max_length=200)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        # CONTRACT §1: only white space counts as empty (the message the service gave).
        if not value.strip():
            raise field_error("name", "must be 1 to 200 characters")
        return value.strip()


class NewApiKey(Body):
    """`POST /admin/tenants/{client_id}/api-keys` (CONTRACT §12), validated here at the edge
    (and for the dashboard's form): the label stripped, the scopes known and in canonical
    order; left out, all three."""

    label: StrictStr = Field(default="", max_length=200)
    # Validated as strings so that an unknown scope gets the message below; documented as the
    # three names.
    scopes: (
        Annotated[
            list[StrictStr],
            Field(max_length=10),
            WithJsonSchema(
                {
                    "type": "array",
                    "items": {"type": "string", "enum": list(API_KEY_SCOPES)},
                    "minItems": 1,
                    "maxItems": 10,
                }
            ),
        ]
        | None
    ) = None

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        return value.strip()

    @field_validator("scopes")
    @classmethod
    def _scopes(cls, scopes: list[str] | None) -> list[str] | None:
        # The messages the tenants service gave when it checked the scopes itself, raised as
        # InvalidInput (passed through by pydantic) to keep their detail.
        if scopes is None:
            return None
        unknown = sorted({s for s in scopes if s not in API_KEY_SCOPES})
        if unknown:
            choices = ", ".join(API_KEY_SCOPES)
            raise field_error("scopes", f"unknown scope {unknown[0]!r}; choose from {choices}")
        if not scopes:
            raise field_error("scopes", "must name at least one scope (or be left out for all)")
        return [s for s in API_KEY_SCOPES if s in scopes]

    def command(self) -> tuple[str, tuple[str, ...]]:
        """The label and the scopes the tenants service stores."""
        return self.label, tuple(self.scopes or API_KEY_SCOPES)


class NewUser(Body):
    email: StrictStr = Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    password: StrictStr = Field(min_length=12, max_length=512)
    role: StrictStr = Field(pattern="^(owner|reviewer|viewer)$")


class ReviewSettingsUpdate(Body):
    """`PUT /review-settings` (CONTRACT §7), validated here at the edge; ``command()`` gives the
    settings service its ReviewSettingsChange. Any field may come alone, but not none of them.

    The messages after the schema's own are the ones the settings service gave when it checked
    the body itself.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra={"minProperties": 1})
    minimum_confidence_score: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    judge_failure_mode: StrictStr | None = Field(default=None, pattern="^(deny|review)$")
    required_approvals: StrictInt | None = Field(
        default=None, ge=1, le=settings.MAX_REQUIRED_APPROVALS
    )
    # CONTRACT §7: the TypeScript client 0.4 sends a bucket instead of the score.
    minimum_confidence_bucket: StrictStr | None = Field(
        default=None, pattern="^(extra_high|high|medium|low|none)$"
    )

    @model_validator(mode="after")
    def _present_and_not_null(self) -> ReviewSettingsUpdate:
        # Raised as InvalidInput (passed through by pydantic): the detail and the field errors
        # stay what clients were given, and a null is refused like a wrong value.
        sent = self.model_fields_set
        if not sent:
            raise InvalidInput(
                "send minimum_confidence_score (or minimum_confidence_bucket), "
                "judge_failure_mode and/or required_approvals",
                errors=[{"field": "body", "message": "no settings given"}],
            )
        if "minimum_confidence_bucket" in sent:
            if "minimum_confidence_score" in sent:
                raise InvalidInput(
                    "send minimum_confidence_score or minimum_confidence_bucket, not both",
                    errors=[
                        {
                            "field": "minimum_confidence_bucket",
                            "message": "conflicts with the score",
                        }
                    ],
                )
            if self.minimum_confidence_bucket is None:
                raise InvalidInput(
                    "minimum_confidence_bucket must be one of "
                    + ", ".join(settings.BUCKET_CUTOFFS),
                    errors=[{"field": "minimum_confidence_bucket", "message": "is not a bucket"}],
                )
        if "minimum_confidence_score" in sent and self.minimum_confidence_score is None:
            raise InvalidInput(
                "minimum_confidence_score must be a number in [0, 1]",
                errors=[
                    {"field": "minimum_confidence_score", "message": "must be a number in [0, 1]"}
                ],
            )
        if "judge_failure_mode" in sent and self.judge_failure_mode is None:
            raise InvalidInput(
                "judge_failure_mode must be deny or review",
                errors=[{"field": "judge_failure_mode", "message": "must be deny or review"}],
            )
        if "required_approvals" in sent and self.required_approvals is None:
            most = settings.MAX_REQUIRED_APPROVALS
            raise InvalidInput(
                f"required_approvals must be an integer from 1 to {most}",
                errors=[
                    {
                        "field": "required_approvals",
                        "message": f"must be an integer from 1 to {most}",
                    }
                ],
            )
        return self

    def command(self) -> settings.ReviewSettingsChange:
        """The change; a bucket stands for its lower cut-off score (CONTRACT §7)."""
        score = self.minimum_confidence_score
        if self.minimum_confidence_bucket is not None:
            score = settings.BUCKET_CUTOFFS[self.minimum_confidence_bucket]
        return settings.ReviewSettingsChange(
            minimum_confidence_score=score,
            judge_failure_mode=self.judge_failure_mode,
            required_approvals=self.required_approvals,
        )


class DriftSettingsUpdate(Body):
    """`PUT /drift/settings` (CONTRACT §7), validated here at the edge; ``command()`` gives the
    drift service its DriftSettingsChange. Any field may come alone, but not none of them.

    Every bad field is reported, with the messages the drift service gave when it checked the
    body itself; a whole number sent as 3.0 counts as the integer 3.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra={"minProperties": 1})
    enabled: StrictBool | None = None
    baseline_days: StrictInt | None = Field(default=None, ge=1, le=90)
    window_hours: StrictInt | None = Field(default=None, ge=1, le=168)
    score_threshold: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    min_events: StrictInt | None = Field(default=None, ge=1, le=10_000)
    auto_lockdown: StrictBool | None = None

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        if not isinstance(body, dict):
            return body
        # Raised as InvalidInput (passed through by pydantic) so that every field error keeps
        # its message and the errors keep the body's order.
        known = {k: v for k, v in body.items() if k in drift.DEFAULTS}
        if not known:
            raise InvalidInput(
                "send at least one drift setting",
                errors=[{"field": "body", "message": "no drift settings given"}],
            )
        clean: dict[str, Any] = {}
        errors: list[dict[str, str]] = []
        for name, value in known.items():
            if name in ("enabled", "auto_lockdown"):
                if not isinstance(value, bool):
                    errors.append({"field": name, "message": "must be true or false"})
                else:
                    clean[name] = value
            elif name in drift.INTEGER_RANGES:
                low, high = drift.INTEGER_RANGES[name]
                whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
                if isinstance(value, bool) or not whole or not low <= value <= high:
                    errors.append(
                        {"field": name, "message": f"must be an integer from {low} to {high}"}
                    )
                else:
                    clean[name] = int(value)
            elif (  # score_threshold
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or not 0 <= value <= 1
            ):
                errors.append({"field": name, "message": "must be a number from 0 to 1"})
            else:
                clean[name] = float(value)
        if errors:
            raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
        return clean

    def command(self) -> drift.DriftSettingsChange:
        return drift.DriftSettingsChange(**self.model_dump(exclude_unset=True))


class NewWebhook(Body):
    """`POST /webhooks` (CONTRACT §14), validated here at the edge (and for the dashboard's
    form); ``command()`` gives the webhooks service its NewEndpoint.

    The URL must be https (http too with VAULT_WEBHOOK_ALLOW_PRIVATE) and pass the outbound
    checks; every bad field is reported with the messages the service gave when it checked the
    body itself. The per-tenant limit on endpoints is the service's rule.
    """

    url: StrictStr = Field(min_length=1, max_length=webhooks.MAX_URL_CHARS)
    events: list[Literal[webhooks.EVENT_TYPES]] = Field(min_length=1)  # type: ignore[valid-type]
    description: StrictStr | None = Field(default=None, max_length=webhooks.MAX_DESCRIPTION)

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        # Raised as InvalidInput (passed through by pydantic) so that every field error keeps
        # its message and its order.
        if not isinstance(body, dict):
            return body
        errors: list[dict[str, str]] = []
        url = _webhook_url(body.get("url"), errors)
        events = _webhook_events(body.get("events"), errors)
        description = body.get("description")
        if description is None:
            description = ""
        if not isinstance(description, str) or len(description) > webhooks.MAX_DESCRIPTION:
            errors.append(
                {
                    "field": "description",
                    "message": f"must be text of at most {webhooks.MAX_DESCRIPTION}",
                }
            )
        if errors:
            raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
        return {"url": url, "events": events, "description": description.strip()}

    def command(self) -> webhooks.NewEndpoint:
        return webhooks.NewEndpoint(self.url, list(self.events), self.description or "")


class NotificationSettingsUpdate(Body):
    """`PUT /notification-settings` (spec §2.6, CONTRACT §7), validated here at the edge (and
    for the dashboard's form); every field optional, null counting as left out. ``command()``
    gives the notifications service its NotificationSettingsChange. The Slack URL is checked by
    the service: its masked form, sent back, means "unchanged"."""

    email_enabled: StrictBool | None = None
    email_recipients: list[StrictStr] | StrictStr | None = None
    slack_enabled: StrictBool | None = None
    slack_webhook_url: StrictStr | None = None
    sensitive_args: list[StrictStr] | None = Field(
        default=None, max_length=notifications.MAX_SENSITIVE_ARGS
    )

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        # The messages the notifications service gave when it checked the body itself, every
        # bad field reported in that order; raised as InvalidInput (passed through by pydantic).
        if not isinstance(body, dict):
            return body
        sent = {k: v for k, v in body.items() if k in cls.model_fields and v is not None}
        clean: dict[str, Any] = {}
        errors: list[dict[str, str]] = []
        for name in ("email_enabled", "slack_enabled"):
            if name in sent:
                if not isinstance(sent[name], bool):
                    errors.append({"field": name, "message": "must be true or false"})
                else:
                    clean[name] = sent[name]
        if "email_recipients" in sent:
            clean["email_recipients"], problems = _recipients(sent["email_recipients"])
            errors += problems
        if "sensitive_args" in sent:
            clean["sensitive_args"], problems = _sensitive_args(sent["sensitive_args"])
            errors += problems
        if "slack_webhook_url" in sent:
            if not isinstance(sent["slack_webhook_url"], str):
                errors.append({"field": "slack_webhook_url", "message": "must be a string"})
            else:
                clean["slack_webhook_url"] = sent["slack_webhook_url"]
        if errors:
            raise InvalidInput(f"{errors[0]['field']}: {errors[0]['message']}", errors=errors)
        return clean

    def command(self) -> notifications.NotificationSettingsChange:
        return notifications.NotificationSettingsChange(
            email_enabled=self.email_enabled,
            email_recipients=self.email_recipients,  # type: ignore[arg-type]  # a list by now
            slack_enabled=self.slack_enabled,
            slack_webhook_url=self.slack_webhook_url,
            sensitive_args=self.sensitive_args,
        )


class ReportSettingsBody(Body):
    """`PUT /report-settings` (CONTRACT §7 "Report"), validated here at the edge (and for the
    dashboard's form); any field may come alone. ``command()`` gives the reports service its
    ReportSettingsChange. Every bad field is reported with the message the service gave when it
    checked the body itself; ``recipients`` is a list or a comma-separated string."""

    enabled: StrictBool | None = None
    frequency: Literal[reports.FREQUENCIES] | None = None  # type: ignore[valid-type]
    formats: list[Literal[reports.FORMATS]] | None = Field(  # type: ignore[valid-type]
        default=None, min_length=1
    )
    recipients: list[StrictStr] | StrictStr | None = None

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        # Raised as InvalidInput (passed through by pydantic) to keep the messages and order.
        if not isinstance(body, dict):
            return body
        clean: dict[str, Any] = {}
        errors: list[dict[str, str]] = []
        if "enabled" in body:
            if not isinstance(body["enabled"], bool):
                errors.append({"field": "enabled", "message": "must be true or false"})
            else:
                clean["enabled"] = body["enabled"]
        if "frequency" in body:
            if body["frequency"] not in reports.FREQUENCIES:
                choices = ", ".join(reports.FREQUENCIES)
                errors.append({"field": "frequency", "message": f"must be one of {choices}"})
            else:
                clean["frequency"] = body["frequency"]
        if "formats" in body:
            formats, problem = _report_formats(body["formats"])
            if problem:
                errors.append({"field": "formats", "message": problem})
            else:
                clean["formats"] = formats
        if "recipients" in body:
            recipients, problems = _recipients(body["recipients"])
            errors += [{"field": "recipients", "message": p["message"]} for p in problems]
            clean["recipients"] = recipients
        if errors:
            raise InvalidInput(f"{errors[0]['field']}: {errors[0]['message']}", errors=errors)
        return clean

    def command(self) -> reports.ReportSettingsChange:
        return reports.ReportSettingsChange(
            enabled=self.enabled,
            frequency=self.frequency,
            formats=self.formats,
            recipients=self.recipients,  # type: ignore[arg-type]  # a list once validated
        )


class NewReportBody(Body):
    """`POST /reports` (CONTRACT §9), validated here at the edge (and for the dashboard's form);
    every field optional (default: the last 30 days, the configured formats). The period may
    not end before it starts, lie in the future, or be longer than 366 days."""

    period_start: AwareDatetime | None = None
    period_end: AwareDatetime | None = None
    formats: list[Literal[reports.FORMATS]] | None = Field(  # type: ignore[valid-type]
        default=None, min_length=1
    )

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        # The reports service's messages and order (period first, then formats), raised as
        # InvalidInput (passed through by pydantic).
        if not isinstance(body, dict):
            return body
        raw_start, raw_end = body.get("period_start"), body.get("period_end")
        now = utcnow()
        end = _report_timestamp("period_end", raw_end) if raw_end is not None else None
        start = _report_timestamp("period_start", raw_start) if raw_start is not None else None
        period_end = end or now
        period_start = start or period_end - reports.DEFAULT_PERIOD
        if period_end <= period_start:
            raise InvalidInput(
                "period_end must be after period_start",
                errors=[{"field": "period_end", "message": "must be after period_start"}],
            )
        if period_end > now + reports.CLOCK_SKEW:
            raise InvalidInput(
                "the period must not end in the future",
                errors=[{"field": "period_end", "message": "lies in the future"}],
            )
        if period_end - period_start > reports.MAX_PERIOD:
            raise InvalidInput(
                "the period must be at most 366 days",
                errors=[{"field": "period_start", "message": "period longer than 366 days"}],
            )
        formats = None
        if body.get("formats") is not None:
            formats, problem = _report_formats(body["formats"])
            if problem:
                raise InvalidInput(
                    f"formats: {problem}", errors=[{"field": "formats", "message": problem}]
                )
        return {"period_start": start, "period_end": end, "formats": formats}

    def command(self) -> reports.NewReport:
        return reports.NewReport(self.period_start, self.period_end, self.formats)


class ShareBody(Body):
    """`POST /reports/{report_id}/share`: default 7 days, at most 90 days."""

    expires_in_seconds: StrictInt | None = Field(
        default=None, ge=reports.MIN_SHARE_SECONDS, le=reports.MAX_SHARE_SECONDS
    )

    @field_validator("expires_in_seconds", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> Any:
        # The reports service's message, raised as InvalidInput (passed through by pydantic).
        low, high = reports.MIN_SHARE_SECONDS, reports.MAX_SHARE_SECONDS
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high
        ):
            message = f"must be a whole number of seconds from {low} to {high}"
            raise field_error("expires_in_seconds", message)
        return value

    def command(self) -> int:
        """The link's lifetime in seconds."""
        return self.expires_in_seconds or reports.DEFAULT_SHARE_SECONDS


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
    """CONTRACT §6: a policy's content. Checked by ``policies.parse_content``, which the
    dashboard's forms and document ingestion share (a service cannot import this module)."""

    policy_id: StrictStr = Field(pattern=r"^[A-Za-z0-9._:-]{1,128}$")
    description: StrictStr | None = Field(default="", max_length=policies.MAX_DESCRIPTION_CHARS)
    rules: list[Annotated[StrictStr, Field(min_length=1, max_length=policies.MAX_RULE_CHARS)]] = (
        Field(min_length=1, max_length=policies.MAX_RULES)
    )
    tools: list[Annotated[StrictStr, Field(min_length=1, max_length=256)]] | None = Field(
        default=None, max_length=500
    )

    def content(self) -> policies.PolicyContent:
        """The typed content (the fields were checked and stripped by ``parse_content``)."""
        return policies.PolicyContent(
            self.policy_id, self.description or "", list(self.rules), list(self.tools or [])
        )


class PolicyExample(Body):
    """A case run against the policy as it is registered (CONTRACT §6)."""

    tool_name: StrictStr = Field(min_length=1, max_length=256)
    tool_args: dict[str, Any] = Field(default_factory=dict)
    agent_id: StrictStr = "example"
    expected: Literal[policy_trials.OUTCOMES]  # type: ignore[valid-type]


class RegisterPolicyBody(PolicyBody):
    """`POST /register-policy` (spec §2.4, CONTRACT §6), validated here at the edge: the content,
    then the examples, with the messages the services gave when they parsed the body."""

    examples: list[PolicyExample] | None = Field(
        default=None, max_length=policy_trials.MAX_EXAMPLES
    )

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        # InvalidInput is passed through by pydantic: the field errors keep their names.
        if not isinstance(body, dict):
            return body
        content = policies.parse_content(body)
        return {**content.canonical(), "examples": _policy_examples(body.get("examples"))}

    def command(self) -> tuple[policies.PolicyContent, list[dict[str, Any]]]:
        """The content and the examples (as stored with the version)."""
        return self.content(), [example.model_dump() for example in self.examples or []]


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class ReviewDecisionBody(Body):
    """Spec §2.7, validated here at the edge; ``command()`` gives the service its Vote.

    The messages are the ones the reviews service gave when it parsed the body itself.
    """

    # Defaults only so that the validators below run (and say what is wrong) when a field is
    # missing; the schema documents ``approved`` as required.
    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": ["approved"]})
    approved: bool = Field(default=None, validate_default=True, json_schema_extra=_no_default)
    review_reason: str | None = Field(default=None, validate_default=True)
    reviewer_email: str | None = Field(default=None, validate_default=True)

    @field_validator("approved", mode="before")
    @classmethod
    def _approved(cls, value: Any) -> bool:
        if not isinstance(value, bool):
            raise ValueError("is required and must be true or false")
        return value

    @field_validator("review_reason", mode="before")
    @classmethod
    def _reason(cls, value: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise ValueError("must be a string")
        if len(value) > reviews.MAX_REASON_CHARS:
            raise ValueError(f"must be at most {reviews.MAX_REASON_CHARS} characters")
        return value.strip()

    @field_validator("reviewer_email", mode="before")
    @classmethod
    def _email(cls, value: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise ValueError("must be a string")
        if value.strip() and not is_valid_email(value.strip()):
            raise ValueError("is not a valid email address")
        return value.strip()

    def command(self, channel: str) -> reviews.Vote:
        """The vote of an API key's holder: the address is asserted, so not verified."""
        return reviews.Vote(
            self.approved, self.review_reason, self.reviewer_email, channel, verified=False
        )


class LockdownBody(Body):
    reason: StrictStr | None = Field(default="", max_length=2000)


def _webhook_url(url: Any, errors: list[dict[str, str]]) -> str:
    if not isinstance(url, str) or not url.strip():
        errors.append({"field": "url", "message": "is required"})
        return ""
    url = url.strip()
    if len(url) > webhooks.MAX_URL_CHARS:
        errors.append(
            {"field": "url", "message": f"must be at most {webhooks.MAX_URL_CHARS} characters"}
        )
        return ""
    allow_private = vault().config.webhook_allow_private
    scheme = url.split(":", 1)[0].lower()
    # http only with VAULT_WEBHOOK_ALLOW_PRIVATE (tests and local development).
    if scheme != "https" and not (scheme == "http" and allow_private):
        errors.append({"field": "url", "message": "must be an https URL"})
        return ""
    try:
        outbound.check_url(url, allow_private=allow_private)
    except outbound.OutboundRefused as refused:
        errors.append({"field": "url", "message": refused.detail})
    return url


def _webhook_events(events: Any, errors: list[dict[str, str]]) -> list[str]:
    if not isinstance(events, list) or not events:
        errors.append({"field": "events", "message": "must be a non-empty list of event types"})
        return []
    chosen: list[str] = []
    for name in events:
        if name not in webhooks.EVENT_TYPES:
            shown = name[:40] if isinstance(name, str) else type(name).__name__
            errors.append(
                {
                    "field": "events",
                    "message": f"{shown!r} is not one of {', '.join(webhooks.EVENT_TYPES)}",
                }
            )
        elif name not in chosen:
            chosen.append(name)
    return chosen


def _report_formats(value: Any) -> tuple[list[str], str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        return [], "must be a non-empty list of pdf and/or json"
    unknown = sorted({v for v in value if v not in reports.FORMATS})
    if unknown:
        return [], f"unknown format {unknown[0][:40]!r}; use pdf and/or json"
    return [f for f in reports.FORMATS if f in value], ""


def _report_timestamp(field: str, value: Any) -> datetime:
    problem = "must be an RFC 3339 timestamp with a time zone, e.g. 2026-11-01T00:00:00Z"
    if not isinstance(value, str) or len(value) > 40:
        raise InvalidInput(f"{field} {problem}", errors=[{"field": field, "message": problem}])
    try:
        parsed = datetime.fromisoformat(value.strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            f"{field} {problem}", errors=[{"field": field, "message": problem}]
        ) from None
    if parsed.tzinfo is None:
        raise InvalidInput(f"{field} {problem}", errors=[{"field": field, "message": problem}])
    return parsed.astimezone(UTC)


def _recipients(value: Any) -> tuple[list[str], list[dict[str, str]]]:
    """A comma-separated string (spec §2.6) or a list; returns (addresses, field errors)."""
    if isinstance(value, str):
        parts = [p.strip() for p in re.split(r"[,;\s]+", value)]
    elif isinstance(value, list) and all(isinstance(p, str) for p in value):
        parts = [p.strip() for p in value]
    else:
        return [], [
            {
                "field": "email_recipients",
                "message": "must be a comma-separated string of addresses",
            }
        ]
    addresses: list[str] = []
    seen: set[str] = set()
    errors = []
    for part in parts:
        if not part:
            continue
        if not notifications.is_valid_email(part):
            errors.append(
                {
                    "field": "email_recipients",
                    "message": f"{part[:80]!r} is not a valid email address",
                }
            )
        elif part.lower() not in seen:
            seen.add(part.lower())
            addresses.append(part)
    if len(addresses) > notifications.MAX_RECIPIENTS:
        errors.append(
            {
                "field": "email_recipients",
                "message": f"at most {notifications.MAX_RECIPIENTS} addresses",
            }
        )
    return addresses, errors


def _sensitive_args(value: Any) -> tuple[list[str], list[dict[str, str]]]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return [], [{"field": "sensitive_args", "message": "must be a list of argument names"}]
    names: list[str] = []
    for raw in value:
        name = raw.strip()
        if not name:
            continue
        if not _ARG_NAME.match(name):
            return [], [
                {"field": "sensitive_args", "message": "names are 1 to 128 printable characters"}
            ]
        if name not in names:
            names.append(name)
    if len(names) > notifications.MAX_SENSITIVE_ARGS:
        return [], [
            {
                "field": "sensitive_args",
                "message": f"at most {notifications.MAX_SENSITIVE_ARGS} names",
            }
        ]
    return names, []


def _policy_examples(raw: Any) -> list[dict[str, Any]]:
    """`examples` of a registration body; [] when absent."""
    if raw is None:
        return []
    most = policy_trials.MAX_EXAMPLES
    if not isinstance(raw, list) or len(raw) > most:
        raise InvalidInput(
            f"examples must be a list of at most {most} cases",
            errors=[{"field": "examples", "message": f"at most {most} cases"}],
        )
    out = []
    for i, ex in enumerate(raw):
        problem = _example_problem(ex)
        if problem:
            raise InvalidInput(
                f"examples[{i}] {problem}", errors=[{"field": f"examples[{i}]", "message": problem}]
            )
        out.append(
            {
                "tool_name": ex["tool_name"],
                "tool_args": ex.get("tool_args") or {},
                "agent_id": ex.get("agent_id") or "example",
                "expected": ex["expected"],
            }
        )
    return out


def _example_problem(ex: Any) -> str:
    if not isinstance(ex, dict):
        return "must be an object"
    if not isinstance(ex.get("tool_name"), str) or not 0 < len(ex["tool_name"]) <= 256:
        return "tool_name must be a non-empty string"
    if not isinstance(ex.get("tool_args", {}), dict):
        return "tool_args must be an object"
    if "agent_id" in ex and not isinstance(ex["agent_id"], str):
        return "agent_id must be a string"
    if ex.get("expected") not in policy_trials.OUTCOMES:
        return f"expected must be one of {', '.join(policy_trials.OUTCOMES)}"
    return ""


def _dry_run_request(request_body: Any) -> dict[str, Any]:
    if not isinstance(request_body, dict):
        raise InvalidInput(
            "request must be an object",
            errors=[{"field": "request", "message": "must be an object"}],
        )
    tool = request_body.get("tool_name")
    args = request_body.get("tool_args", {})
    agent = request_body.get("agent_id", "dry-run")
    if not isinstance(tool, str) or not 0 < len(tool) <= 256:
        raise InvalidInput(
            "request.tool_name must be a non-empty string",
            errors=[{"field": "request.tool_name", "message": "required"}],
        )
    if not isinstance(args, dict):
        raise InvalidInput(
            "request.tool_args must be an object",
            errors=[{"field": "request.tool_args", "message": "must be an object"}],
        )
    if not isinstance(agent, str) or len(agent) > 256:
        raise InvalidInput(
            "request.agent_id must be a string",
            errors=[{"field": "request.agent_id", "message": "must be a string"}],
        )
    return {"tool_name": tool, "tool_args": args, "agent_id": agent or "dry-run"}


# --- Response bodies -------------------------------------------------------------------------
# Handlers serialise through these models (``reply``), and /openapi.json documents every success
# response with them, so the document cannot drift from what is sent. Fields that other modules
# add to a view pass through unchanged (``extra="allow"``), and fields a view leaves out stay out
# (CONTRACT §1: `exported_at`, `retired_at`, `consistency`). Values that clients hash (ledger
# content, tool_args, citations) are typed ``Any`` so that they are sent exactly as stored.

Timestamp = str  # RFC 3339 in UTC with Z and microseconds (CONTRACT §1)


class Reply(BaseModel):
    model_config = ConfigDict(extra="allow")


def reply(model: type[Reply], payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` checked against and serialised through ``model``."""
    return model.model_validate(payload).model_dump(mode="json", exclude_unset=True)


class HealthReply(Reply):
    status: Literal["ok"]


class Degraded(Reply):
    component: str
    effect: str


class ReadyReply(Reply):
    """`degraded` (naming what is down) while the service still serves without Redis or workers."""

    status: Literal["ready", "degraded"]
    checks: dict[str, Literal["ok", "down"]]
    degraded: list[Degraded] = []


class Jwk(Reply):
    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str
    kid: str
    use: Literal["sig"]
    alg: Literal["EdDSA"]


class JwksReply(Reply):
    keys: list[Jwk]


class OpenApiReply(Reply):
    openapi: str
    info: dict[str, Any]
    paths: dict[str, Any]


class TenantReply(Reply):
    client_id: str
    name: str
    created_at: Timestamp


class NewTenantReply(TenantReply):
    api_key: str = Field(description="The raw key, shown only here")


class TenantListReply(Reply):
    tenants: list[TenantReply]


class NewApiKeyReply(Reply):
    key_id: str
    api_key: str = Field(description="The raw key, shown only here")
    prefix: str
    scopes: list[str] = Field(description="agent, review and/or manage (CONTRACT §12)")


class ApiKeyReply(Reply):
    key_id: str
    prefix: str
    label: str
    created_at: Timestamp
    revoked_at: Timestamp | None


class ApiKeyListReply(Reply):
    api_keys: list[ApiKeyReply]


class UserReply(Reply):
    user_id: str
    client_id: str
    email: str
    role: Literal["owner", "reviewer", "viewer"]
    created_at: Timestamp


class UserListReply(Reply):
    users: list[UserReply]


class ReviewSettingsReply(Reply):
    client_id: str
    minimum_confidence_score: float
    judge_failure_mode: Literal["deny", "review"]


class Citation(Reply):
    policy_id: str
    policy_version_id: str
    chunk_id: str
    text: str
    score: float


class ClearanceReply(Reply):
    """Spec §2.2 plus CONTRACT §3; every field always present."""

    status: Literal["processing", "approved", "denied", "pending_review"]
    approved: bool
    requires_manual_review: bool
    token: str | None
    reason: str
    request_id: str
    confidence: float
    minimum_confidence_score: float
    decision_status: Literal["approved", "approved_pending_review", "denied"]
    confidence_bucket: Literal["extra_high", "high", "medium", "low", "none"]
    minimum_confidence_bucket: Literal["extra_high", "high", "medium", "low", "none"]
    reason_code: str
    policy_id: str
    policy_version_id: str
    policy_content_hash: str
    citations: list[Citation]
    created_at: Timestamp
    decided_at: Timestamp | None


class ConsumeTokenReply(Reply):
    valid: Literal[True]
    jti: str
    tool_name: str
    agent_id: str
    policy_id: str
    session_id: str = Field(default="", description="Present when the request had a session")
    request_id: str
    client_id: str
    tool_args_hash: str
    consumed_at: Timestamp


class RegisterPolicyReply(Reply):
    policy_id: str
    status: Literal["registered", "unchanged"]
    message: str
    policy_version_id: str
    policy_content_hash: str
    version: int
    chunks: int


class PolicyVersionReply(Reply):
    policy_version_id: str
    version: int
    description: str
    rules: list[str]
    tools: list[str] | None
    policy_content_hash: str
    source: str
    source_ref: str
    status: str
    created_at: Timestamp


class PolicyReply(Reply):
    policy_id: str
    active: bool
    current_version: PolicyVersionReply | None
    created_at: Timestamp
    updated_at: Timestamp | None
    deactivated_at: Timestamp | None


class PolicyDetailReply(PolicyReply):
    versions: list[PolicyVersionReply]


class PolicyListReply(Reply):
    policies: list[PolicyReply]
    next_cursor: str | None


class LockdownReply(Reply):
    agent_id: str
    locked_down: bool
    locked_at: Timestamp | None = None
    locked_by: str | None = None
    reason: str | None = None
    released_at: Timestamp | None = None
    released_by: str | None = None


class ApprovalReply(Reply):
    reviewer_email: str
    decided_at: Timestamp
    review_reason: str


class ReviewItemReply(Reply):
    request_id: str
    status: str
    tool_name: str
    tool_args: Any
    agent_id: str
    session_id: str
    policy_id: str
    confidence: float
    confidence_bucket: str
    reason: str
    reason_code: str
    citations: list[Any]
    created_at: Timestamp
    decided_at: Timestamp | None
    reviewer_email: str
    review_reason: str
    judge_reason: str = Field(description="The judge's reason, kept after a reviewer decides")
    required_approvals: int = Field(description="Distinct approvals needed (1 to 5)")
    approvals: list[ApprovalReply] = Field(description="Approving votes so far, oldest first")
    expires_at: Timestamp | None = Field(description="When a pending review expires as denied")
    required_approvals_rule: str = Field(
        description="Extension: the rule that raised required_approvals; empty when the "
        "tenant's review settings set it"
    )
    decision_channel: str = Field(
        description="Extension: how the terminal decision arrived ('api key <label>' or "
        "'dashboard <email>'); empty while undecided or for a decision made by the system"
    )


class ReviewListReply(Reply):
    reviews: list[ReviewItemReply]
    next_cursor: str | None


class ReviewDecisionReply(ClearanceReply):
    reviewer_email: str
    review_reason: str
    approvals: list[ApprovalReply] = Field(description="Approving votes so far, oldest first")
    approvals_remaining: int = Field(
        description="Approvals still needed; 0 once the request is decided"
    )
    # Defaults only so that an idempotent replay stored before these fields still validates.
    required_approvals: int = Field(default=1, description="Extension: distinct approvals needed")
    required_approvals_rule: str = Field(
        default="", description="Extension: the rule that raised required_approvals, or empty"
    )
    decision_channel: str = Field(
        default="", description="Extension: how the terminal decision arrived; empty while pending"
    )


class FieldMessage(Reply):
    field: str
    message: str


class NotificationSettingsReply(Reply):
    client_id: str
    email_enabled: bool
    email_recipients: str = Field(description="Comma-separated addresses")
    slack_enabled: bool
    slack_webhook_url: str = Field(description="Masked")
    sensitive_args: list[str]
    warnings: list[FieldMessage] = Field(
        default_factory=list,
        description="Extension: what the saved settings cannot do here, such as email switched "
        "on while no SMTP server is configured (the settings are saved all the same)",
    )


class DeliveryReply(Reply):
    delivery_id: str
    request_id: str | None
    event: str
    channel: str
    target: str
    status: str
    attempts: int
    max_attempts: int
    last_error: str | None
    attempt_log: list[Any]
    created_at: Timestamp
    updated_at: Timestamp | None
    delivered_at: Timestamp | None


class DeliveryListReply(Reply):
    deliveries: list[DeliveryReply]
    next_cursor: str | None


class DeliveryGroupReply(Reply):
    count: int = Field(description="How many deliveries this entry stands for (1, or a run)")
    first_at: Timestamp = Field(description="The oldest delivery of the run")
    last_at: Timestamp = Field(description="The newest delivery of the run")
    delivery: DeliveryReply = Field(description="The newest delivery of the run")


class DeliveryGroupListReply(Reply):
    groups: list[DeliveryGroupReply]
    next_cursor: str | None


class TestDeliveriesReply(Reply):
    deliveries: list[DeliveryReply]


class LedgerEntryReply(Reply):
    """CONTRACT §11 "Ledger entry"."""

    seq: int
    event_uuid: str
    request_id: str
    agent_id: str
    policy_id: str
    policy_version_id: str
    policy_content_hash: str
    intent_hash: str
    tool_name: str
    tool_args: Any
    action_category: str
    action_metadata: Any
    reason: str
    citations: Any
    evidence_chunks: Any
    confidence: float
    confidence_bucket: str | None
    decision_status: str | None
    approved: bool
    accepted_at: Timestamp
    canonical_version: int
    event_hash: str
    leaf_hash: str
    leaf_index: int | None
    checkpoint_id: int | None
    receipt_algorithm: str
    receipt_key_id: str
    receipt_signature: str
    receipt_payload: str


class LedgerListReply(Reply):
    entries: list[LedgerEntryReply]
    next_cursor: str | None


class EncryptedEntryReply(Reply):
    seq: int
    event_uuid: str
    event_hash: str
    sealed: dict[str, Any]


class EncryptedListReply(Reply):
    entries: list[EncryptedEntryReply]
    next_cursor: str | None


class CheckpointReply(Reply):
    """CONTRACT §11 "Checkpoint record"; `exported_at` is left out until the export is done."""

    checkpoint_id: int
    tree_size: int
    root_hash: str
    checkpoint_hash: str
    prev_checkpoint_hash: str
    signature_algorithm: str
    signer_key_id: str
    checkpoint_signature: str
    checkpoint_payload: str
    signed_at: Timestamp
    mmd_seconds: int
    export_target: str | None
    export_uri: str | None
    export_status: str | None
    exported_at: Timestamp | None = None


class CheckpointListReply(Reply):
    checkpoints: list[CheckpointReply]
    next_cursor: str | None


class SealReply(Reply):
    checkpoints: list[CheckpointReply]


class VerifyReply(Reply):
    intact: bool
    verified_entries: int
    verified_checkpoints: int
    tree_size: int
    root_hash: str | None
    latest_checkpoint_id: int | None
    errors: list[dict[str, Any]]


class VerificationSummaryReply(Reply):
    client_id: str
    generated_at: Timestamp
    tree_size: int
    latest_checkpoint: CheckpointReply | None
    sealing: dict[str, Any]
    anchor: dict[str, Any]
    keys: list[dict[str, Any]]
    last_verified_at: Timestamp | None
    last_verification: dict[str, Any] | None


class InclusionProofReply(Reply):
    event_uuid: str
    request_id: str
    event_hash: str
    leaf_hash: str
    leaf_index: int
    tree_size: int
    path: list[str]
    checkpoint: CheckpointReply


class ConsistencyProofReply(Reply):
    from_checkpoint: CheckpointReply
    to_checkpoint: CheckpointReply
    path: list[str]


class BundleKeyReply(Reply):
    key_id: str
    algorithm: str
    public_jwk: str
    active_from: Timestamp
    retired_at: Timestamp | None = None


class ProofBundleReply(Reply):
    """`consistency` is left out when the inclusion checkpoint is the latest one."""

    event: LedgerEntryReply
    inclusion: InclusionProofReply
    consistency: ConsistencyProofReply | None = None
    keys: list[BundleKeyReply]


class DryRunRequest(Body):
    tool_name: StrictStr = Field(min_length=1, max_length=256)
    tool_args: dict[str, Any] = Field(default_factory=dict)
    agent_id: StrictStr | None = Field(default=None, max_length=256)


class DryRunBody(Body):
    """`POST /policies/dry-run`: a draft (a register-policy body) or an active `policy_id`, and
    the call to judge; validated here at the edge with the messages the handler gave when it
    parsed the body itself."""

    policy: PolicyBody | None = None
    policy_id: StrictStr | None = None
    request: DryRunRequest

    @model_validator(mode="before")
    @classmethod
    def _check(cls, body: Any) -> Any:
        # InvalidInput is passed through by pydantic: the field errors keep their names.
        if not isinstance(body, dict):
            return body
        clean: dict[str, Any] = {}
        if "policy" in body:
            if not isinstance(body["policy"], dict):
                raise InvalidInput(
                    "policy must be an object",
                    errors=[{"field": "policy", "message": "must be an object"}],
                )
            clean["policy"] = policies.parse_content(body["policy"]).canonical()
        elif isinstance(body.get("policy_id"), str):
            clean["policy_id"] = body["policy_id"]
        else:
            raise InvalidInput(
                "send policy (a register-policy body) or policy_id",
                errors=[{"field": "policy", "message": "policy or policy_id is required"}],
            )
        clean["request"] = _dry_run_request(body.get("request"))
        return clean

    def command(self) -> tuple[policies.PolicyContent | None, str, ClearanceQuery]:
        """(the draft's content, or None and the active policy's id; the call to judge)."""
        call = ClearanceQuery(
            self.request.tool_name, self.request.tool_args, self.request.agent_id or "dry-run"
        )
        if self.policy is not None:
            return self.policy.content(), "", call
        return None, self.policy_id or "", call


class GlossaryBody(Body):
    """`PUT /glossary` (CONTRACT §6a): term -> list of values, validated here at the edge.

    ``terms`` is the glossary service's typed input: stripped, unique values per term. The
    dashboard's editor builds its terms through this model too. The field errors (one per bad
    term, named ``terms['term']``) are the ones the service gave when it parsed the body itself.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": ["terms"]})
    terms: dict[
        Annotated[str, Field(min_length=1, max_length=glossary.MAX_TERM_CHARS)],
        Annotated[
            list[Annotated[StrictStr, Field(min_length=1, max_length=MAX_VALUE_CHARS)]],
            Field(max_length=MAX_VALUES),
        ],
    ] = Field(
        default=None, validate_default=True, max_length=MAX_TERMS, json_schema_extra=_no_default
    )

    @field_validator("terms", mode="before")
    @classmethod
    def _terms(cls, raw: Any) -> dict[str, list[str]]:
        if not isinstance(raw, dict):
            raise InvalidInput(
                "terms must be an object of term -> list of values",
                errors=[{"field": "terms", "message": "must be an object"}],
            )
        errors: list[dict[str, str]] = []
        if len(raw) > MAX_TERMS:
            errors.append({"field": "terms", "message": f"at most {MAX_TERMS} terms"})
        out: dict[str, list[str]] = {}
        for term, values in list(raw.items())[: MAX_TERMS + 1]:
            name = term.strip() if isinstance(term, str) else ""
            if not name or len(name) > glossary.MAX_TERM_CHARS:
                errors.append(
                    {
                        "field": f"terms[{term!r}]",
                        "message": f"a term is 1 to {glossary.MAX_TERM_CHARS} characters",
                    }
                )
                continue
            if not isinstance(values, list) or len(values) > MAX_VALUES:
                errors.append(
                    {
                        "field": f"terms[{name!r}]",
                        "message": f"must be a list of at most {MAX_VALUES} values",
                    }
                )
                continue
            clean: list[str] = []
            for i, value in enumerate(values):
                if not isinstance(value, str) or not value.strip() or len(value) > MAX_VALUE_CHARS:
                    errors.append(
                        {
                            "field": f"terms[{name!r}][{i}]",
                            "message": "a value is a non-empty string of at most "
                            f"{MAX_VALUE_CHARS} characters",
                        }
                    )
                    break
                clean.append(value.strip())
            out[name] = list(dict.fromkeys(clean))
        if errors:
            # Raised as is (pydantic passes other exceptions through): the errors keep their
            # per-term field names, which pydantic's locations cannot spell.
            raise InvalidInput(f"{errors[0]['field']} {errors[0]['message']}", errors=errors)
        return out


class ReportSettingsReply(Reply):
    enabled: bool
    frequency: Literal["weekly", "monthly", "quarterly"]
    formats: list[Literal["pdf", "json"]]
    recipients: list[str]


class ReportArtifactReply(Reply):
    format: str
    size_bytes: int
    sha256: str


class ShareLinkReply(Reply):
    """A share link as listed: never the token itself."""

    token_id: str
    expires_at: Timestamp
    created_at: Timestamp
    created_by: str
    revoked_at: Timestamp | None = None


class ReportRecordReply(Reply):
    """CONTRACT §9 record, plus `progress`, `stage` and `error` for the dashboard."""

    report_id: str
    type: str
    status: Literal["queued", "running", "ready", "failed"]
    period_start: Timestamp | None
    period_end: Timestamp | None
    created_at: Timestamp
    completed_at: Timestamp | None
    formats: list[str]
    artifacts: list[ReportArtifactReply]
    summary: dict[str, Any]
    shares: list[ShareLinkReply] = []


class ReportListReply(Reply):
    reports: list[ReportRecordReply]
    next_cursor: str | None


class NewShareReply(Reply):
    token: str = Field(description="Shown only here")
    url: str
    expires_at: Timestamp
    token_id: str


class SharedReportReply(Reply):
    report: ReportRecordReply
    verification: dict[str, Any]


class GlossaryReply(Reply):
    terms: dict[str, list[str]]
    builtin: list[str] = Field(description="The built-in vocabularies a rule may name")


class DryRunReply(Reply):
    """What the judge would answer; nothing is recorded."""

    status: str
    decision: str
    reason: str
    reason_code: str
    confidence: float
    citations: list[dict[str, Any]]
    rules: list[Any]


class DriftSettingsReply(Reply):
    enabled: bool
    baseline_days: int
    window_hours: int
    score_threshold: float
    min_events: int
    auto_lockdown: bool


class DriftAgentReply(Reply):
    agent_id: str
    drift_score: float
    risk_level: str
    locked_down: bool
    locked_at: Timestamp | None
    last_event_at: Timestamp | None
    signals: Any


class DriftSummaryReply(Reply):
    generated_at: Timestamp
    agents: list[DriftAgentReply]


class DriftEventReply(Reply):
    event_id: str
    agent_id: str
    detected_at: Timestamp
    drift_score: float
    risk_level: str
    signals: list[Any]
    action: str


class DriftEventListReply(Reply):
    events: list[DriftEventReply]
    next_cursor: str | None


class WebhookReply(Reply):
    """CONTRACT §14; `secret` only in the answer to the creation."""

    webhook_id: str
    url: str
    events: list[str]
    description: str
    enabled: bool
    created_at: Timestamp
    secret: str | None = Field(default=None, description="Shown once, at creation")


class WebhookListReply(Reply):
    webhooks: list[WebhookReply]


class WebhookDeliveryReply(Reply):
    delivery_id: str
    webhook_id: str
    event_id: str
    type: str
    status: str
    attempts: int
    max_attempts: int
    last_error: str | None
    attempt_log: list[Any]
    created_at: Timestamp
    updated_at: Timestamp | None
    delivered_at: Timestamp | None


class WebhookDeliveryListReply(Reply):
    deliveries: list[WebhookDeliveryReply]
    next_cursor: str | None


class MintTokenReply(Reply):
    """CONTRACT §5a."""

    token: str
    request_id: str
    reason: str
    original_request_id: str
    confidence_bucket: str
    policy_version_id: str
    policy_content_hash: str
