"""Free text -> an Oracle Text CONTAINS query that cannot raise a DRG error.

A learner's question ("How do I fix ORA-51962 when vector_memory_size is 0?") is not a valid
CONTAINS query: ``-`` is MINUS, ``?`` is fuzzy, AND/OR/NOT/NEAR/ABOUT/FUZZY are operators, and a
stray ``{`` or ``)`` is a syntax error (DRG-50901). ``keyword_terms`` turns it into escaped terms:

* the text is split as Oracle's BASIC_LEXER splits it: runs of letters and digits (any script);
  everything else (``_`` included) separates tokens;
* tokens written together with ``- _ . / : @`` between them (``ORA-51962``, ``vector_memory_size``,
  ``DBMS_VECTOR.LOAD_ONNX_MODEL``, ``23.26.0``) stay one *term*, so the index matches them as a
  phrase of adjacent tokens: the exact identifier still finds its document;
* every term is wrapped in braces ``{...}``: inside braces nothing is an operator or a wildcard.
  Oracle Text Reference, "Querying Escape Characters": "To include the close brace character in an
  escaped query expression, use }}" (``escape_braces`` does that, for any text);
* stopwords (Oracle's English default stoplist) are dropped: alone they match nothing, and a query
  of stopwords only returns no rows. Terms made only of stopwords are dropped too;
* the terms are joined with ACCUM (rank documents by how many terms they contain), AND or OR.

Input with no searchable term gives None, so a caller skips the keyword leg instead of sending a
query that can only return nothing.
"""
from __future__ import annotations

import re
from typing import Literal

from workshop.db import oracle_text_default_stoplist

Mode = Literal["accum", "and", "or"]

#: How the terms are joined, per mode (the word forms read better in a notebook than , & |).
JOINERS: dict[str, str] = {"accum": " ACCUM ", "and": " AND ", "or": " OR "}

#: Oracle Text's English default stoplist (CTXSYS.DEFAULT_STOPLIST, 114 words), the same list the
#: embedded engine's lexer uses. On an index built with another stoplist pass ``stopwords=``
#: explicitly (``frozenset()`` keeps every word).
DEFAULT_STOPWORDS: frozenset[str] = oracle_text_default_stoplist()

#: One BASIC_LEXER token: letters and digits of any script (``_`` is not a letter here).
_TOKEN = r"[^\W_]+"
#: Characters that glue tokens into one identifier-like term when nothing else separates them.
_CONNECTORS = r"[-_./:@]"
#: A term: tokens joined by single connectors, or digit groups joined by ',' (Oracle's numgroup).
_TERM = re.compile(rf"{_TOKEN}(?:(?:{_CONNECTORS}|(?<=\d),(?=\d)){_TOKEN})*")
_TOKENS = re.compile(_TOKEN)

#: A generous bound on the CONTAINS query: it must fit a VARCHAR2 bind of 4000 bytes.
MAX_QUERY_BYTES = 4000


def escape_braces(text: str) -> str:
    """Wrap `text` in braces so Oracle Text reads all of it literally (`}` inside becomes `}}`)."""
    return "{" + text.replace("}", "}}") + "}"


def split_terms(text: str, stopwords: frozenset[str] = DEFAULT_STOPWORDS) -> list[str]:
    """The searchable terms of `text`, in order, without duplicates (case-insensitive).

    A term is a token or an identifier-like run of tokens (``ORA-51962``). Terms whose tokens are
    all stopwords are dropped.
    """
    if not isinstance(text, str):
        raise TypeError(f"keyword text must be str, not {type(text).__name__}")
    seen: set[str] = set()
    terms: list[str] = []
    for match in _TERM.finditer(text):
        term = match.group(0)
        tokens = _TOKENS.findall(term.lower())  # lower first, as the lexer does ("İ" -> "i̇" -> "i")
        if all(t in stopwords for t in tokens):
            continue
        key = " ".join(tokens)
        if key not in seen:
            seen.add(key)
            terms.append(term)
    return terms


def keyword_terms(text: str, mode: Mode = "accum", *, max_terms: int = 32,
                  stopwords: frozenset[str] = DEFAULT_STOPWORDS) -> str | None:
    """Free text -> a CONTAINS query of brace-escaped terms, or None when nothing is searchable.

    ``keyword_terms("Fix ORA-51962 and vector_memory_size")`` gives
    ``'{Fix} ACCUM {ORA-51962} ACCUM {vector_memory_size}'``. At most `max_terms` terms are kept
    (the first ones), and the query never exceeds MAX_QUERY_BYTES (a term that would overflow it
    is skipped).
    """
    if mode not in JOINERS:
        raise ValueError(f"mode must be one of {sorted(JOINERS)}, not {mode!r}")
    if max_terms < 1:
        raise ValueError("max_terms must be at least 1")
    joiner = JOINERS[mode]
    parts: list[str] = []
    size = 0
    for term in split_terms(text, stopwords)[:max_terms]:
        escaped = escape_braces(term)
        added = len(escaped.encode("utf-8")) + (len(joiner) if parts else 0)
        if size + added > MAX_QUERY_BYTES:
            continue  # a term that cannot fit is skipped; shorter ones after it may still fit
        parts.append(escaped)
        size += added
    return joiner.join(parts) if parts else None
