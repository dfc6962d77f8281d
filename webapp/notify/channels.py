"""The two channels: SMTP email and a Slack-compatible webhook. One attempt each, no retries
here (RQ retries the job); every failure is a DeliveryError that says whether to retry."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from typing import Any

from config import Config
from webapp.services import outbound

SMTP_TIMEOUT_SECONDS = 15
WEBHOOK_TIMEOUT_SECONDS = 10


class DeliveryError(Exception):
    """One attempt failed; ``retryable`` says whether another attempt could succeed."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


def send_email(config: Config, message: EmailMessage, recipients: list[str]) -> list[str]:
    """Send over SMTP as configured (none, STARTTLS or implicit TLS); returns refused addresses."""
    if not config.smtp_host:
        raise DeliveryError(
            "email is not configured on this server (SMTP_HOST is empty)", retryable=False
        )
    if not recipients:
        raise DeliveryError("no email recipients", retryable=False)
    try:
        if config.smtp_security == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                config.smtp_host,
                config.smtp_port,
                timeout=SMTP_TIMEOUT_SECONDS,
                context=_tls_context(config),
            )
        else:
            smtp = smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=SMTP_TIMEOUT_SECONDS)
        with smtp:
            if config.smtp_security == "starttls":
                smtp.starttls(context=_tls_context(config))
            if config.smtp_username:
                smtp.login(config.smtp_username, config.smtp_password)
            refused = smtp.send_message(message, from_addr=config.smtp_from, to_addrs=recipients)
    except smtplib.SMTPNotSupportedError:
        # Never fall back to plain text when TLS was asked for.
        raise DeliveryError("the SMTP server does not offer STARTTLS", retryable=False) from None
    except ssl.SSLCertVerificationError as error:
        raise DeliveryError(
            f"the SMTP server's certificate was refused: {error.verify_message}", retryable=False
        ) from None
    except smtplib.SMTPRecipientsRefused as error:
        raise DeliveryError(
            f"every recipient was refused ({len(error.recipients)})", retryable=False
        ) from None
    except smtplib.SMTPAuthenticationError as error:
        raise DeliveryError(f"SMTP login failed ({error.smtp_code})", retryable=False) from None
    except smtplib.SMTPResponseException as error:
        # 4xx is temporary by definition (RFC 5321 §4.2.1); 5xx will not get better by itself.
        raise DeliveryError(
            f"SMTP server answered {error.smtp_code}: {_text(error.smtp_error)}",
            retryable=400 <= error.smtp_code < 500,
        ) from None
    except (smtplib.SMTPException, OSError) as error:
        raise DeliveryError(
            f"SMTP server unreachable: {type(error).__name__}: {error}"[:300], retryable=True
        ) from None
    return sorted(refused)


def _tls_context(config: Config) -> ssl.SSLContext:
    """Verify the server's certificate and name, against SMTP_CA_FILE when a private CA signs it."""
    return ssl.create_default_context(cafile=config.smtp_ca_file or None)


def post_webhook(url: str, payload: dict[str, Any], *, allow_private: bool) -> int:
    """POST the payload through the SSRF guard; returns the HTTP status of a 2xx answer."""
    try:
        response = outbound.guarded_post(
            url, payload, timeout=WEBHOOK_TIMEOUT_SECONDS, allow_private=allow_private
        )
    except outbound.OutboundRefused as refused:
        raise DeliveryError(
            f"refused by the outbound guard: {refused.detail}", retryable=False
        ) from None
    except outbound.OutboundFailed as failed:
        raise DeliveryError(f"webhook unreachable: {failed}", retryable=True) from None
    if response.ok:
        return response.status_code
    retryable = response.status_code >= 500 or response.status_code in (408, 425, 429)
    raise DeliveryError(f"webhook answered HTTP {response.status_code}", retryable=retryable)


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value)[:200]


def post_signed_webhook(
    url: str, body: bytes, headers: dict[str, str], *, allow_private: bool
) -> int:
    """POST exact bytes (already signed by the caller) through the SSRF guard; returns the HTTP
    status of a 2xx answer. Failures say whether another attempt could succeed."""
    try:
        response = outbound.guarded_request(
            "POST",
            url,
            content=body,
            headers={"Content-Type": "application/json", **headers},
            timeout=WEBHOOK_TIMEOUT_SECONDS,
            allow_private=allow_private,
        )
    except outbound.OutboundRefused as refused:
        raise DeliveryError(
            f"refused by the outbound guard: {refused.detail}", retryable=False
        ) from None
    except outbound.OutboundFailed as failed:
        raise DeliveryError(f"endpoint unreachable: {failed}", retryable=True) from None
    if response.ok:
        return response.status_code
    retryable = response.status_code >= 500 or response.status_code in (408, 425, 429)
    raise DeliveryError(f"endpoint answered HTTP {response.status_code}", retryable=retryable)
