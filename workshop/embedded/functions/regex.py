"""REGEXP_LIKE / _REPLACE / _SUBSTR / _INSTR / _COUNT: Oracle POSIX ERE translated to Python ``re``.

Translation (Oracle Database SQL Language Reference, appendix "Oracle Regular Expression Support"):
- Operators ``* + ? {m,n} | ( ) . ^ $`` and the Perl-influenced ``\\d \\D \\w \\W \\s \\S \\A \\Z``,
  non-greedy quantifiers and back references ``\\1``-``\\9`` map one to one.
- A backslash before any other character quotes it (``'\\test'`` matches ``'test'``); inside a
  bracket expression the backslash is an ordinary character, as in POSIX.
- Bracket expressions support ranges, ``[:class:]`` (alpha, alnum, digit, lower, upper, space,
  blank, punct, cntrl, print, graph, xdigit; lower/upper cover ASCII and Latin-1 only),
  ``[=c=]`` (characters whose Unicode decomposition starts with c) and single-character ``[.c.]``.
- A quantifier with nothing to repeat is a literal character.
- Match parameters: i, c (last one wins), n (dot matches newline), m (multiline), x (ignore
  whitespace in the pattern).

Not supported, raising OracleFunctionError: multi-character collating elements ``[.ch.]``
(ORA-12731), ``(?`` constructs (Oracle has none; ORA-03001), unknown match parameters (ORA-12732).
Alternation is leftmost-first (backtracking, like Oracle's engine), not POSIX leftmost-longest.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .errors import OracleFunctionError, unsupported
from .values import as_int, as_text, text_out

_CLASS_MEMBERS = {
    "digit": r"0-9",
    "space": r"\s",
    "blank": r" \t",
    "punct": r"!-/:-@\[-`{-~",
    "cntrl": r"\x00-\x1f\x7f",
    "xdigit": r"0-9A-Fa-f",
    "lower": r"a-z\xdf-\xf6\xf8-\xff",
    "upper": r"A-Z\xc0-\xd6\xd8-\xde",
}
# Classes that cannot be written as members of a Python character set.
_CLASS_ATOMS = {
    "alpha": r"[^\W\d_]",
    "alnum": r"[^\W_]",
    "print": r"[^\x00-\x1f\x7f]",
    "graph": r"[^\s\x00-\x1f\x7f]",
}
_QUANTIFIERS = "*+?{"


def _equivalents(base: str) -> str:
    chars = {base}
    for code in range(0x250):
        ch = chr(code)
        if unicodedata.normalize("NFD", ch)[0] == base:
            chars.add(ch)
    return "".join(re.escape(c) for c in sorted(chars))


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """Translate the bracket expression opening at ``start``; return (python, index after ']')."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] == "^"
    if negate:
        i += 1
    members: list[str] = []
    atoms: list[str] = []
    first = True
    while True:
        if i >= len(pattern):
            raise OracleFunctionError(12726)
        ch = pattern[i]
        if ch == "]" and not first:
            i += 1
            break
        first = False
        if ch == "[" and i + 1 < len(pattern) and pattern[i + 1] in ":=.":
            kind = pattern[i + 1]
            end = pattern.find(kind + "]", i + 2)
            if end < 0:
                raise OracleFunctionError(12726)
            name = pattern[i + 2 : end]
            i = end + 2
            if kind == ":":
                if name in _CLASS_MEMBERS:
                    members.append(_CLASS_MEMBERS[name])
                elif name in _CLASS_ATOMS:
                    atoms.append(_CLASS_ATOMS[name])
                else:
                    raise OracleFunctionError(12729, f"[:{name}:]")
            elif kind == "=":
                if len(name) != 1:
                    raise OracleFunctionError(12730, f"[={name}=]")
                members.append(_equivalents(name))
            else:
                if len(name) != 1:
                    raise OracleFunctionError(12731, f"[.{name}.] (multi-character collating elements)")
                members.append(re.escape(name))
            continue
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            low, high = ch, pattern[i + 2]
            if low > high:
                raise OracleFunctionError(12728, f"{low}-{high}")
            members.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
            continue
        members.append(re.escape(ch))
        i += 1
    body = "".join(members)
    if not atoms:
        return (f"[^{body}]" if negate else f"[{body}]"), i
    options = ([f"[{body}]"] if body else []) + atoms
    alternation = "|".join(options)
    if negate:
        return f"(?:(?!{alternation})[\\s\\S])", i
    return f"(?:{alternation})", i


