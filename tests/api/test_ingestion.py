"""Policy documents in: extraction at upload, indexing in a real RQ job, activation, and bad
files refused whole."""

from __future__ import annotations

import io
import zipfile

import pytest

from webapp.errors import InvalidInput


def make_pdf(pages: list[str]) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    for text in pages:
        y = 800
        for line in text.split("\n"):
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


POLICY_PDF_PAGES = [
    "Treasury payments policy\nPayments above EUR 25,000 must not be sent by automated agents.",
    "Vendor payouts\nEvery payout must include an invoice_id.\nPayouts to new counterparties require manual review.",
]


def counts(sql, client_id):
    return {
        table: sql(f"SELECT count(*) FROM {table} WHERE client_id = :c", c=client_id).scalar()
        for table in ("policy_versions", "policy_chunks", "policy_documents", "policies")
    }


def test_upload_is_indexed_by_a_job_then_governs_requests(app, tenant, run_jobs, sql):
    from webapp.services import ingestion, policies

    with app.app_context():
        submission = ingestion.submit_document(
            tenant.client_id,
            policy_id="treasury",
            filename="treasury.pdf",
            content_type="application/pdf",
            data=make_pdf(POLICY_PDF_PAGES),
            tools=["pay_*"],
        )
        assert submission.created and submission.version.status == "indexing"
        assert policies.active_versions(tenant.client_id) == []  # not active while indexing
        job_id = submission.job.job_id
        assert len(submission.version.rules) == 3
    assert sql("SELECT status FROM job_runs WHERE job_id = :j", j=job_id).scalar() == "queued"
    run_jobs()
    job = sql("SELECT status, progress, message FROM job_runs WHERE job_id = :j", j=job_id).one()
    assert (job.status, job.progress) == ("done", 100), job.message
    with app.app_context():
        active = policies.active_versions(tenant.client_id)
        assert [v.policy_id for v in active] == ["treasury"]
    chunks = sql(
        "SELECT chunk_id, page, embedding, embedding_model, is_rule FROM policy_chunks WHERE client_id = :c",
        c=tenant.client_id,
    ).all()
    assert any(c.is_rule for c in chunks) and any(not c.is_rule for c in chunks)
    assert all(c.embedding is not None and c.embedding_model == "hashing-v1" for c in chunks)
    passage_pages = {c.page for c in chunks if ":c" in c.chunk_id}
    assert 1 in passage_pages and passage_pages <= {1, 2}
    events = sql(
        "SELECT count(*) FROM ledger_events WHERE client_id = :c AND action_category = 'policy_registered'",
        c=tenant.client_id,
    ).scalar()
    assert events == 1


def _docx_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"0" * (200 * 1024 * 1024))
    return buffer.getvalue()


def _encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(["Payments must be approved."]))))
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("filename", "data", "reason"),
    [
        ("corrupt.pdf", b"%PDF-1.7\n" + b"\x00garbage" * 100, "corrupt_file"),
        ("locked.pdf", None, "encrypted_pdf"),
        ("bomb.docx", None, "zip_bomb"),
        ("notes.txt", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 20, "binary_content"),
        ("huge.txt", b"Payments must be approved. " * (2 * 1024 * 1024), "too_large"),
        ("empty.md", b"   \n\n  ", "empty_document"),
        (
            "rules.csv",
            "rule\nZahlungen über 100 EUR müssen geprüft werden\n".encode("latin-1"),
            "not_utf8",
        ),
        ("plain.txt", b"The weather was pleasant and nobody mentioned payments at all.", None),
    ],
    ids=[
        "corrupt-pdf",
        "encrypted-pdf",
        "docx-zip-bomb",
        "binary-as-text",
        "50mb",
        "empty",
        "csv-not-utf8",
        "no-rules",
    ],
)
def test_bad_uploads_get_a_clear_error_and_store_nothing(app, tenant, sql, filename, data, reason):
    from webapp.services import ingestion

    if data is None:
        data = _encrypted_pdf() if reason == "encrypted_pdf" else _docx_bomb()
    with app.app_context():
        with pytest.raises(InvalidInput) as error:
            ingestion.submit_document(
                tenant.client_id, policy_id="p", filename=filename, content_type=None, data=data
            )
    assert error.value.detail
    if reason:
        assert error.value.errors[0]["reason"] == reason
    assert counts(sql, tenant.client_id) == {
        "policy_versions": 0,
        "policy_chunks": 0,
        "policy_documents": 0,
        "policies": 0,
    }
    assert sql("SELECT count(*) FROM job_runs").scalar() == 0


def test_pasted_text_and_unchanged_content(app, tenant, run_jobs, sql):
    from webapp.services import ingestion

    text = "# Email\n\nAgents must never email more than 500 recipients at once.\n"
    with app.app_context():
        first = ingestion.submit_text(
            tenant.client_id, policy_id="email", text=text, tools=["send_email"]
        )
    run_jobs()
    with app.app_context():
        again = ingestion.submit_text(
            tenant.client_id, policy_id="email", text=text, tools=["send_email"]
        )
    assert first.created and not again.created and again.job is None
    assert counts(sql, tenant.client_id)["policy_documents"] == 1


def test_failed_indexing_removes_the_version_whole(app, tenant, run_jobs, sql):
    from webapp.services import ingestion

    with app.app_context():
        submission = ingestion.submit_text(
            tenant.client_id, policy_id="ops", text="Deploys must have a ticket."
        )
    # The stored original is damaged before the job runs: the job must fail and clean up.
    sql("UPDATE policy_documents SET data = :d", d=b"\x00\x01\x02")
    run_jobs()
    job = sql(
        "SELECT status, message FROM job_runs WHERE job_id = :j", j=submission.job.job_id
    ).one()
    assert job.status == "failed" and job.message
    assert counts(sql, tenant.client_id) == {
        "policy_versions": 0,
        "policy_chunks": 0,
        "policy_documents": 0,
        "policies": 0,
    }


def test_decisions_on_an_uploaded_policy_cite_its_rules_and_passages(app, client, tenant, run_jobs):
    from tests.helpers import ask
    from webapp.services import ingestion

    with app.app_context():
        ingestion.submit_document(
            tenant.client_id,
            policy_id="treasury",
            filename="treasury.pdf",
            content_type="application/pdf",
            data=make_pdf(POLICY_PDF_PAGES),
            tools=["pay_*"],
        )
    run_jobs()
    denied = ask(
        client, tenant, "pay_vendor", {"amount": 40_000, "currency": "EUR", "invoice_id": "I-1"}
    ).get_json()
    run_jobs()
    body = client.get(
        f"/clearance-status/{denied['request_id']}", headers=tenant.headers
    ).get_json()
    assert (body["status"], body["reason_code"]) == ("denied", "rule_violated")
    assert "25,000" in body["reason"]
    assert any(c["chunk_id"].endswith(":r0") for c in body["citations"])
    with app.app_context():
        from webapp.extensions import db
        from webapp.models import ClearanceRequest

        evidence = db.session.get(ClearanceRequest, denied["request_id"]).evidence_chunks
    assert evidence and all("score" in e for e in evidence)
    # Hybrid retrieval over the document brings its passages in as evidence too.
    assert any(":c" in e["chunk_id"] for e in evidence)
