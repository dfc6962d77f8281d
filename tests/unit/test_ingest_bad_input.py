"""Bad uploads: each one is refused whole with a stable code and a message a person can act on."""

from __future__ import annotations

import io
import json
import random
import re
import time
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import IngestError, chunk, extract, extract_rule_statements
from tests.fixtures.ingest.samples import (
    blank_pdf,
    encrypt_pdf,
    highly_compressed_docx,
    make_docx,
    make_pdf,
    zip_with_claimed_size,
    zip_with_claimed_sizes,
)


def refused(data: bytes, filename: str, content_type: str | None = None, **kwargs) -> IngestError:
    with pytest.raises(IngestError) as caught:
        extract(data, filename, content_type, **kwargs)
    error = caught.value
    # Every message names the file and reads as a sentence for the uploader.
    assert error.message.endswith("."), error.message
    assert len(error.message) < 400
    return error


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return make_pdf(
        [
            ("h1", "Payments"),
            ("p", "Payments must not exceed 5,000 EUR. " * 20),
            ("pagebreak", None),
            ("p", "Refunds need approval. " * 20),
        ]
    )


# --- corrupt and encrypted PDFs --------------------------------------------------------------


@pytest.mark.parametrize("cut", [200, 0.5, -40])
def test_truncated_pdf_is_corrupt(pdf, cut):
    end = cut if isinstance(cut, int) else int(len(pdf) * cut)
    error = refused(pdf[:end], "payments.pdf")
    assert error.code == "corrupt_file"
    assert "payments.pdf" in error.message and "damaged" in error.message


def test_pdf_with_a_damaged_content_stream_is_refused_not_half_read(pdf):
    # Damage page 2's content stream only: pypdf alone would return page 1 and skip page 2.
    streams = [m.span(1) for m in re.finditer(rb"stream\r?\n(.*?)endstream", pdf, re.S)]
    start, end = streams[-1]
    middle = start + (end - start) // 2
    damaged = pdf[:middle] + b" " * (end - middle) + pdf[end:]
    assert refused(damaged, "payments.pdf").code == "corrupt_file"


def test_pdf_header_followed_by_garbage_is_corrupt():
    assert refused(b"%PDF-1.7\n" + b"garbage " * 500, "x.pdf").code == "corrupt_file"


def test_file_named_pdf_that_is_not_a_pdf_is_corrupt():
    error = refused(b"Just some text, honestly.\n", "policy.pdf")
    assert error.code == "corrupt_file"
    assert "not a PDF" in error.message


@pytest.mark.parametrize("algorithm", ["AES-256", "RC4-128"])
def test_password_protected_pdf_is_refused(pdf, algorithm):
    error = refused(encrypt_pdf(pdf, user_password="s3cret", algorithm=algorithm), "locked.pdf")
    assert error.code == "encrypted_pdf"
    assert "password" in error.message


# --- DOCX zip bombs and broken DOCX ----------------------------------------------------------


def test_docx_whose_directory_claims_gigabytes_is_refused_before_decompression():
    bomb = zip_with_claimed_size("word/document.xml", b"<w:document/>", claimed_size=4_000_000_000)
    # The directory lies: nothing decompresses to 4 GB. Only reading the directory first
    # (rather than decompressing) can refuse this file as a bomb.
    error = refused(bomb, "contract.docx")
    assert error.code == "zip_bomb"
    assert "zip bomb" in error.message


def test_docx_with_an_extreme_compression_ratio_is_refused_quickly():
    bomb = highly_compressed_docx(uncompressed_mib=60)  # 60 MiB of zeros in ~60 KiB
    assert len(bomb) < 200_000
    started = time.perf_counter()
    error = refused(bomb, "contract.docx")
    assert error.code == "zip_bomb"
    assert time.perf_counter() - started < 0.5  # refused from the directory, not by inflating