def translate_pattern(pattern: str, extended: bool = False) -> str:
    """Translate an Oracle regular expression to Python ``re`` syntax (see module docstring)."""
    out: list[str] = []
    i = 0
    can_repeat = False  # whether a quantifier here has something to repeat
    while i < len(pattern):
        ch = pattern[i]
        if extended and ch.isspace():
            i += 1
            continue
        if ch == "\\":
            if i + 1 >= len(pattern):
                out.append(r"\\")
                i += 1
            else:
                nxt = pattern[i + 1]
                if nxt in "dDwWsSAZ" or nxt in "123456789":
                    out.append("\\" + nxt)
                else:
                    out.append(re.escape(nxt))
                i += 2
            can_repeat = True
            continue
        if ch == "[":
            translated, i = _bracket(pattern, i)
            out.append(translated)
            can_repeat = True
            continue
        if ch == "(":
            if pattern.startswith("(?", i):
                raise unsupported("regular expression construct '(?'")
            out.append("(")
            can_repeat = False
            i += 1
            continue
        if ch in "|":
            out.append(ch)
            can_repeat = False
            i += 1
            continue
        if ch in _QUANTIFIERS:
            if not can_repeat:
                out.append(re.escape(ch))
                can_repeat = True
                i += 1
                continue
            if ch == "{":
                match = re.match(r"\{\d+(,\d*)?\}\??", pattern[i:])
                if not match:
                    out.append(r"\{")
                    i += 1
                    continue
                out.append(match.group(0))
                i += len(match.group(0))
                can_repeat = False
                continue
            out.append(ch)
            i += 1
            if i < len(pattern) and pattern[i] == "?":
                out.append("?")
                i += 1
            can_repeat = False
            continue
        if ch in "^":
            out.append(ch)
            can_repeat = False
            i += 1
            continue
        out.append(ch if ch in ".$)" else re.escape(ch))
        can_repeat = ch != "$"
        i += 1
    return "".join(out)


def _flags(match_param: object) -> tuple[int, bool]:
    text = as_text(match_param) or ""
    flags = 0
    extended = False
    for ch in text:
        if ch == "i":
            flags |= re.IGNORECASE
        elif ch == "c":
            flags &= ~re.IGNORECASE
        elif ch == "n":
            flags |= re.DOTALL
        elif ch == "m":
            flags |= re.MULTILINE
        elif ch == "x":
            extended = True
        else:
            raise OracleFunctionError(12732, repr(text))
    return flags, extended


_RE_ERRORS = (
    ("missing )", 12725),
    ("unbalanced parenthesis", 12725),
    ("unterminated character set", 12726),
    ("invalid group reference", 12727),
    ("bad character range", 12728),
)


@lru_cache(maxsize=512)
def _compile_cached(pattern: str, flags: int, extended: bool) -> re.Pattern[str]:
    translated = translate_pattern(pattern, extended)
    try:
        return re.compile(translated, flags)
    except re.error as exc:
        for fragment, code in _RE_ERRORS:
            if fragment in str(exc):
                raise OracleFunctionError(code, pattern) from exc
        raise OracleFunctionError(12725, f"{pattern}: {exc}") from exc


def compile_oracle_regex(pattern: str, match_param: object = None) -> re.Pattern[str]:
    """Compile an Oracle pattern with Oracle match parameters (cached)."""
    flags, extended = _flags(match_param)
    return _compile_cached(pattern, flags, extended)


def _position(value: object) -> int | None:
    pos = as_int(value)
    if pos is not None and pos < 1:
        raise OracleFunctionError(1428, str(pos))
    return pos


def _occurrence(value: object, minimum: int) -> int | None:
    nth = as_int(value)
    if nth is not None and nth < minimum:
        raise OracleFunctionError(1428, str(nth))
    return nth


