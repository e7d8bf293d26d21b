"""A small Oracle SQL tokenizer for graph DDL and GRAPH_TABLE bodies.

Graph patterns need character-level control over `-`, `<`, `>`, `[` and `]` (arrows are built
from them by the parser), which a general SQL tokenizer would fuse into JSON or comparison
operators. Strings, quoted identifiers, Q-quotes, bind variables and comments are recognised so
that nothing inside them is ever mistaken for syntax.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .errors import GraphError, MISSING_RIGHT_PARENTHESIS

IDENT = "ident"      # unquoted identifier or keyword
QIDENT = "qident"    # "quoted identifier"
STRING = "string"    # 'literal', N'literal', Q'[literal]'
NUMBER = "number"
BIND = "bind"        # :name or :1
OP = "op"            # punctuation and operators

_MULTI_OPS = ("||", "<=", ">=", "<>", "!=", "^=", "=>", ":=")
_Q_CLOSERS = {"[": "]", "{": "}", "(": ")", "<": ">"}
_IDENT_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$#")


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == IDENT else self.text

    def is_word(self, *words: str) -> bool:
        """True for an unquoted identifier equal (case-insensitively) to one of `words`."""
        return self.kind == IDENT and self.text.upper() in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == OP and self.text in ops


def tokenize(sql: str) -> list[Token]:
    """Split `sql` into tokens; comments and whitespace are dropped."""
    tokens: list[Token] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c.isspace():
            i += 1
            continue
        two = sql[i:i + 2]
        if two == "--":
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if two == "/*":
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c in "qQnN":
            prefix = _string_prefix(sql, i)
            if prefix is not None:
                end = _scan_string(sql, *prefix)
                tokens.append(Token(STRING, sql[i:end], i, end))
                i = end
                continue
        if c == "'":
            end = _scan_string(sql, i)
            tokens.append(Token(STRING, sql[i:end], i, end))
            i = end
            continue
        if c == '"':
            end = sql.find('"', i + 1)
            while end >= 0 and sql[end + 1:end + 2] == '"':
                end = sql.find('"', end + 2)
            if end < 0:
                raise GraphError(1740, "missing double quote in identifier")
            tokens.append(Token(QIDENT, sql[i:end + 1], i, end + 1))
            i = end + 1
            continue
        if c.isalpha() or c == "_":
            j = i + 1
            while j < n and sql[j] in _IDENT_CHARS:
                j += 1
            tokens.append(Token(IDENT, sql[i:j], i, j))
            i = j
            continue
        if c.isdigit() or (c == "." and sql[i + 1:i + 2].isdigit()):
            j = _scan_number(sql, i)
            tokens.append(Token(NUMBER, sql[i:j], i, j))
            i = j
            continue
        if c == ":" and i + 1 < n and (sql[i + 1].isalnum() or sql[i + 1] == "_") and sql[i + 1:i + 2] != "=":
            j = i + 1
            while j < n and sql[j] in _IDENT_CHARS:
                j += 1
            tokens.append(Token(BIND, sql[i:j], i, j))
            i = j
            continue
        if two in _MULTI_OPS:
            tokens.append(Token(OP, two, i, i + 2))
            i += 2
            continue
        tokens.append(Token(OP, c, i, i + 1))
        i += 1
    return tokens


def _string_prefix(sql: str, i: int) -> tuple[int, bool] | None:
    """For N'..', Q'..' and NQ'..' at `i`: (offset of the opening quote, whether it is a Q-quote)."""
    if i > 0 and sql[i - 1] in _IDENT_CHARS:
        return None
    j = i + 1 if sql[i] in "nN" else i
    if sql[j:j + 1] in ("q", "Q") and sql[j + 1:j + 2] == "'":
        return j + 1, True
    if j > i and sql[j:j + 1] == "'":
        return j, False
    return None


def _scan_string(sql: str, quote: int, q_quote: bool = False) -> int:
    """End offset of the string literal whose opening quote is at `quote`."""
    if q_quote:  # q'<opener> ... <closer>'
        opener = sql[quote + 1:quote + 2]
        if not opener:
            raise GraphError(1756, "quoted string not properly terminated")
        closer = _Q_CLOSERS.get(opener, opener) + "'"
        end = sql.find(closer, quote + 2)
        if end < 0:
            raise GraphError(1756, "quoted string not properly terminated")
        return end + 2
    k = quote + 1
    while True:
        k = sql.find("'", k)
        if k < 0:
            raise GraphError(1756, "quoted string not properly terminated")
        if sql[k + 1:k + 2] == "'":
            k += 2
            continue
        return k + 1


def _scan_number(sql: str, i: int) -> int:
    n = len(sql)
    j = i
    while j < n and sql[j].isdigit():
        j += 1
    if j < n and sql[j] == "." and sql[j + 1:j + 2] != ".":
        j += 1
        while j < n and sql[j].isdigit():
            j += 1
    if j < n and sql[j] in "eE" and (sql[j + 1:j + 2].isdigit() or
                                     (sql[j + 1:j + 2] in "+-" and sql[j + 2:j + 3].isdigit())):
        j += 2
        while j < n and sql[j].isdigit():
            j += 1
    if j < n and sql[j] in "fFdD" and not (j + 1 < n and sql[j + 1] in _IDENT_CHARS):
        j += 1
    return j


def identifier_name(token: Token) -> str:
    """Oracle name resolution: unquoted identifiers upper-case, quoted ones kept exactly."""
    if token.kind == QIDENT:
        return token.text[1:-1].replace('""', '"')
    return token.text.upper()


def quote_identifier(name: str) -> str:
    """Double-quote a stored name so both Oracle and SQLite read it back exactly."""
    return '"' + name.replace('"', '""') + '"'


def matching_close(tokens: list[Token], open_index: int) -> int:
    """Index of the token closing the bracket at `open_index` (any of (), [], {} nest)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for k in range(open_index, len(tokens)):
        t = tokens[k]
        if t.kind != OP:
            continue
        if t.text in pairs:
            stack.append(pairs[t.text])
        elif t.text in (")", "]", "}"):
            if not stack or stack[-1] != t.text:
                break
            stack.pop()
            if not stack:
                return k
    raise GraphError(MISSING_RIGHT_PARENTHESIS, "missing right parenthesis")


def render(tokens: Iterable[Token | str]) -> str:
    """Join tokens (or already rendered SQL strings) back into SQL text.

    A space separates two pieces only where the source had whitespace or a comment, or where
    a piece was substituted; this keeps `a.b`, `f(x)` and `:bind` intact.
    """
    out: list[str] = []
    prev_end: int | None = None
    for piece in tokens:
        if isinstance(piece, Token):
            if out and (prev_end is None or piece.start != prev_end):
                out.append(" ")
            out.append(piece.text)
            prev_end = piece.end
        else:
            if out:
                out.append(" ")
            out.append(piece)
            prev_end = None
    return "".join(out)
