"""Extraction: the bytes of an uploaded policy file in, a located `Document` out.

Every refusal is an `IngestError` raised before anything is returned, so a caller never holds a
half-extracted document: it either stores the whole result or nothing.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ingest.detect import decode_text, detect_format, display_name
from ingest.document import Document
from ingest.errors import IngestError
from ingest.formats.csvdoc import extract_csv
from ingest.formats.jsondoc import extract_json
from ingest.formats.markdown import extract_markdown
from ingest.formats.pdf import extract_pdf
from ingest.formats.plaintext import extract_text_document
from ingest.formats.word import extract_docx
from ingest.wiki import html_to_document

DEFAULT_MAX_BYTES = 20 * 1024 * 1024


def extract(
    data: bytes,
    filename: str,
    content_type: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Document:
    """Extract the text of a policy file, detecting its real format from its bytes.

    Raises `IngestError` (too_large, empty_document, unsupported_type, binary_content,
    not_utf8, corrupt_file, encrypted_pdf, encrypted_document, zip_bomb, malformed_json,
    invalid_policy) when the file cannot be ingested whole.
    """
    name = display_name(filename)
    if len(data) > max_bytes:
        raise IngestError(
            "too_large",
            f"{name} is {_size(len(data))}; the upload limit is {_size(max_bytes)}.",
        )
    if not data.strip():
        raise IngestError("empty_document", f"{name} is empty.")
    stem = PurePosixPath(filename.replace("\\", "/")).stem or "Untitled policy"
    fmt = detect_format(data, filename, content_type)
    if fmt == "pdf":
        document = extract_pdf(data, name, stem)
    elif fmt == "docx":
        document = extract_docx(data, name, stem)
    else:
        text = decode_text(data, filename)
        if fmt == "markdown":
            document = extract_markdown(text, stem)
        elif fmt == "json":
            document = extract_json(text, name, stem)
        elif fmt == "csv":
            document = extract_csv(text, name, stem)
        elif fmt == "html":
            document = html_to_document(text, name)
        else:
            document = extract_text_document(text, stem)
    if not any(section.text.strip() for section in document.sections):
        hint = " If it is a scanned document, run it through OCR first." if fmt == "pdf" else ""
        raise IngestError("empty_document", f"{name} contains no text.{hint}")
    return document


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MiB"
    if count >= 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count} bytes"
