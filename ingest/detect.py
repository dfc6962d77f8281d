"""Telling what a file really is from its bytes, and decoding text strictly.

The file name and the declared content type are only hints: the bytes decide. A PDF named
`.txt` is read as a PDF, and an image named `.txt` is refused as binary content.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import PurePosixPath

from ingest.document import DocumentFormat
from ingest.errors import IngestError

EXTENSIONS: dict[str, DocumentFormat] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".txt": "txt",
    ".text": "txt",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "csv",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
}
CONTENT_TYPES: dict[str, DocumentFormat] = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/plain": "txt",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "application/json": "json",
    "text/json": "json",
    "text/csv": "csv",
    "text/tab-separated-values": "csv",
    "text/html": "html",
    "application/xhtml+xml": "html",
}
TEXT_FORMATS: frozenset[DocumentFormat] = frozenset({"txt", "markdown", "json", "csv", "html"})
SUPPORTED = "PDF, DOCX, plain text, Markdown, JSON, CSV or HTML"

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an executable program"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"{\\rtf", "an RTF document"),
    (b"%!PS", "a PostScript file"),
    (b"ID3", "an MP3 file"),
    (b"OggS", "an audio file"),
    (b"RIFF", "a media file"),
)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"
# C0 controls and DEL, less the whitespace ones text legitimately holds.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_CONTROL_BYTES = frozenset(range(0x00, 0x09)) | frozenset(range(0x0E, 0x20)) | {0x7F}
_MAX_CONTROL_RATIO = 0.01


def display_name(filename: str) -> str:
    """The file's base name, shortened, for use inside user-facing messages."""
    name = PurePosixPath(filename.replace("\\", "/")).name or "the file"
    return name if len(name) <= 80 else name[:77] + "..."


def declared_format(filename: str, content_type: str | None) -> DocumentFormat | None:
    """The format the name's extension (or else the content type) claims, if any."""
    suffix = PurePosixPath(filename.replace("\\", "/")).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    if content_type:
        return CONTENT_TYPES.get(content_type.split(";")[0].strip().lower())
    return None


def detect_format(data: bytes, filename: str, content_type: str | None = None) -> DocumentFormat:
    """Decide the real format of `data` from its bytes, using the name only as a hint."""
    name = display_name(filename)
    claimed = declared_format(filename, content_type)
    head = data[:1024]

    if b"%PDF-" in head:
        return "pdf"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _detect_zip(data, name, claimed)
    if data.startswith(_OLE):
        if "EncryptedPackage".encode("utf-16-le") in data[:1_048_576]:
            raise IngestError(
                "encrypted_document",
                f"{name} is a password-protected Office document. Remove the password in Word "
                "and upload it again.",
            )
        raise IngestError(
            "unsupported_type",
            f"{name} is an old binary Office file (.doc or .xls). Save it as .docx or PDF "
            "and upload it again.",
        )
    for signature, what in _BINARY_SIGNATURES:
        if data.startswith(signature):
            if signature == b"{\\rtf":
                raise IngestError(
                    "unsupported_type",
                    f"{name} is an RTF document. Save it as .docx or PDF and upload it again.",
                )
            code = "binary_content" if claimed in TEXT_FORMATS else "unsupported_type"
            raise IngestError(
                code, f"{name} is {what}, not a policy document. Upload a {SUPPORTED} file."
            )
    if claimed == "pdf":
        raise IngestError(
            "corrupt_file", f"{name} is named as a PDF but its content is not a PDF file."
        )
    if claimed == "docx":
        raise IngestError(
            "corrupt_file",
            f"{name} is named as a Word document but its content is not a .docx file.",
        )
    if claimed in TEXT_FORMATS:
        if claimed == "txt":
            return _sniff_text(data) if _looks_like_html(data[:2048]) else "txt"
        return claimed
    return _sniff_text(data)


