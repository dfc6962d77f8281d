"""Outbound HTTP to user-supplied URLs (webhooks, wiki imports), guarded against SSRF.

Every request goes through ``ssrfguard``: the host is resolved once, every answer is checked,
and the socket connects to the address that was checked, so a DNS record that moves between
the check and the connection moves nothing. Each redirect hop is checked again the same way.

What is refused: every address that is not globally reachable (loopback, RFC 1918 private,
link-local and the cloud metadata endpoints, CGNAT, multicast, reserved, ...), plus URLs with
credentials, control characters or encoded hosts. ``VAULT_WEBHOOK_ALLOW_PRIVATE=true`` (tests
and local development only) re-admits loopback and the private ranges, never link-local: the
metadata endpoint (169.254.169.254) stays out of reach in every configuration.
"""

from __future__ import annotations

import functools
import socket
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from ssrfguard import BlockedAddressError, BlockedURLError, Policy, SSRFGuardError, resolve
from ssrfguard.httpx import Client

from webapp.errors import InvalidInput

# Re-admitted by VAULT_WEBHOOK_ALLOW_PRIVATE: loopback and the RFC 1918 ranges. IPv6 unique
# local addresses (fc00::/7) stay out: AWS's IPv6 metadata endpoint fd00:ec2::254 lives there.
PRIVATE_NETWORKS = (
    "127.0.0.0/8",
    "::1/128",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
)
MAX_REDIRECTS = 3
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 64 * 1024
USER_AGENT = "clearance-vault/1.0 (+outbound)"

# A stand-in for socket.getaddrinfo (ssrfguard's seam); whatever it answers is still checked.
Resolver = Callable[..., Iterable[tuple[Any, ...]]]


class OutboundRefused(InvalidInput):
    """The guard will not reach this URL (scheme, host shape or resolved address)."""


class OutboundFailed(Exception):
    """The URL was allowed but the request failed (DNS, connection, timeout, oversized body)."""


@dataclass(frozen=True)
class OutboundResponse:
    """A finished response, its body read up to the caller's limit."""

    status_code: int
    headers: dict[str, str]
    content: bytes
    url: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300


def check_url(
    url: str,
    *,
    allow_private: bool | None = None,
    resolve_host: bool = True,
    resolver: Resolver | None = None,
    also_allow: tuple[str, ...] = (),
) -> None:
    """Raise OutboundRefused unless ``url`` may be reached; resolves the host when asked.

    Trailing dots are removed first (``localhost.`` is ``localhost``). A name that does not
    resolve is not refused here (the caller cannot judge it yet; the request itself re-checks
    at connection time), unless it is a loopback or private name (``localhost``,
    ``*.localhost``, ``*.local``, ``*.internal``, ``*.home.arpa``...), which is refused
    whatever DNS says.
    """
    allow = _allow_private(allow_private)
    url = normalise_url(url)
    policy = guard_policy(allow, also_allow)
    try:
        target = policy.check_url(url)
    except SSRFGuardError as refused:
        raise _refusal(refused) from None
    if resolve_host and not target.is_literal_address:
        try:
            resolve(target, policy=policy, resolver=resolver)
        except SSRFGuardError as refused:
            raise _refusal(refused) from None
        except OSError:
            pass  # not resolvable now; the name check below still applies
    # After resolution, so a name that resolves is refused for where it points; a local name
    # that does not resolve yet is refused for what it is.
    _check_name(url, allow)


def guarded_post(
    url: str,
    json: Any,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allow_private: bool | None = None,
    resolver: Resolver | None = None,
    also_allow: tuple[str, ...] = (),
) -> OutboundResponse:
    """POST JSON to a user-supplied URL through the guard; redirects are checked per hop."""
    return guarded_request(
        "POST",
        url,
        json=json,
        headers=headers,
        timeout=timeout,
        max_bytes=max_bytes,
        allow_private=allow_private,
        resolver=resolver,
        also_allow=also_allow,
    )


