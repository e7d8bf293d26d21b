"""Plain-Python shapes for what memory reads return, and the input checks every write shares.

Reads return lists of dicts (one per record) so a notebook can show them with
`pandas.DataFrame(rows)` and an LLM prompt can be built from them without LangChain types.
"""
from __future__ import annotations

from typing import Any

from langchain_core.documents import Document


def text_of(value: Any) -> str | None:
    """A CLOB as str: python-oracledb returns an `oracledb.LOB` or a str depending on fetch_lobs."""
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "read"):
        return value.read()
    return str(value)


def require_text(value: Any, name: str) -> str:
    """`value` if it is a non-empty str; Oracle stores '' as NULL, so empty text is refused up front."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} must not be empty (Oracle stores '' as NULL)")
    return value


def require_short_text(value: Any, name: str, max_bytes: int) -> str:
    """A non-empty str that fits a VARCHAR2(max_bytes) column (byte semantics, UTF-8)."""
    require_text(value, name)
    size = len(value.encode("utf-8"))
    if size > max_bytes:
        raise ValueError(f"{name} is {size} bytes in UTF-8; the column holds at most {max_bytes}")
    return value


def require_k(k: Any, name: str = "k") -> int:
    """A positive int row limit (bool is refused: True is not a count)."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"{name} must be an int, not {type(k).__name__}")
    if k < 1:
        raise ValueError(f"{name} must be at least 1, got {k}")
    return k


def require_metadata(metadata: Any) -> dict:
    """A copy of the metadata dict ({} for None); JSON object keys must be strings."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict, not {type(metadata).__name__}")
    bad = [key for key in metadata if not isinstance(key, str)]
    if bad:
        raise TypeError(f"metadata keys must be str (JSON object keys), got {bad!r}")
    return dict(metadata)


def document_record(doc: Document, distance: float | None = None) -> dict:
    """A LangChain Document (plus its distance) as {"id", "text", "metadata", "distance"}."""
    return {"id": doc.id, "text": doc.page_content, "metadata": dict(doc.metadata), "distance": distance}
