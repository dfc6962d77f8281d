"""Dashboard forms (Flask-WTF): each carries its CSRF token and its own field messages.

Forms check shape only (required, lengths, types); the services own every business rule, and
their field errors are copied back onto the form with ``show_service_errors``.
"""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DecimalField,
    EmailField,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
    URLField,
)
from wtforms.validators import (
    URL,
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    ValidationError,
)
from wtforms.widgets import CheckboxInput, ListWidget

from webapp.errors import DomainError

ROLE_CHOICES = [
    SelectChoice("owner", "Owner"),
    SelectChoice("reviewer", "Reviewer"),
    SelectChoice("viewer", "Viewer"),
]
POLICY_ID_HELP = "Letters, digits and . _ : - (at most 128)."


class SignInForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=320)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=512)])
    next = HiddenField()


class ActionForm(FlaskForm):
    """A form with nothing but its CSRF token: a button that changes state."""


class ReviewDecisionForm(FlaskForm):
    decision = HiddenField(validators=[DataRequired()])
    reason = TextAreaField("Reason", validators=[Length(max=2000)])

    def validate_decision(self, field) -> None:  # noqa: ANN001
        if field.data not in ("approve", "deny"):
            raise ValidationError("choose approve or deny")

    def validate_reason(self, field) -> None:  # noqa: ANN001
        # The agent (and the ledger) should learn why it was refused.
        if self.decision.data == "deny" and not (field.data or "").strip():
            raise ValidationError("say why the request is denied")


class BulkDecisionForm(FlaskForm):
    """Approve or deny the selected requests; the ids come as repeated ``ids`` fields."""

    decision = SelectField(
        "Decision",
        choices=[SelectChoice("approve", "Approve"), SelectChoice("deny", "Deny")],
        validators=[DataRequired()],
    )
    reason = StringField(
        "Reason for all of them",
        validators=[
            DataRequired(message="say why; it is recorded with each decision"),
            Length(max=2000),
        ],
    )
    confirmed = HiddenField()


class AgentActionForm(FlaskForm):
    agent_id = HiddenField(validators=[DataRequired(), Length(max=256)])
    reason = TextAreaField("Reason", validators=[DataRequired(), Length(max=1000)])


class PolicyForm(FlaskForm):
    policy_id = StringField(
        "Policy id", validators=[DataRequired(), Length(max=128)], description=POLICY_ID_HELP
    )
    description = TextAreaField("Description", validators=[Optional(), Length(max=2000)])
    rules = TextAreaField(
        "Rules, one per line",
        validators=[DataRequired()],
        description="Each line is one rule statement.",
    )
    tools = TextAreaField(
        "Tool globs, one per line",
        validators=[Optional()],
        description="Which tools the policy governs, e.g. payments.* ; empty means every tool.",
    )


class PastePolicyForm(FlaskForm):
    policy_id = StringField(
        "Policy id", validators=[DataRequired(), Length(max=128)], description=POLICY_ID_HELP
    )
    text = TextAreaField("Policy text", validators=[DataRequired(), Length(max=500_000)])
    tools = TextAreaField("Tool globs, one per line", validators=[Optional()])


class UploadPolicyForm(FlaskForm):
    policy_id = StringField(
        "Policy id", validators=[DataRequired(), Length(max=128)], description=POLICY_ID_HELP
    )
    document = FileField(
        "Policy document",
        validators=[FileRequired()],
        description="PDF, DOCX, TXT, Markdown, JSON or CSV.",
    )
    tools = TextAreaField("Tool globs, one per line", validators=[Optional()])


class WikiImportForm(FlaskForm):
    policy_id = StringField(
        "Policy id", validators=[DataRequired(), Length(max=128)], description=POLICY_ID_HELP
    )
    url = URLField(
        "Wiki page URL", validators=[DataRequired(), URL(require_tld=False), Length(max=2048)]
    )
    tools = TextAreaField("Tool globs, one per line", validators=[Optional()])


class ReviewSettingsForm(FlaskForm):
    minimum_confidence_score = DecimalField(
        "Review threshold",
        places=2,
        validators=[InputRequired(), NumberRange(min=0, max=1)],
        description="Approvals below this confidence wait for a reviewer.",
    )
    judge_failure_mode = SelectField(
        "When the judge fails",
        choices=[
            SelectChoice("deny", "Deny the request"),
            SelectChoice("review", "Send it to a reviewer"),
        ],
    )
    required_approvals = IntegerField(
        "Approvals needed",
        validators=[Optional(), NumberRange(min=1, max=5)],
        description="How many different reviewers must approve a request (1 to 5). "
        "A rule may ask for more for its own requests; one denial always denies.",
    )


