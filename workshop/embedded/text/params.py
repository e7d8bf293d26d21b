"""The PARAMETERS string of CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT / CREATE SEARCH INDEX.

Sync modes (Oracle AI Database 23ai/26ai):

* no SYNC and no MAINTENANCE clause -> automatic maintenance (the 23ai+ default for CONTEXT and
  SEARCH indexes: background IRnn processes sync shortly after commit). Emulated as "indexed when the
  transaction commits" (``AUTO``).
* ``SYNC (ON COMMIT)``               -> indexed as part of the commit (``ON COMMIT``).
* ``SYNC (EVERY "interval")``        -> a scheduler job syncs every interval; emulated like AUTO (``EVERY``).
* ``SYNC (MANUAL)`` or ``MAINTENANCE MANUAL`` -> nothing is indexed until CTX_DDL.SYNC_INDEX (``MANUAL``).
  ``MAINTENANCE AUTO`` with ``SYNC (MANUAL)`` stays automatic, as documented.

Also accepted: ``STOPLIST CTXSYS.DEFAULT_STOPLIST | CTXSYS.EMPTY_STOPLIST``, ``LEXER CTXSYS.DEFAULT_LEXER``,
``MEMORY n`` (a resource hint), ``POPULATE | NOPOPULATE``. Other Oracle keywords raise TextIndexError
naming them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import TextIndexError
from .lexer import STOPLISTS

SYNC_MODES = ("AUTO", "ON COMMIT", "EVERY", "MANUAL")

_KNOWN_UNSUPPORTED = ("DATASTORE", "FILTER", "WORDLIST", "SECTION", "STORAGE", "TRANSACTIONAL",
                      "REPLACE", "METADATA", "FORMAT", "CHARSET", "LANGUAGE", "INDEX", "SEARCH_ON",
                      "DATAGUIDE", "OPTIMIZE", "SIMPLIFIED_SYNTAX", "ASYNC", "PARALLEL", "RESUME")


@dataclass(frozen=True)
class IndexSettings:
    sync_mode: str = "AUTO"
    sync_interval: str | None = None
    stoplist: str = "CTXSYS.DEFAULT_STOPLIST"
    populate: bool = True


def _bad(detail: str, code: int = 29855) -> TextIndexError:
    return TextIndexError(code, "ORA-29855: error occurred in the execution of ODCIINDEXCREATE routine", detail)


def _unsupported(what: str) -> TextIndexError:
    return TextIndexError(3001, f"ORA-03001: unimplemented feature: Oracle Text index parameter {what} "
                                "(embedded engine; run against Oracle AI Database)")


_TOKEN = re.compile(r'\s*(?:(\()|(\))|("(?:[^"]|"")*")|([^\s()"]+))')


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip():
                raise _bad(f"cannot read PARAMETERS near {text[pos:pos + 20]!r}")
            break
        pos = m.end()
        out.append(next(g for g in m.groups() if g is not None))
    return out


def parse_parameters(text: str | None) -> IndexSettings:
    """PARAMETERS string -> IndexSettings; unknown or unsupported keywords raise TextIndexError."""
    if text is None or not text.strip():
        return IndexSettings()
    toks = _tokens(text)
    sync: str | None = None
    interval: str | None = None
    maintenance: str | None = None
    stoplist = "CTXSYS.DEFAULT_STOPLIST"
    populate = True
    i = 0

    def word(k: int) -> str:
        return toks[k].upper() if k < len(toks) else ""

    while i < len(toks):
        kw = word(i)
        if kw == "SYNC":
            if word(i + 1) != "(":
                raise _bad("SYNC must be followed by ( ON COMMIT | MANUAL | EVERY \"interval\" )")
            end = i + 2
            while end < len(toks) and toks[end] != ")":
                end += 1
            if end >= len(toks):
                raise _bad("SYNC ( is not closed")
            body = [t.upper() for t in toks[i + 2:end]]
            if body == ["ON", "COMMIT"]:
                sync = "ON COMMIT"
            elif body == ["MANUAL"]:
                sync = "MANUAL"
            elif body and body[0] == "EVERY" and len(body) >= 2 and body[1].startswith('"'):
                sync, interval = "EVERY", toks[i + 3][1:-1].replace('""', '"')
                extra = body[2:]
                while extra:  # EVERY "..." [MEMORY n] [PARALLEL n]: resource hints
                    if len(extra) >= 2 and extra[0] in ("MEMORY", "PARALLEL"):
                        extra = extra[2:]
                    else:
                        raise _bad(f"unexpected {extra[0]} in SYNC (EVERY ...)")
            else:
                raise _bad(f"unknown SYNC type {' '.join(body) or '()'}")
            i = end + 1
        elif kw == "MAINTENANCE":
            mode = word(i + 1)
            if mode not in ("AUTO", "MANUAL"):
                raise _bad("MAINTENANCE must be AUTO or MANUAL")
            maintenance = mode
            i += 2
        elif kw == "STOPLIST":
            name = word(i + 1)
            if name not in STOPLISTS:
                raise TextIndexError(10700, f"DRG-10700: preference does not exist: {toks[i + 1] if i + 1 < len(toks) else ''}",
                                     "the embedded engine has CTXSYS.DEFAULT_STOPLIST and CTXSYS.EMPTY_STOPLIST")
            stoplist = name
            i += 2
        elif kw == "LEXER":
            name = word(i + 1)
            if name != "CTXSYS.DEFAULT_LEXER":
                raise _unsupported(f"LEXER {toks[i + 1] if i + 1 < len(toks) else ''}")
            i += 2
        elif kw == "MEMORY":
            if i + 1 >= len(toks):
                raise _bad("MEMORY needs a size")
            i += 2
        elif kw in ("POPULATE", "NOPOPULATE"):
            populate = kw == "POPULATE"
            i += 1
        elif kw in _KNOWN_UNSUPPORTED:
            raise _unsupported(kw)
        else:
            raise _bad(f"unknown PARAMETERS keyword {toks[i]}")
    if maintenance == "AUTO" and sync in ("ON COMMIT", "EVERY"):
        raise _bad(f"MAINTENANCE AUTO cannot be combined with SYNC ({sync})")
    if sync is None or (sync == "MANUAL" and maintenance == "AUTO"):
        mode = "MANUAL" if maintenance == "MANUAL" else "AUTO"
    else:
        mode = sync
    return IndexSettings(mode, interval, stoplist, populate)