def test_docx_expanding_beyond_100_mib_in_total_is_refused():
    # Each part alone has a plausible ratio (about 51:1); together they promise 102 MiB.
    rng = random.Random(7)
    data = zip_with_claimed_sizes(
        {
            "word/media/image1.png": (rng.randbytes(1024 * 1024), 51 * 1024 * 1024),
            "word/media/image2.png": (rng.randbytes(1024 * 1024), 51 * 1024 * 1024),
        }
    )
    assert refused(data, "big.docx").code == "zip_bomb"


def test_damaged_docx_is_corrupt():
    good = make_docx(lambda d: d.add_paragraph("Agents must log every call."))
    assert refused(good[: len(good) // 2], "half.docx").code == "corrupt_file"
    not_a_zip = refused(b"plain text in disguise", "fake.docx")
    assert not_a_zip.code == "corrupt_file"


def test_zip_without_a_word_document_named_docx_is_corrupt():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    assert refused(buffer.getvalue(), "report.docx").code == "corrupt_file"


def test_password_protected_word_file_is_refused():
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512 + "EncryptedPackage".encode("utf-16-le")
    error = refused(ole + b"\0" * 1024, "secret.docx")
    assert error.code == "encrypted_document"


# --- binary data disguised as text -----------------------------------------------------------


def test_image_renamed_to_txt_is_binary_content():
    png = b"\x89PNG\r\n\x1a\n" + random.Random(1).randbytes(2048)
    error = refused(png, "policy.txt", "text/plain")
    assert error.code == "binary_content"
    assert "PNG" in error.message


@pytest.mark.parametrize("filename", ["policy.txt", "policy.md", "rules.csv", "p.json", "noext"])
def test_random_bytes_named_as_text_are_binary_content(filename):
    noise = random.Random(filename).randbytes(4096)
    assert refused(noise, filename).code == "binary_content"


def test_text_with_nul_bytes_is_binary_content():
    data = b"Payments must be approved.\n" + b"\x00\x01\x02\x03" * 50
    assert refused(data, "policy.txt").code == "binary_content"


def test_valid_utf8_full_of_control_characters_is_binary_content():
    data = ("".join(chr(c) for c in range(1, 9)) * 40 + "some words").encode()
    assert refused(data, "policy.md").code == "binary_content"


# --- size and emptiness ----------------------------------------------------------------------


def test_a_50_mb_file_is_refused_by_the_default_20_mib_limit():
    error = refused(b"a" * 50_000_000, "huge.txt")
    assert error.code == "too_large"
    assert "47.7 MiB" in error.message and "20.0 MiB" in error.message


def test_upload_limit_is_a_parameter():
    assert refused(b"x" * 2048, "small.txt", max_bytes=1024).code == "too_large"
    assert extract(b"Short policy text.", "small.txt", max_bytes=1024).sections


@pytest.mark.parametrize(
    ("data", "filename"),
    [
        (b"", "empty.txt"),
        (b"   \n\t\n  ", "blank.md"),
        (b"# \n\n", "headings.md"),
        (b"{}", "empty.json"),
        (b"[]", "list.json"),
        (b"rule,owner\n", "header-only.csv"),
        (b"<html><body>  </body></html>", "page.html"),
    ],
)
def test_documents_without_text_are_empty(data, filename):
    assert refused(data, filename).code == "empty_document"


def test_pdf_without_text_is_empty_with_an_ocr_hint():
    error = refused(blank_pdf(pages=3), "scan.pdf")
    assert error.code == "empty_document"
    assert "OCR" in error.message


def test_docx_without_text_is_empty():
    assert refused(make_docx(lambda d: d.add_paragraph("   ")), "blank.docx").code == (
        "empty_document"
    )


# --- encodings -------------------------------------------------------------------------------


def test_csv_in_windows_1252_is_not_utf8():
    data = "rule,owner\nCafé expenses must not exceed 20 €,finance\n".encode("cp1252")
    error = refused(data, "rules.csv", "text/csv")
    assert error.code == "not_utf8"
    assert "UTF-8" in error.message and "line 2" in error.message


def test_csv_in_utf16_is_not_utf8():
    data = "rule,owner\nRefunds need approval,finance\n".encode("utf-16")
    assert refused(data, "rules.csv").code == "not_utf8"
    without_bom = "rule,owner\nRefunds need approval,finance\n".encode("utf-16-le")
    assert refused(without_bom, "rules.csv").code == "not_utf8"


def test_latin1_text_is_not_utf8_rather_than_binary():
    data = "Règle : les paiements supérieurs à 500 € doivent être approuvés.".encode(
        "latin-1", "replace"
    )
    assert refused(data, "regles.txt").code == "not_utf8"


# --- malformed JSON and unsupported types ----------------------------------------------------


def test_malformed_json_names_the_position():
    error = refused(b'{"policy_id": "p", "rules": ["a",]}', "policy.json")
    assert error.code == "malformed_json"
    assert "line 1" in error.message and "column" in error.message


def test_json_with_nan_is_malformed():
    assert refused(b'{"limit": NaN}', "limits.json").code == "malformed_json"


def test_deeply_nested_json_is_malformed_not_a_crash():
    assert refused(b"[" * 100_000 + b"]" * 100_000, "deep.json").code == "malformed_json"


@pytest.mark.parametrize(
    ("data", "filename", "hint"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "diagram.png", "PNG"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "old.doc", ".docx"),
        (b"{\\rtf1\\ansi Payments must be approved.}", "policy.rtf", "RTF"),
        (b"\x1f\x8b\x08\x00" + b"\0" * 100, "policy.gz", "gzip"),
    ],
)
def test_unsupported_types_say_what_they_are(data, filename, hint):
    error = refused(data, filename)
    assert error.code == "unsupported_type"
    assert hint in error.message


def test_spreadsheet_zip_is_unsupported_with_advice():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    error = refused(buffer.getvalue(), "limits.xlsx")
    assert error.code == "unsupported_type"
    assert "CSV" in error.message


def test_error_is_typed_and_printable():
    error = IngestError("too_large", "x.txt is too big.")
    assert str(error) == "x.txt is too big."
    assert json.dumps({"code": error.code, "message": error.message})


# --- damaged files of every kind -------------------------------------------------------------


def test_mutated_files_are_either_read_or_refused_never_a_crash(pdf):
    """Seeded fuzzing: random damage to valid files only ever yields an IngestError."""
    samples = {
        "pdf": pdf,
        "docx": make_docx(
            lambda d: (d.add_heading("Rules", 1), d.add_paragraph("Agents must log."))
        ),
        "md": b"# Rules\n\n- Agents must log.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        "csv": b"rule,owner\nAgents must log,ops\n",
        "json": b'{"policy_id": "p", "rules": ["Agents must log"]}',
        "html": b"<html><body><h1>Rules</h1><p>Agents must log.</p></body></html>",
    }
    rng = random.Random(2024)
    outcomes: set[str] = set()
    for _ in range(400):
        kind = rng.choice(sorted(samples))
        data = bytearray(samples[kind])
        position = rng.randrange(len(data))
        damage = rng.choice(["flip", "truncate", "insert", "delete"])
        if damage == "flip":
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif damage == "truncate":
            del data[position:]
        elif damage == "insert":
            data[position:position] = rng.randbytes(rng.randint(1, 40))
        else:
            del data[position : position + rng.randint(1, 200)]
        try:
            extract(bytes(data), rng.choice([f"file.{kind}", "file.txt", "file"]))
            outcomes.add("read")
        except IngestError as error:
            outcomes.add(error.code)
    assert {"read", "corrupt_file", "binary_content"} <= outcomes


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(min_size=1, max_size=400),
    filename=st.sampled_from(["a.txt", "a.md", "a.csv", "a.json", "a.html", "a"]),
)
def test_any_text_is_read_or_refused_and_then_chunked(text, filename):
    try:
        document = extract(text.encode("utf-8"), filename)
    except IngestError:
        return
    chunks = chunk(document, max_chars=200)
    assert chunks
    for rule in extract_rule_statements(document):
        assert 0 < len(rule.text) <= 2000