def decode_text(data: bytes, filename: str) -> str:
    """Decode UTF-8 text strictly (a UTF-8 BOM is allowed); refuse binary data and other encodings."""
    name = display_name(filename)
    if data.startswith(_UTF32_BOMS) or data.startswith(_UTF16_BOMS):
        encoding = "UTF-32" if data.startswith(_UTF32_BOMS) else "UTF-16"
        raise IngestError(
            "not_utf8", f"{name} is encoded as {encoding}. Save it as UTF-8 and upload it again."
        )
    if b"\x00" in data:
        if _looks_like_utf16(data[:4096]):
            raise IngestError(
                "not_utf8", f"{name} is encoded as UTF-16. Save it as UTF-8 and upload it again."
            )
        raise IngestError(
            "binary_content",
            f"{name} contains binary data (NUL bytes), not text. Upload a {SUPPORTED} file.",
        )
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        sample = data[:65536]
        controls = sum(1 for byte in sample if byte in _CONTROL_BYTES)
        if controls > _MAX_CONTROL_RATIO * len(sample):
            raise IngestError(
                "binary_content",
                f"{name} contains binary data, not text. Upload a {SUPPORTED} file.",
            ) from None
        line = data[: exc.start].count(b"\n") + 1
        raise IngestError(
            "not_utf8",
            f"{name} is not UTF-8 encoded (invalid byte 0x{data[exc.start]:02x} on line {line}). "
            "It was probably saved as Windows-1252 or Latin-1: save it as UTF-8 and upload "
            "it again.",
        ) from None
    controls = len(_CONTROL.findall(text[:65536]))
    if controls > _MAX_CONTROL_RATIO * min(len(text), 65536):
        raise IngestError(
            "binary_content",
            f"{name} contains control characters that text does not have: it looks like a "
            f"binary file. Upload a {SUPPORTED} file.",
        )
    return text


def _detect_zip(data: bytes, name: str, claimed: DocumentFormat | None) -> DocumentFormat:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            mimetype = archive.read("mimetype")[:100] if "mimetype" in names else b""
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError):
        kind = "Word document" if claimed == "docx" else "zip file"
        raise IngestError(
            "corrupt_file", f"{name} is a damaged {kind}: its zip structure cannot be read."
        ) from None
    if "word/document.xml" in names:
        return "docx"
    if claimed == "docx":
        raise IngestError(
            "corrupt_file", f"{name} is not a valid Word document: it has no document body."
        )
    if "xl/workbook.xml" in names:
        what = "an Excel workbook: export it as CSV"
    elif "ppt/presentation.xml" in names:
        what = "a PowerPoint presentation: save it as PDF"
    elif mimetype.startswith(b"application/vnd.oasis.opendocument"):
        what = "an OpenDocument file: save it as .docx or PDF"
    else:
        what = f"a zip archive. Upload a {SUPPORTED} file"
    raise IngestError("unsupported_type", f"{name} is {what}.")


def _looks_like_utf16(sample: bytes) -> bool:
    """UTF-16 text without a BOM: every other byte zero, the rest printable ASCII."""
    if len(sample) < 4:
        return False
    even, odd = sample[0::2], sample[1::2]
    zeros, other = (even, odd) if even.count(0) > odd.count(0) else (odd, even)
    if zeros.count(0) / len(zeros) < 0.9 or other.count(0) / len(other) > 0.05:
        return False
    printable = sum(1 for byte in other if 0x20 <= byte < 0x7F or byte in (9, 10, 13))
    return printable / len(other) > 0.9


def _looks_like_html(head: bytes) -> bool:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return start.startswith((b"<!doctype html", b"<html", b"<?xml")) and b"<html" in head.lower()


def _sniff_text(data: bytes) -> DocumentFormat:
    """Guess the format of text whose name says nothing useful."""
    head = data[:4096]
    if _looks_like_html(head):
        return "html"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] in (b"{", b"["):
        try:
            json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            pass
        else:
            return "json"
    if re.search(rb"(?m)^(?:#{1,6} \S|```|\|[ :-]*-{3}|\s{0,3}[-*+] \S.*\n\s{0,3}[-*+] \S)", head):
        return "markdown"
    return "txt"
