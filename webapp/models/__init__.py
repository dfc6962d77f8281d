"""All tables. Import models from here so Alembic and the app see the same metadata."""

from webapp.models.base import TenantScoped, iso, new_id, short_id, utcnow
from webapp.models.clearance import (
    APPROVED,
    DENIED,
    PENDING_REVIEW,
    PROCESSING,
    STATUSES,
    AgentState,
    BurnedToken,
    ClearanceRequest,
    IdempotencyRecord,
    TenantSetting,
)
from webapp.models.drift import DriftEvent
from webapp.models.jobs import JobRun
from webapp.models.ledger import Checkpoint, LedgerEvent, LedgerLeaf, LedgerVerification
from webapp.models.notifications import NotificationDelivery
from webapp.models.policy import Policy, PolicyChunk, PolicyDocument, PolicyVersion
from webapp.models.reports import Report, ReportArtifact, ReportShare
from webapp.models.review import ReviewVote
from webapp.models.tenant import API_KEY_SCOPES, ROLES, ApiKey, SigningKey, Tenant, User
from webapp.models.webhooks import WebhookDelivery, WebhookEndpoint

__all__ = [
    "API_KEY_SCOPES",
    "APPROVED",
    "DENIED",
    "PENDING_REVIEW",
    "PROCESSING",
    "ROLES",
    "ReviewVote",
    "STATUSES",
    "AgentState",
    "ApiKey",
    "BurnedToken",
    "Checkpoint",
    "ClearanceRequest",
    "DriftEvent",
    "IdempotencyRecord",
    "JobRun",
    "LedgerEvent",
    "LedgerLeaf",
    "LedgerVerification",
    "NotificationDelivery",
    "Policy",
    "PolicyChunk",
    "PolicyDocument",
    "PolicyVersion",
    "Report",
    "ReportArtifact",
    "ReportShare",
    "SigningKey",
    "Tenant",
    "TenantScoped",
    "TenantSetting",
    "User",
    "WebhookDelivery",
    "WebhookEndpoint",
    "iso",
    "new_id",
    "short_id",
    "utcnow",
]