def guarded_get(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = 20 * 1024 * 1024,
    allow_private: bool | None = None,
    resolver: Resolver | None = None,
    also_allow: tuple[str, ...] = (),
) -> OutboundResponse:
    """GET a user-supplied URL through the guard (the wiki import uses this)."""
    return guarded_request(
        "GET",
        url,
        headers=headers,
        timeout=timeout,
        max_bytes=max_bytes,
        allow_private=allow_private,
        resolver=resolver,
        also_allow=also_allow,
    )


def guarded_request(
    method: str,
    url: str,
    *,
    json: Any = None,
    content: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allow_private: bool | None = None,
    resolver: Resolver | None = None,
    also_allow: tuple[str, ...] = (),
) -> OutboundResponse:
    """Send one request through the guard; OutboundRefused or OutboundFailed on failure.

    ``content`` sends exact bytes instead of ``json`` (a signed webhook body must arrive as
    the bytes that were signed).

    The whole exchange, body included, must finish within ``timeout`` seconds, so a server
    that trickles bytes cannot hold a worker.
    """
    allow = _allow_private(allow_private)
    url = normalise_url(url)
    _check_name(url, allow)
    policy = guard_policy(allow, also_allow)
    try:
        policy.check_url(url)
    except SSRFGuardError as refused:
        raise _refusal(refused) from None
    deadline = time.monotonic() + timeout
    send_headers = {"User-Agent": USER_AGENT, **(headers or {})}
    try:
        # trust_env=False: no proxy from the environment (a proxy would resolve the name
        # itself and defeat the pinning) and no netrc credentials sent to strangers.
        with Client(
            policy=policy,
            resolver=resolver,
            verify=_tls_context(),
            trust_env=False,
            follow_redirects=True,
            timeout=httpx.Timeout(timeout),
        ) as client:
            with client.stream(
                method, url, json=json, content=content, headers=send_headers
            ) as response:
                body = bytearray()
                for chunk in response.iter_bytes():
                    body.extend(chunk)
                    if len(body) > max_bytes:
                        raise OutboundFailed(f"response body exceeds {max_bytes} bytes")
                    if time.monotonic() > deadline:
                        raise OutboundFailed(f"response took longer than {timeout:g} s")
                return OutboundResponse(
                    status_code=response.status_code,
                    headers=dict(response.headers),
                    content=bytes(body),
                    url=str(response.url),
                )
    except SSRFGuardError as refused:
        raise _refusal(refused) from None
    except httpx.TimeoutException:
        raise OutboundFailed(f"timed out after {timeout:g} s") from None
    except httpx.HTTPError as error:
        # httpx messages can quote the URL (and a webhook URL is a secret): name the kind only.
        raise OutboundFailed(_describe_transport_error(error)) from None


# Names that mean this machine or a private network whatever DNS says (RFC 6761, RFC 8375,
# mDNS, cloud-internal zones such as metadata.google.internal): refused without resolving, so
# a name that does not resolve at store time cannot slip through to resolve later.
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain")


def normalise_url(url: str) -> str:
    """The URL with its host's trailing dots removed (``localhost.`` is ``localhost``)."""
    if not isinstance(url, str):
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host.endswith(".") or host.startswith("["):
        return url
    userinfo, at, hostport = parts.netloc.rpartition("@")
    name, colon, port = hostport.rpartition(":") if "]" not in hostport else ("", "", "")
    if not colon or not (port.isascii() and port.isdigit()):
        name, colon, port = hostport, "", ""
    netloc = f"{userinfo}{at}{name.rstrip('.')}{colon}{port}"
    return parts._replace(netloc=netloc).geturl()


def is_local_name(host: str) -> bool:
    name = host.lower().rstrip(".")
    return name in LOCAL_NAMES or name.endswith(LOCAL_SUFFIXES)


def _check_name(url: str, allow_private: bool) -> None:
    if allow_private or not isinstance(url, str):
        return
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return  # the guard refuses a URL it cannot parse
    if is_local_name(host):
        detail = f"the URL is not allowed: {host!r} names a loopback or private host"
        raise OutboundRefused(detail, errors=[{"field": "url", "message": detail}])


