"""Text-level helpers that respect string literals, quoted identifiers and comments.

Used before sqlglot sees a statement: to classify it, to strip comments, to peel off
`RETURNING ... INTO :binds` (which sqlglot drops), and to rewrite spellings it cannot parse.
"""
from __future__ import annotations

import re
from typing import Callable, Iterator

_Q_QUOTE_CLOSERS = {"[": "]", "{": "}", "(": ")", "<": ">"}


def segments(sql: str) -> Iterator[tuple[str, str]]:
    """Yield (kind, text) with kind in code | string | ident | comment, covering the whole input."""
    i, n, start = 0, len(sql), 0
    while i < n:
        c = sql[i]
        two = sql[i:i + 2]
        if two == "--" or two == "/*":
            if start < i:
                yield "code", sql[start:i]
            end = sql.find("\n", i) if two == "--" else sql.find("*/", i + 2)
            end = n if end < 0 else (end if two == "--" else end + 2)
            yield "comment", sql[i:end]
            i = start = end
            continue
        if c in "qQnN" and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] in "_$#")):
            j = i + 1 if c in "qQ" else (i + 2 if sql[i + 1:i + 2] in ("q", "Q") else -1)
            if j > 0 and sql[j:j + 1] == "'" and j + 1 < n:
                opener = sql[j + 1]
                closer = _Q_QUOTE_CLOSERS.get(opener, opener) + "'"
                end = sql.find(closer, j + 2)
                if end >= 0:
                    if start < i:
                        yield "code", sql[start:i]
                    yield "string", sql[i:end + 2]
                    i = start = end + 2
                    continue
        if c == "'" or c == '"':
            if start < i:
                yield "code", sql[start:i]
            j = i + 1
            while j < n:
                if sql[j] == c:
                    if sql[j + 1:j + 2] == c:
                        j += 2
                        continue
                    break
                j += 1
            yield ("string" if c == "'" else "ident"), sql[i:j + 1]
            i = start = j + 1
            continue
        i += 1
    if start < n:
        yield "code", sql[start:]


def map_code(sql: str, fn: Callable[[str], str]) -> str:
    """Apply `fn` to code outside strings, quoted identifiers and comments."""
    return "".join(fn(text) if kind == "code" else text for kind, text in segments(sql))


def statement_hint(sql: str) -> str | None:
    """The body of a statement's optimizer hint: a `/*+ ... */` or `--+ ...` comment directly after the statement's
    first keyword, the only place Oracle reads one (SQL Language Reference, "Comments" > "Using Hints"). Every other
    comment is a comment."""
    parts = iter(segments(sql))
    for kind, text in parts:
        if kind != "comment" and (kind != "code" or text.strip()):
            break
    else:
        return None
    if kind != "code" or not re.fullmatch(r"\s*[A-Za-z]+\s*", text):
        return None
    following = next(parts, None)
    if following is None or following[0] != "comment":
        return None
    comment = following[1]
    if comment.startswith("/*+"):
        return comment[3:-2]
    if comment.startswith("--+"):
        return comment[3:]
    return None


def strip_comments(sql: str) -> str:
    """Remove comments (optimizer hints included: they never change results)."""
    return "".join(" " if kind == "comment" else text for kind, text in segments(sql))


def code_mask(sql: str) -> str:
    """Same length as `sql`, with strings/identifiers/comments blanked: safe for regex searches."""
    out = []
    for kind, text in segments(sql):
        out.append(text if kind == "code" else (text[0] + " " * (len(text) - 2) + text[-1]
                                                 if len(text) >= 2 and kind != "comment" else " " * len(text)))
    return "".join(out)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$#]*")


def leading_words(sql: str, count: int = 4) -> list[str]:
    """The first keywords of a statement, upper-cased (comments ignored)."""
    masked = code_mask(sql)
    return [w.upper() for w in _WORD.findall(masked)[:count]]


_RETURNING_INTO = re.compile(r"(?is)\bRETURN(?:ING)?\b(?P<exprs>.+?)\bINTO\b(?P<binds>(?:\s*:\s*\w+\s*,?)+)\s*;?\s*$")


def split_returning_into(sql: str) -> tuple[str, list[str], list[str]] | None:
    """`... RETURNING a, b INTO :x, :y` -> (sql without the clause, ['a','b'] texts, ['x','y'])."""
    masked = code_mask(sql)
    m = _RETURNING_INTO.search(masked)
    if not m:
        return None
    exprs = split_top_level(sql[m.start("exprs"):m.end("exprs")])
    binds = [b.strip().lstrip(":").strip() for b in masked[m.start("binds"):m.end("binds")].split(",") if b.strip()]
    return sql[:m.start()].rstrip(), exprs, binds


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside parentheses, strings and identifiers."""
    masked = code_mask(text)
    parts, depth, last = [], 0, 0
    for i, ch in enumerate(masked):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[last:i].strip())
            last = i + 1
    parts.append(text[last:].strip())
    return [p for p in parts if p]


def matching_paren(sql: str, open_index: int) -> int:
    """Index of the parenthesis closing the one at `open_index` (strings/comments aware)."""
    masked = code_mask(sql)
    depth = 0
    for i in range(open_index, len(masked)):
        if masked[i] == "(":
            depth += 1
        elif masked[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced parentheses")


_BIND = re.compile(r"(?<![:\w]):\s*([A-Za-z_][\w$#]*|\d+)")


def bind_names(sql: str) -> list[str]:
    """Distinct bind placeholder names in order of first appearance (upper-cased unless quoted-like)."""
    seen: list[str] = []
    for m in _BIND.finditer(code_mask(sql)):
        name = m.group(1).upper()
        if name not in seen:
            seen.append(name)
    return seen
