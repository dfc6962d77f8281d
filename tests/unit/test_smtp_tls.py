"""Email over TLS against a real aiosmtpd server on loopback: STARTTLS and implicit TLS, with a
certificate from a CA made in the test, and a refusal when the CA is not trusted."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from config import Config
from webapp.notify.channels import DeliveryError, send_email


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA and a server certificate for 127.0.0.1 signed by it; returns file paths."""
    folder = tmp_path_factory.mktemp("pki")
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Test CA"))
        .issuer_name(_name("Test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = {name: folder / f"{name}.pem" for name in ("ca", "cert", "key")}
    paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


def _server_context(pki) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki["cert"], pki["key"])
    return context


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _message() -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = "Review needed"
    message["From"] = "vault@example.test"
    message["To"] = "reviewer@example.test"
    message.set_content("A request waits for review.")
    return message


def _config(port: int, security: str, ca_file: str = "") -> Config:
    return Config.from_env(
        {},
        instance_path="/tmp/vault-smtp-tls",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_security=security,
        smtp_ca_file=ca_file,
        smtp_from="vault@example.test",
    )


def test_starttls_delivers_with_the_configured_ca_and_refuses_without_it(pki):
    inbox = Inbox()
    controller = Controller(
        inbox,
        hostname="127.0.0.1",
        port=_port(),
        tls_context=_server_context(pki),
        require_starttls=True,
    )
    controller.start()
    try:
        send_email(
            _config(controller.port, "starttls", str(pki["ca"])),
            _message(),
            ["reviewer@example.test"],
        )
        with pytest.raises(DeliveryError) as refused:
            send_email(_config(controller.port, "starttls"), _message(), ["reviewer@example.test"])
    finally:
        controller.stop()
    assert [(m[0], m[1]) for m in inbox.messages] == [
        ("vault@example.test", ["reviewer@example.test"])
    ]
    assert b"A request waits for review." in inbox.messages[0][2]
    assert "certificate" in str(refused.value) and refused.value.retryable is False


def test_implicit_tls_delivers(pki):
    inbox = Inbox()
    # ssl_context: TLS from the first byte (SMTPS), not STARTTLS.
    controller = Controller(
        inbox, hostname="127.0.0.1", port=_port(), ssl_context=_server_context(pki)
    )
    controller.start()
    try:
        send_email(
            _config(controller.port, "ssl", str(pki["ca"])), _message(), ["reviewer@example.test"]
        )
    finally:
        controller.stop()
    assert len(inbox.messages) == 1


def test_smtp_ca_file_must_exist():
    from config import ConfigError

    with pytest.raises(ConfigError, match="SMTP_CA_FILE"):
        Config.from_env({"SMTP_CA_FILE": "/nonexistent/ca.pem", "VAULT_INSTANCE_PATH": "/tmp/x"})