def mask_url(url: str) -> str:
    """Scheme, host and the last four characters: enough to recognise a secret URL."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}/****{url[-4:]}" if url else ""


@functools.lru_cache(maxsize=32)
def guard_policy(allow_private: bool, also_allow: tuple[str, ...] = ()) -> Policy:
    """The ssrfguard policy: public addresses only, unless private ones are allowed.

    Any port is accepted (self-hosted chat servers listen on their own ports); the address
    check is what keeps requests off internal services. ``also_allow`` widens the policy by
    exact networks, for a caller that must reach one known host.
    """
    allowed = (*(PRIVATE_NETWORKS if allow_private else ()), *also_allow)
    return Policy(
        allowed_networks=allowed,
        allowed_ports=frozenset(range(1, 65536)),
        max_redirects=MAX_REDIRECTS,
        sensitive_headers=frozenset(
            {"authorization", "proxy-authorization", "cookie", "x-ledgix-signature", "x-api-key"}
        ),
    )


@functools.lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    # Built once: loading the CA bundle costs ~60 ms, and a context is safe to share.
    return httpx.create_ssl_context()


def _allow_private(explicit: bool | None) -> bool:
    if explicit is not None:
        return explicit
    from webapp.runtime import vault

    return vault().config.webhook_allow_private


def _refusal(refused: SSRFGuardError) -> OutboundRefused:
    # Messages are built from the rule and the host, never from the whole URL (it may be secret).
    if isinstance(refused, BlockedAddressError):
        detail = f"the address {refused.address} is not allowed: {refused.reason}"
    elif isinstance(refused, BlockedURLError):
        detail = f"the URL is not allowed: {refused.reason}"
    else:
        detail = f"the request is not allowed: {type(refused).__name__}"
    return OutboundRefused(detail, errors=[{"field": "url", "message": detail}])


def _describe_transport_error(error: httpx.HTTPError) -> str:
    cause = error.__cause__ or error.__context__
    if isinstance(cause, socket.gaierror) or "Name or service not known" in str(error):
        return "the host name does not resolve"
    if isinstance(error, httpx.ConnectError):
        return "connection failed"
    if isinstance(error, httpx.TooManyRedirects):
        return "too many redirects"
    return f"request failed ({type(error).__name__})"


# --- delivery attempts: the retry schedule and the delivery log -------------------------------
# Shared by notifications (services.notifications) and signed webhooks (services.webhooks):
# each delivery is a row with ``attempts``, ``attempt_log``, ``status``, ``last_error``,
# ``delivered_at`` and ``updated_at``, and an RQ job that RQ retries on the same schedule.

QUEUED, RETRYING, DELIVERED, FAILED, SKIPPED = (
    "queued",
    "retrying",
    "delivered",
    "failed",
    "skipped",
)


def retry_intervals() -> list[int]:
    """Seconds before each retry of a delivery (``VAULT_NOTIFY_RETRY_INTERVALS``)."""
    from webapp.runtime import vault

    return list(vault().config.notify_retry_intervals)


def after_failure(retryable: bool, final_attempt: bool) -> str:
    """The status a failed attempt leaves: ``retrying`` (RQ tries again) or ``failed``."""
    return RETRYING if retryable and not final_attempt else FAILED


def record_attempt(
    delivery: Any,
    started: Any,
    status: str,
    detail: str,
    *,
    counted: bool = True,
    skip_detail_is_error: bool = False,
) -> None:
    """Append one attempt to a delivery row's log and set its status; the caller commits.

    ``counted`` False records an entry without counting an attempt (a skip). A skipped
    delivery's detail becomes its ``last_error`` only with ``skip_detail_is_error``.
    """
    from webapp.models import iso, utcnow

    now = utcnow()
    outcome = {DELIVERED: "delivered", SKIPPED: "skipped"}.get(status, "failed")
    attempt = delivery.attempts + (1 if counted else 0)
    entry = {"attempt": attempt, "at": iso(started), "outcome": outcome, "detail": detail[:500]}
    delivery.attempts = attempt
    # Reassigned, not appended: a plain JSON column does not track in-place changes.
    delivery.attempt_log = [*(delivery.attempt_log or []), entry]
    delivery.status = status
    delivery.updated_at = now
    if status == DELIVERED:
        delivery.delivered_at = now
        delivery.last_error = ""
    elif status != SKIPPED or (skip_detail_is_error and detail):
        delivery.last_error = detail[:1000]
