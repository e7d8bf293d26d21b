"""BASIC_LEXER tokenisation and the supplied stoplists, shared by indexing and query parsing.

Default BASIC_LEXER behaviour reproduced here:

* tokens are runs of letters and digits (any script); every other character, `_` included, ends a
  token: "ORA-51805" -> ora, 51805; "agent_memory" -> agent, memory;
* mixed_case NO: tokens are lower-cased (Oracle stores them upper-case; only the case rule matters);
* numjoin '.' and numgroup ',' keep digit groups together: "3.14" and "1,000" are one token each
  (a letter next to the digits ends the number: "v26.1" -> v26, 1);
* every token, stopwords included, takes a word position, so phrases can skip over stopwords.

The English default stoplist is the one Oracle ships since 11g (114 words, `ctx/data/stoplist`);
CTXSYS.EMPTY_STOPLIST has none.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable

#: Oracle Text's English default stoplist (CTXSYS.DEFAULT_STOPLIST for an English database).
DEFAULT_STOPWORDS: frozenset[str] = frozenset("""
a all almost also although an and any are as at be because been both but by can could d did do does
either for from had has have having he her here hers him his how however i if in into is it its just ll
me might mr mrs ms my no non nor not of on one only onto or our ours s shall she should since so some
still such t than that the their them then there therefore these they this those though through thus
to too until ve very was we were what when where whether which while who whose why will with would yet
you your yours
""".split())

STOPLISTS: dict[str, frozenset[str]] = {
    "CTXSYS.DEFAULT_STOPLIST": DEFAULT_STOPWORDS,
    "CTXSYS.EMPTY_STOPLIST": frozenset(),
}

#: Gap in word positions between JSON scalar values, larger than NEAR's maximum span (100), so that
#: phrases and NEAR never join words of two different fields.
JSON_VALUE_GAP = 101

_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)+|[^\W_]+")
_QUERY_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)+|(?:[^\W_]|[%_])+")


def tokenize(text: str) -> list[str]:
    """Document text -> lower-cased tokens; the list index is the word position."""
    return _TOKEN.findall(text.lower())


def tokenize_query_word(text: str) -> list[str]:
    """A query word -> tokens, keeping the unescaped wildcards `%` and `_` inside tokens.

    The caller replaces escaped `%`/`_` by a space first, so escaped wildcards split like any
    punctuation.
    """
    return _QUERY_TOKEN.findall(text.lower())


def has_wildcard(token: str) -> bool:
    return "%" in token or "_" in token


def document_positions(value: object, is_json: bool) -> tuple[dict[str, list[int]], int] | None:
    """Tokens of one column value -> ({token: positions}, number of positions), or None for NULL.

    For a JSON document the string and number values of every field are indexed (member names are
    section names on Oracle, not words), each value starting JSON_VALUE_GAP positions after the
    previous one. Raises ValueError for text that is not JSON.
    """
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode("utf-8", errors="replace")
    if is_json:
        doc = json.loads(value) if isinstance(value, str) else value
        pieces = list(_json_scalars(doc))
    else:
        pieces = [str(value)]
    positions: dict[str, list[int]] = {}
    pos = 0
    for i, piece in enumerate(pieces):
        if i:
            pos += JSON_VALUE_GAP
        for token in tokenize(piece):
            positions.setdefault(token, []).append(pos)
            pos += 1
    return positions, pos


def _json_scalars(doc: object) -> Iterable[str]:
    if isinstance(doc, dict):
        for v in doc.values():
            yield from _json_scalars(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _json_scalars(v)
    elif isinstance(doc, bool) or doc is None:
        return
    elif isinstance(doc, (int, float, str)):
        yield str(doc)