def _nth_match(compiled: re.Pattern[str], text: str, pos: int, nth: int) -> re.Match[str] | None:
    for count, match in enumerate(compiled.finditer(text, pos - 1), start=1):
        if count == nth:
            return match
    return None


def regexp_like(source: object, pattern: object, match_param: object = None) -> int | None:
    """REGEXP_LIKE condition as 1/0 (NULL when source or pattern is NULL)."""
    text = as_text(source)
    regex = as_text(pattern)
    if text is None or regex is None:
        return None
    return 1 if compile_oracle_regex(regex, match_param).search(text) else 0


def _replacement(template: str):
    parts: list[str | int] = []
    literal: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt.isdigit() and nxt != "0":
                if literal:
                    parts.append("".join(literal))
                    literal = []
                parts.append(int(nxt))
                i += 2
                continue
            if nxt == "\\":
                literal.append("\\")
                i += 2
                continue
        literal.append(ch)
        i += 1
    if literal:
        parts.append("".join(literal))

    def expand(match: re.Match[str]) -> str:
        pieces = []
        for part in parts:
            if isinstance(part, int):
                group = match.group(part) if part <= (match.re.groups) else None
                pieces.append(group or "")
            else:
                pieces.append(part)
        return "".join(pieces)

    return expand


def regexp_replace(
    source: object,
    pattern: object,
    replace_string: object = None,
    position: object = 1,
    occurrence: object = 0,
    match_param: object = None,
) -> str | None:
    """REGEXP_REPLACE: occurrence 0 replaces every match; \\1-\\9 in the replacement are groups."""
    text = as_text(source)
    if text is None:
        return None
    regex = as_text(pattern)
    if regex is None:
        return text
    pos = _position(position)
    nth = _occurrence(occurrence, 0)
    if pos is None or nth is None:
        return None
    compiled = compile_oracle_regex(regex, match_param)
    expand = _replacement(as_text(replace_string) or "")
    pieces: list[str] = []
    done = 0
    for count, match in enumerate(compiled.finditer(text, pos - 1), start=1):
        if nth in (0, count):
            pieces.append(text[done : match.start()])
            pieces.append(expand(match))
            done = match.end()
            if nth:
                break
    pieces.append(text[done:])
    return text_out("".join(pieces))


def regexp_substr(
    source: object,
    pattern: object,
    position: object = 1,
    occurrence: object = 1,
    match_param: object = None,
    subexpr: object = 0,
) -> str | None:
    """REGEXP_SUBSTR: the nth match (or its subexpression), NULL when there is none."""
    text = as_text(source)
    regex = as_text(pattern)
    pos = _position(position)
    nth = _occurrence(occurrence, 1)
    group = _occurrence(subexpr, 0)
    if text is None or regex is None or pos is None or nth is None or group is None:
        return None
    compiled = compile_oracle_regex(regex, match_param)
    match = _nth_match(compiled, text, pos, nth)
    if match is None or group > compiled.groups:
        return None
    return text_out(match.group(group))


def regexp_instr(
    source: object,
    pattern: object,
    position: object = 1,
    occurrence: object = 1,
    return_opt: object = 0,
    match_param: object = None,
    subexpr: object = 0,
) -> int | None:
    """REGEXP_INSTR: 1-based start of the nth match (return_opt 1: position after its end), else 0."""
    text = as_text(source)
    regex = as_text(pattern)
    pos = _position(position)
    nth = _occurrence(occurrence, 1)
    after = _occurrence(return_opt, 0)
    group = _occurrence(subexpr, 0)
    if None in (text, regex, pos, nth, after, group):
        return None
    compiled = compile_oracle_regex(regex, match_param)
    match = _nth_match(compiled, text, pos, nth)
    if match is None or group > compiled.groups or match.start(group) < 0:
        return 0
    return (match.end(group) if after else match.start(group)) + 1


def regexp_count(source: object, pattern: object, position: object = 1, match_param: object = None) -> int | None:
    """REGEXP_COUNT: number of non-overlapping matches from position."""
    text = as_text(source)
    regex = as_text(pattern)
    pos = _position(position)
    if text is None or regex is None or pos is None:
        return None
    compiled = compile_oracle_regex(regex, match_param)
    return sum(1 for _ in compiled.finditer(text, pos - 1))