class NotificationSettingsForm(FlaskForm):
    email_enabled = BooleanField("Email reviewers when a request waits for review")
    email_recipients = TextAreaField(
        "Email recipients",
        validators=[Length(max=20_000)],
        description="Comma-separated, at most 50.",
    )
    slack_enabled = BooleanField("Post to a Slack webhook")
    slack_webhook_url = URLField(
        "Slack webhook URL",
        validators=[Optional(), Length(max=2048)],
        description="https only. Leave empty to keep the stored URL.",
    )
    remove_webhook = BooleanField("Remove the stored webhook URL")
    sensitive_args = TextAreaField(
        "Sensitive arguments, one per line",
        validators=[Length(max=20_000)],
        description="Tool arguments whose values are left out of notifications.",
    )


class CheckboxesField(SelectMultipleField):
    """A multiple choice shown as a list of checkboxes."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


SCOPE_CHOICES = [
    SelectChoice("agent", "agent: request clearance, poll, consume and mint tokens"),
    SelectChoice("review", "review: the review queue and decisions"),
    SelectChoice("manage", "manage: policies, settings, reports, drift, webhooks, ledger"),
]


class ApiKeyForm(FlaskForm):
    label = StringField("Label", validators=[Optional(), Length(max=200)])
    # Agents need only `agent`: a leaked agent key then cannot approve its own requests.
    scopes = CheckboxesField(
        "Scopes",
        choices=SCOPE_CHOICES,
        default=["agent"],
        description="A key for an agent needs only agent. Nothing ticked makes an agent-only key.",
    )


class WebhookForm(FlaskForm):
    """A new outbound webhook endpoint; the webhooks service checks the URL and the events."""

    url = StringField(
        "Endpoint URL",
        validators=[DataRequired(), Length(max=2048)],
        description="https only; private and loopback addresses are refused.",
    )
    events = SelectMultipleField(
        "Events",
        choices=[],  # filled from the service's list by the view
        widget=ListWidget(prefix_label=False),
        option_widget=CheckboxInput(),
        validators=[DataRequired(message="choose at least one event")],
    )
    description = StringField("Description", validators=[Optional(), Length(max=500)])


class NewUserForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=320)])
    password = PasswordField(
        "Initial password", validators=[DataRequired(), Length(min=12, max=512)]
    )
    role = SelectField("Role", choices=ROLE_CHOICES, default="viewer")


class UserRoleForm(FlaskForm):
    role = SelectField("Role", choices=ROLE_CHOICES)


class PasswordChangeForm(FlaskForm):
    current_password = PasswordField(
        "Current password", validators=[DataRequired(), Length(max=512)]
    )
    new_password = PasswordField(
        "New password",
        validators=[DataRequired(), Length(min=12, max=512)],
        description="12 to 512 characters. Your other sessions are signed out.",
    )
    confirm_password = PasswordField(
        "New password again", validators=[DataRequired(), Length(max=512)]
    )

    def validate_confirm_password(self, field) -> None:  # noqa: ANN001
        if field.data != self.new_password.data:
            raise ValidationError("does not match the new password")


class ConfirmForm(FlaskForm):
    confirm = BooleanField("I understand", validators=[DataRequired()])


def lines(text: str | None) -> list[str]:
    """Non-empty lines of a textarea, stripped."""
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def show_service_errors(
    form: FlaskForm, error: DomainError, mapping: dict[str, str] | None = None
) -> None:
    """Put a service's field errors on the matching form fields, the rest on the form."""
    mapping = mapping or {}
    placed = False
    for item in error.errors:
        name = mapping.get(item.get("field", ""), item.get("field", "").split("[")[0])
        field = getattr(form, name, None)
        if field is not None and hasattr(field, "errors"):
            field.errors = [*list(field.errors or []), item.get("message", "is not valid")]
            placed = True
    if not placed:
        form.form_errors.append(error.detail)


class TryPolicyForm(FlaskForm):
    """The policy page's "Try it" panel: one tool call judged by a dry run (records nothing)."""

    tool_name = StringField("Tool name", validators=[DataRequired(), Length(max=256)])
    tool_args = TextAreaField("Tool arguments (JSON object)", validators=[Length(max=20000)])


class GlossaryForm(FlaskForm):
    """The tenant glossary, one term a line: ``privileged roles = Org Owner, Billing Admin``."""

    terms = TextAreaField("Terms", validators=[Length(max=500_000)])
