"""Oracle SQL/JSON path expressions, compiled once into Python closures.

Why our own: SQLite's JSON1 paths have no filters, PASSING variables or lax/strict modes,
and langchain-oracledb filters documents with paths such as
``$.kind?(@ in ($val0,$val1))``. The semantics follow the Oracle AI Database 26ai JSON
Developer's Guide and the SQL/JSON standard it implements:

- ``lax`` (default) / ``strict`` mode prefix. Lax mode unwraps an array when an object step,
  a filter or an item method meets it, and wraps a non-array as ``[x]`` for array steps;
  missing fields and out-of-range indexes select nothing. Strict mode raises
  :class:`JsonDataError` for those structural mismatches instead.
- Steps: ``.name``, ``."quoted name"``, ``.*``, ``..name`` (descendants), ``[n]``,
  ``[n to m]``, ``[last]``, ``[last-1]``, ``[0, 2 to 4]``, ``[*]``, ``?( filter )`` and
  item methods (``.size()``, ``.type()``, ``.number()`` ...).
- Filters: ``@`` / ``$`` / ``$var`` operands with steps, string/number/true/false/null
  literals, ``== != <> < <= > >=``, ``&&``, ``||``, ``!``, parentheses, ``exists(...)``,
  ``in (v1, v2)``, ``starts with``, ``has substring``, ``like``, ``like_regex``,
  ``eq_regex`` (``flag "i"`` etc.). Conditions are three-valued: a comparison that cannot be
  made (incompatible types, a failing item method) is *unknown*, which a filter treats as
  false, and ``!unknown`` stays unknown.
- Comparison operands are sequences; in lax mode arrays in them are unwrapped, and the
  comparison is true when any pair compares true. Values of different JSON types do not
  compare (unknown), except that a string PASSING variable (SQL VARCHAR2) takes the type
  of the other operand, and ISO 8601 strings compare with dates from item methods.

Not supported (each raises :class:`JsonPathError` naming it): arithmetic in filters,
item methods with arguments, ``like ... escape``.
"""
from __future__ import annotations

import datetime as dt
import decimal
import functools
import json
import math
import operator
import re
from typing import Any, Callable

from workshop.embedded.errors import EngineError

__all__ = [
    "JsonError", "JsonPathError", "JsonPassingError", "JsonDataError", "JsonPath",
    "compile_path", "compare_values", "SqlText", "json_type_name", "render_number", "to_number",
    "parse_datetime",
    "ITEM_METHODS",
]


# ----------------------------------------------------------------------------- errors
class JsonError(EngineError):
    """An ORA- error raised by the SQL/JSON layer; ``.code`` is the ORA number."""


class JsonPathError(JsonError, ValueError):
    """ORA-40597: the path text does not parse. Raised at compile time, never swallowed
    by ON ERROR handlers (Oracle reports it when the statement is compiled)."""

    def __init__(self, path: str, detail: str, position: int):
        super().__init__(40597, f"JSON path expression syntax error ('{path}')\n{detail}\nat position {position}")
        self.path = path
        self.detail = detail
        self.position = position


class JsonPassingError(JsonError):
    """ORA-40656: the path uses ``$name`` but PASSING has no such variable."""


class JsonDataError(JsonError):
    """A runtime error about the data (bad JSON text, strict-mode mismatch, failed item
    method, too many values...). SQL/JSON functions route these through ON ERROR."""


# ----------------------------------------------------------------------------- value helpers
_NUMBER_TYPES = (int, float, decimal.Decimal)


def json_type_name(value: Any) -> str:
    """The name Oracle's ``type()`` item method reports for a JSON value."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, _NUMBER_TYPES):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dt.datetime):
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary"
    raise JsonDataError(40441, f"JSON syntax error: {type(value).__name__} is not a JSON value")


def render_number(value: int | float | decimal.Decimal) -> str:
    """Text of a number the way Oracle renders a JSON number: ``1`` not ``1.0``, no
    exponent for ordinary magnitudes."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise JsonDataError(1722, f"invalid number: {value!r} is not a JSON number")
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        value = decimal.Decimal(repr(value))
    if not value.is_finite():
        raise JsonDataError(1722, f"invalid number: {value!r} is not a JSON number")
    value = value.normalize()
    exponent = value.as_tuple().exponent
    if -30 <= exponent <= 30:  # plain digits for everyday magnitudes
        return format(value, "f")
    return format(value, "E").replace("E+", "E")


_NUMERIC_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def to_number(value: Any) -> int | float | decimal.Decimal:
    """Number from a JSON number or numeric string (``number()`` / RETURNING NUMBER)."""
    if value is True or value is False:
        raise JsonDataError(40799, "cannot convert Boolean value to number")
    if isinstance(value, _NUMBER_TYPES):
        return value
    if isinstance(value, str) and _NUMERIC_TEXT.fullmatch(value):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        return float(text)
    raise JsonDataError(1722, f"invalid number: cannot convert {_short(value)} to a number")


def parse_datetime(value: Any) -> dt.datetime:
    """ISO 8601 text (or a date/datetime) as a datetime; ``Z`` means UTC."""
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        text = value.strip()
        try:
            return dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            pass
    raise JsonDataError(1861, f"literal does not match format string: {_short(value)} is not an ISO 8601 date/time")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ----------------------------------------------------------------------------- comparison
_UNKNOWN = None  # third truth value


def _cmp_kind(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if value is True or value is False:
        return "boolean"
    if isinstance(value, _NUMBER_TYPES):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, (dt.date, dt.datetime)):
        return "datetime"
    return "other"


def _as_comparable_datetime(value: Any) -> dt.datetime:
    d = parse_datetime(value)
    return d.replace(tzinfo=dt.timezone.utc) if d.tzinfo is None else d


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _order(op: str, a: Any, b: Any) -> bool:
    return _OPERATORS[op](a, b)


class SqlText(str):
    """A VARCHAR2 value passed in through PASSING. Unlike a JSON string it takes the type
    of the value it is compared with (Oracle documents ``@.UPCCode == $v1`` with
    ``PASSING '85391628927' AS "v1"`` matching the JSON number)."""

    __slots__ = ()


_NOT_CONVERTIBLE = object()


def _coerce_text(text: str, other: Any) -> Any:
    if isinstance(other, str) or other is None:
        return text
    if other is True or other is False:
        low = text.strip().lower()
        return low == "true" if low in ("true", "false") else _NOT_CONVERTIBLE
    if isinstance(other, _NUMBER_TYPES):
        try:
            return to_number(text)
        except JsonDataError:
            return _NOT_CONVERTIBLE
    return text  # dates: handled as text below; objects/arrays: not comparable anyway


def compare_values(op: str, a: Any, b: Any) -> bool | None:
    """One SQL/JSON comparison: True, False, or None (unknown: not comparable)."""
    ta, tb = type(a), type(b)
    if ta is tb and (ta is str or ta is int or ta is float):
        return _order(op, a, b)
    return _compare_mixed(op, a, b, ta, tb)


def _comparator(op: str) -> Callable[[Any, Any], "bool | None"]:
    """compare_values specialised for one operator, with the common same-type case inline."""
    fn = _OPERATORS[op]

    def cmp(a: Any, b: Any) -> bool | None:
        ta, tb = type(a), type(b)
        if ta is tb and (ta is str or ta is int or ta is float):
            return fn(a, b)
        if (ta is str and tb is SqlText) or (ta is SqlText and tb is str):
            return fn(a, b)
        return _compare_mixed(op, a, b, ta, tb)
    return cmp


def _compare_mixed(op: str, a: Any, b: Any, ta: type, tb: type) -> bool | None:
    if tb is SqlText and ta is not SqlText:
        b = _coerce_text(b, a)
    elif ta is SqlText and tb is not SqlText:
        a = _coerce_text(a, b)
    if a is _NOT_CONVERTIBLE or b is _NOT_CONVERTIBLE:
        return _UNKNOWN
    ka, kb = _cmp_kind(a), _cmp_kind(b)
    if ka == "null" or kb == "null":
        if op == "==":
            return ka == kb
        if op == "!=":
            return ka != kb
        return _UNKNOWN
    if ka == kb and ka in ("string", "number", "boolean"):
        return _order(op, a, b)
    if "datetime" in (ka, kb) and {ka, kb} <= {"datetime", "string"}:
        try:
            return _order(op, _as_comparable_datetime(a), _as_comparable_datetime(b))
        except (JsonDataError, TypeError):
            return _UNKNOWN
    return _UNKNOWN


#: like_regex / eq_regex flag letters (Oracle REGEXP_LIKE match parameters) -> Python flags
_REGEX_FLAGS = {"i": re.IGNORECASE, "c": 0, "m": re.MULTILINE, "n": re.DOTALL, "s": re.DOTALL, "x": re.VERBOSE}


@functools.lru_cache(maxsize=256)
def _regex(pattern: str, flags: str, full: bool) -> re.Pattern:
    re_flags = 0
    for f in flags:
        if f == "c":
            re_flags &= ~re.IGNORECASE
        else:
            re_flags |= _REGEX_FLAGS[f]
    try:
        return re.compile(pattern, re_flags)
    except re.error as exc:
        raise JsonDataError(12726, f"unmatched bracket or invalid regular expression {pattern!r}: {exc}") from None


@functools.lru_cache(maxsize=256)
def _like_regex(pattern: str) -> re.Pattern:
    out = []
    for ch in pattern:
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


def _string_predicate(kind: str, flags: str) -> Callable[[Any, Any], bool | None]:
    def pred(a: Any, b: Any) -> bool | None:
        if not isinstance(a, str) or not isinstance(b, str):
            return _UNKNOWN
        if kind == "starts with":
            return a.startswith(b)
        if kind == "has substring":
            return b in a
        if kind == "like":
            return _like_regex(b).fullmatch(a) is not None
        if kind == "like_regex":
            return _regex(b, flags, False).search(a) is not None
        return _regex(b, flags, True).fullmatch(a) is not None  # eq_regex
    return pred


# ----------------------------------------------------------------------------- item methods
def _unwrap_all(items: list) -> list:
    for it in items:
        if isinstance(it, list):
            break
    else:
        return items
    out: list = []
    for it in items:
        if isinstance(it, list):
            out.extend(it)
        else:
            out.append(it)
    return out


def _need(kind: str, value: Any, method: str) -> Any:
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "number" and isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool):
        return value
    if kind == "boolean" and (value is True or value is False):
        return value
    if kind == "number":
        raise JsonDataError(1722, f"invalid number: item method {method}() needs a JSON number, found {_short(value)}")
    if kind == "boolean":
        raise JsonDataError(40786, f"item method {method}() needs a JSON boolean, found {_short(value)}")
    raise JsonDataError(40462, f"JSON path evaluated to no value: item method {method}() needs a JSON "
                               f"string, found a JSON {json_type_name(value)}")


def _m_string(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, _NUMBER_TYPES):
        return render_number(v)
    if isinstance(v, dt.datetime):
        return v.isoformat()
    if isinstance(v, dt.date):
        return v.isoformat()
    return _need("string", v, "string")


def _m_boolean(v: Any) -> Any:
    if v is True or v is False or v is None:
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    raise JsonDataError(40786, f"JSON path expression evaluated to a non-Boolean value: {_short(v)}")


def _m_number(v: Any) -> Any:
    return None if v is None else to_number(v)


def _m_date(v: Any) -> Any:
    return None if v is None else parse_datetime(v).date()


def _m_timestamp(v: Any) -> Any:
    return None if v is None else parse_datetime(v)


def _numeric(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def method(v: Any) -> Any:
        return None if v is None else fn(to_number(v))
    return method


def _mean(values: list) -> Any:
    m = sum(values) / len(values)
    return int(m) if isinstance(m, float) and m.is_integer() else m


def _aggregate(kind: str, name: str, fn: Callable[[list], Any]) -> Callable[[list], list]:
    """An aggregate method: ``fn`` over the non-null targeted values (arrays unwrapped)."""
    def method(items: list) -> list:
        values = [v for v in _unwrap_all(items) if v is not None]
        values = [to_number(v) for v in values] if kind == "number" else [_need("string", v, name) for v in values]
        return [fn(values)] if values else []
    return method


#: per-item methods: name -> (function, unwraps arrays in lax mode)
ITEM_METHODS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    "size": (lambda v: len(v) if isinstance(v, list) else 1, False),
    "type": (json_type_name, False),
    "number": (_m_number, True),
    "numberOnly": (lambda v: v if v is None else _need("number", v, "numberOnly"), True),
    "string": (_m_string, True),
    "stringOnly": (lambda v: v if v is None else _need("string", v, "stringOnly"), True),
    "boolean": (_m_boolean, True),
    "booleanOnly": (lambda v: v if v is None else _need("boolean", v, "booleanOnly"), True),
    "length": (lambda v: v if v is None else len(_need("string", v, "length")), True),
    "upper": (lambda v: v if v is None else _need("string", v, "upper").upper(), True),
    "lower": (lambda v: v if v is None else _need("string", v, "lower").lower(), True),
    "date": (_m_date, True),
    "timestamp": (_m_timestamp, True),
    "abs": (_numeric(abs), True),
    "ceiling": (_numeric(math.ceil), True),
    "floor": (_numeric(math.floor), True),
    "double": (_numeric(float), True),
    "float": (_numeric(float), True),
}

#: methods over the whole sequence of targeted values (arrays unwrapped)
AGGREGATE_METHODS: dict[str, Callable[[list], list]] = {
    "count": lambda items: [len(_unwrap_all(items))],
    "sum": _aggregate("number", "sum", sum),
    "avg": _aggregate("number", "avg", _mean),
    "minNumber": _aggregate("number", "minNumber", min),
    "maxNumber": _aggregate("number", "maxNumber", max),
    "minString": _aggregate("string", "minString", min),
    "maxString": _aggregate("string", "maxString", max),
}

_METHOD_NAMES = {name.lower(): name for name in (*ITEM_METHODS, *AGGREGATE_METHODS)}


# ----------------------------------------------------------------------------- lexer
_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<var>\$[^\W\d]\w*)
  | (?P<op>==|!=|<>|<=|>=|&&|\|\||\.\.|[$@.\[\](),?*<>!-])
  | (?P<word>[^\W\d]\w*)
""", re.VERBOSE)


class _Tok:
    __slots__ = ("kind", "value", "pos")

    def __init__(self, kind: str, value: Any, pos: int):
        self.kind, self.value, self.pos = kind, value, pos

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{self.kind}:{self.value!r}@{self.pos}"


def _lex(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise JsonPathError(text, f"unexpected character {text[pos]!r}", pos + 1)
        kind = m.lastgroup
        raw = m.group()
        if kind == "str":
            try:
                toks.append(_Tok("str", json.loads(raw), pos + 1))
            except ValueError:
                raise JsonPathError(text, f"invalid string literal {raw}", pos + 1) from None
        elif kind == "num":
            toks.append(_Tok("num", int(raw) if raw.isdigit() else float(raw), pos + 1))
        elif kind == "var":
            toks.append(_Tok("var", raw[1:], pos + 1))
        elif kind == "op":
            toks.append(_Tok(raw, raw, pos + 1))
        elif kind == "word":
            toks.append(_Tok("word", raw, pos + 1))
        pos = m.end()
    toks.append(_Tok("eof", None, len(text) + 1))
    return toks


# ----------------------------------------------------------------------------- compiled form
class _Ctx:
    __slots__ = ("root", "vars")

    def __init__(self, root: Any, vars_: dict[str, Any]):
        self.root = root
        self.vars = vars_


Step = Callable[[list, _Ctx], list]
Pred = Callable[[Any, _Ctx], "bool | None"]
Operand = Callable[[Any, _Ctx], list]


def _run_steps(steps: tuple[Step, ...], items: list, ctx: _Ctx) -> list:
    for step in steps:
        if not items:
            return items
        items = step(items, ctx)
    return items


def _structural(detail: str) -> JsonDataError:
    return JsonDataError(40462, f"JSON path evaluated to no value (strict mode: {detail})")


def _member_step(name: str, lax: bool) -> Step:
    if lax:
        def step(items: list, ctx: _Ctx) -> list:
            out = []
            for it in items:
                if isinstance(it, dict):
                    if name in it:
                        out.append(it[name])
                elif isinstance(it, list):
                    for x in it:
                        if isinstance(x, dict) and name in x:
                            out.append(x[name])
            return out
    else:
        def step(items: list, ctx: _Ctx) -> list:
            out = []
            for it in items:
                if not isinstance(it, dict):
                    raise _structural(f"field '{name}' requested from a JSON {json_type_name(it)}")
                if name not in it:
                    raise _structural(f"missing field '{name}'")
                out.append(it[name])
            return out
    return step


def _wildcard_member_step(lax: bool) -> Step:
    def step(items: list, ctx: _Ctx) -> list:
        out: list = []
        for it in items:
            if isinstance(it, dict):
                out.extend(it.values())
            elif lax and isinstance(it, list):
                for x in it:
                    if isinstance(x, dict):
                        out.extend(x.values())
            elif not lax:
                raise _structural(f"'.*' applied to a JSON {json_type_name(it)}")
        return out
    return step


def _descendant_step(name: str | None) -> Step:
    def walk(value: Any, out: list) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                if name is None or key == name:
                    out.append(child)
                walk(child, out)
        elif isinstance(value, list):
            for child in value:
                walk(child, out)

    def step(items: list, ctx: _Ctx) -> list:
        out: list = []
        for it in items:
            walk(it, out)
        return out
    return step


def _array_step(selectors: list[tuple[tuple[str, int], tuple[str, int]]] | None, lax: bool) -> Step:
    def resolve(bound: tuple[str, int], n: int) -> int:
        kind, k = bound
        return k if kind == "index" else n - 1 - k

    def step(items: list, ctx: _Ctx) -> list:
        out: list = []
        for it in items:
            if isinstance(it, list):
                arr = it
            elif lax:
                arr = [it]
            else:
                raise _structural(f"array step applied to a JSON {json_type_name(it)}")
            if selectors is None:
                out.extend(arr)
                continue
            n = len(arr)
            for lo_b, hi_b in selectors:
                lo, hi = resolve(lo_b, n), resolve(hi_b, n)
                if not lax and (lo < 0 or hi >= n or lo > hi):
                    raise _structural(f"array index out of range for an array of {n} elements")
                for i in range(max(lo, 0), min(hi, n - 1) + 1):
                    out.append(arr[i])
        return out
    return step


def _filter_step(pred: Pred, lax: bool) -> Step:
    def step(items: list, ctx: _Ctx) -> list:
        out = []
        for it in items:
            if lax and isinstance(it, list):
                for x in it:
                    if pred(x, ctx) is True:
                        out.append(x)
            elif pred(it, ctx) is True:
                out.append(it)
        return out
    return step


def _method_step(name: str, lax: bool) -> Step:
    if name in AGGREGATE_METHODS:
        agg = AGGREGATE_METHODS[name]

        def step(items: list, ctx: _Ctx) -> list:
            return agg(items)
        return step
    fn, unwraps = ITEM_METHODS[name]
    unwrap = unwraps and lax

    def step(items: list, ctx: _Ctx) -> list:
        out = []
        for it in items:
            if unwrap and isinstance(it, list):
                out.extend(fn(x) for x in it)
            else:
                out.append(fn(it))
        return out
    return step


# ----------------------------------------------------------------------------- parser
_KEYWORD_OPS = ("in", "starts", "has", "like", "like_regex", "eq_regex")


class _Parser:
    """Recursive descent over the token list, emitting closures directly."""

    def __init__(self, text: str):
        self.text = text
        self.toks = _lex(text)
        self.i = 0
        self.lax = True
        self.variables: set[str] = set()

    # -- token helpers
    def peek(self, k: int = 0) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def error(self, detail: str, tok: _Tok | None = None) -> JsonPathError:
        tok = tok or self.peek()
        return JsonPathError(self.text, detail, tok.pos)

    def expect(self, kind: str, what: str | None = None) -> _Tok:
        tok = self.peek()
        if tok.kind != kind:
            raise self.error(f"expected {what or repr(kind)} but found {self._describe(tok)}")
        return self.take()

    def expect_word(self, word: str) -> None:
        tok = self.peek()
        if tok.kind != "word" or tok.value.lower() != word:
            raise self.error(f"expected '{word}' but found {self._describe(tok)}")
        self.take()

    @staticmethod
    def _describe(tok: _Tok) -> str:
        return "end of path" if tok.kind == "eof" else repr(tok.value if tok.kind != "str" else f'"{tok.value}"')

    # -- grammar
    def parse(self) -> tuple[Step, ...]:
        tok = self.peek()
        if tok.kind == "word" and tok.value.lower() in ("lax", "strict"):
            self.lax = tok.value.lower() == "lax"
            self.take()
        if self.peek().kind == "var":
            raise self.error("a path must start with '$' (the context item), not a variable")
        self.expect("$", "'$'")
        steps = self.steps()
        if self.peek().kind != "eof":
            raise self.error(f"unexpected {self._describe(self.peek())} after the end of the path")
        return steps

    def steps(self) -> tuple[Step, ...]:
        out: list[Step] = []
        lax = self.lax
        while True:
            tok = self.peek()
            if tok.kind == ".":
                self.take()
                out.append(self.dot_step())
            elif tok.kind == "..":
                self.take()
                nxt = self.take()
                if nxt.kind == "word":
                    out.append(_descendant_step(nxt.value))
                elif nxt.kind == "str":
                    out.append(_descendant_step(nxt.value))
                elif nxt.kind == "*":
                    out.append(_descendant_step(None))
                else:
                    raise self.error("expected a field name after '..'", nxt)
            elif tok.kind == "[":
                self.take()
                out.append(_array_step(self.array_selectors(), lax))
            elif tok.kind == "?":
                self.take()
                self.expect("(", "'(' after '?'")
                pred = self.cond()
                self.expect(")", "')' closing the filter")
                out.append(_filter_step(pred, lax))
            else:
                return tuple(out)

    def dot_step(self) -> Step:
        tok = self.take()
        if tok.kind == "*":
            return _wildcard_member_step(self.lax)
        if tok.kind == "str":
            return _member_step(tok.value, self.lax)
        if tok.kind == "word":
            if self.peek().kind == "(":
                return self.method(tok)
            return _member_step(tok.value, self.lax)
        raise self.error("expected a field name, '*' or an item method after '.'", tok)

    def method(self, tok: _Tok) -> Step:
        name = _METHOD_NAMES.get(tok.value.lower())
        if name is None:
            raise self.error(f"unsupported item method '{tok.value}()'", tok)
        self.expect("(")
        if self.peek().kind != ")":
            raise self.error(f"item method '{name}()' with arguments is not supported", self.peek())
        self.take()
        return _method_step(name, self.lax)

    def array_selectors(self) -> list | None:
        if self.peek().kind == "*":
            self.take()
            self.expect("]", "']'")
            return None
        sels = []
        while True:
            lo = self.array_index()
            hi = lo
            if self.peek().kind == "word" and self.peek().value.lower() == "to":
                self.take()
                hi = self.array_index()
            sels.append((lo, hi))
            tok = self.take()
            if tok.kind == "]":
                return sels
            if tok.kind != ",":
                raise self.error("expected ',' or ']' in an array step", tok)

    def array_index(self) -> tuple[str, int]:
        tok = self.take()
        if tok.kind == "num" and isinstance(tok.value, int):
            return ("index", tok.value)
        if tok.kind == "word" and tok.value.lower() == "last":
            if self.peek().kind == "-":
                self.take()
                k = self.take()
                if k.kind != "num" or not isinstance(k.value, int):
                    raise self.error("expected a whole number after 'last -'", k)
                return ("last", k.value)
            return ("last", 0)
        if tok.kind == "-":
            raise self.error("array index must not be negative", tok)
        raise self.error("expected an array index, 'last' or '*'", tok)

    # -- filter conditions (three-valued)
    def cond(self) -> Pred:
        left = self.cond_and()
        while self.peek().kind == "||":
            self.take()
            left = _or(left, self.cond_and())
        return left

    def cond_and(self) -> Pred:
        left = self.cond_not()
        while self.peek().kind == "&&":
            self.take()
            left = _and(left, self.cond_not())
        return left

    def cond_not(self) -> Pred:
        tok = self.peek()
        if tok.kind == "!":
            self.take()
            return _not(self.cond_not())
        if tok.kind == "(":
            self.take()
            inner = self.cond()
            self.expect(")", "')'")
            return inner
        if tok.kind == "word" and tok.value.lower() == "exists" and self.peek(1).kind == "(":
            self.take()
            self.take()
            operand = self.operand(path_only=True)
            self.expect(")", "')' closing exists(")
            return _exists(operand)
        return self.comparison()

    def comparison(self) -> Pred:
        left = self.operand()
        tok = self.peek()
        lax = self.lax
        if tok.kind in ("==", "!=", "<>", "<", "<=", ">", ">="):
            self.take()
            op = "!=" if tok.kind == "<>" else tok.kind
            right = self.operand()
            return _compare(left, right, _comparator(op), lax)
        if tok.kind == "word":
            word = tok.value.lower()
            if word == "in":
                self.take()
                self.expect("(", "'(' after 'in'")
                values = [self.operand(scalar_only=True)]
                while self.peek().kind == ",":
                    self.take()
                    values.append(self.operand(scalar_only=True))
                self.expect(")", "')' closing the 'in' list")
                return _in_list(left, tuple(values), lax)
            if word in ("starts", "has"):
                self.take()
                self.expect_word("with" if word == "starts" else "substring")
                kind = "starts with" if word == "starts" else "has substring"
                return _compare(left, self.operand(), _string_predicate(kind, ""), lax)
            if word in ("like", "like_regex", "eq_regex"):
                self.take()
                right = self.operand()
                flags = ""
                if self.peek().kind == "word" and self.peek().value.lower() == "flag":
                    self.take()
                    flag_tok = self.expect("str", "a flag string")
                    flags = flag_tok.value
                    bad = [f for f in flags if f not in _REGEX_FLAGS]
                    if bad or word == "like":
                        raise self.error(f"invalid flag {flag_tok.value!r} for {word}", flag_tok)
                elif word == "like" and self.peek().kind == "word" and self.peek().value.lower() == "escape":
                    raise self.error("'like ... escape' is not supported")
                return _compare(left, right, _string_predicate(word, flags), lax)
        if tok.kind in ("+", "*") or (tok.kind == "-"):
            raise self.error("arithmetic in filter expressions is not supported")
        raise self.error(f"expected a comparison operator, 'in', 'starts with', 'has substring', 'like', "
                         f"'like_regex' or 'eq_regex' but found {self._describe(tok)}")

    def operand(self, path_only: bool = False, scalar_only: bool = False) -> Operand:
        tok = self.take()
        if tok.kind == "@" and not scalar_only:
            steps = self.steps()
            if not steps:
                return _at_operand
            return _path_operand(steps, relative=True)
        if tok.kind == "$" and not scalar_only:
            return _path_operand(self.steps(), relative=False)
        if tok.kind == "var":
            self.variables.add(tok.value)
            steps = () if scalar_only else self.steps()
            return _var_operand(tok.value, steps)
        if path_only:
            raise self.error("exists() needs a path starting with '@' or '$'", tok)
        if tok.kind in ("str", "num"):
            return _literal(tok.value)
        if tok.kind == "-" and self.peek().kind == "num":
            return _literal(-self.take().value)
        if tok.kind == "word" and tok.value.lower() in ("true", "false", "null"):
            return _literal({"true": True, "false": False, "null": None}[tok.value.lower()])
        raise self.error(f"expected {'a literal or $variable' if scalar_only else 'an operand'} "
                         f"but found {self._describe(tok)}", tok)


# -- condition closures
def _or(a: Pred, b: Pred) -> Pred:
    def pred(at: Any, ctx: _Ctx) -> bool | None:
        x = a(at, ctx)
        if x is True:
            return True
        y = b(at, ctx)
        if y is True:
            return True
        return None if x is None or y is None else False
    return pred


def _and(a: Pred, b: Pred) -> Pred:
    def pred(at: Any, ctx: _Ctx) -> bool | None:
        x = a(at, ctx)
        if x is False:
            return False
        y = b(at, ctx)
        if y is False:
            return False
        return None if x is None or y is None else True
    return pred


def _not(a: Pred) -> Pred:
    def pred(at: Any, ctx: _Ctx) -> bool | None:
        x = a(at, ctx)
        return None if x is None else not x
    return pred


def _exists(operand: Operand) -> Pred:
    def pred(at: Any, ctx: _Ctx) -> bool | None:
        try:
            return bool(operand(at, ctx))
        except JsonDataError:
            return None
    return pred


def _at_operand(at: Any, ctx: _Ctx) -> list:
    return [at]


def _path_operand(steps: tuple[Step, ...], relative: bool) -> Operand:
    if relative:
        def op(at: Any, ctx: _Ctx) -> list:
            return _run_steps(steps, [at], ctx)
    else:
        def op(at: Any, ctx: _Ctx) -> list:
            return _run_steps(steps, [ctx.root], ctx)
    return op


def _var_operand(name: str, steps: tuple[Step, ...]) -> Operand:
    if steps:
        def op(at: Any, ctx: _Ctx) -> list:
            return _run_steps(steps, [ctx.vars[name]], ctx)
    else:
        last = [(None, None)]  # (raw str, its SqlText): binds repeat row after row

        def op(at: Any, ctx: _Ctx) -> list:
            value = ctx.vars[name]
            if type(value) is str:
                raw, wrapped = last[0]
                if raw is not value:
                    wrapped = SqlText(value)
                    last[0] = (value, wrapped)
                return [wrapped]
            return [value]
    return op


def _literal(value: Any) -> Operand:
    seq = [value]

    def op(at: Any, ctx: _Ctx) -> list:
        return seq
    return op


def _compare(left: Operand, right: Operand, test: Callable[[Any, Any], bool | None], lax: bool) -> Pred:
    def pred(at: Any, ctx: _Ctx) -> bool | None:
        try:
            lhs = left(at, ctx)
            rhs = right(at, ctx)
        except JsonDataError:
            return None
        if lax:
            lhs = _unwrap_all(lhs)
            rhs = _unwrap_all(rhs)
        unknown = False
        found = False
        for a in lhs:
            for b in rhs:
                try:
                    r = test(a, b)
                except JsonDataError:
                    r = None
                if r is True:
                    if lax:
                        return True
                    found = True
                elif r is None:
                    if not lax:
                        return None
                    unknown = True
        if found:
            return True
        return None if unknown else False
    return pred


def _in_list(left: Operand, values: tuple[Operand, ...], lax: bool) -> Pred:
    eq = _comparator("==")

    def pred(at: Any, ctx: _Ctx) -> bool | None:
        try:
            lhs = left(at, ctx)
        except JsonDataError:
            return None
        if lax:
            lhs = _unwrap_all(lhs)
        candidates = [v for op in values for v in op(at, ctx)]
        if lax:
            candidates = _unwrap_all(candidates)
        unknown = False
        for a in lhs:
            for b in candidates:
                r = eq(a, b)
                if r is True:
                    return True
                if r is None:
                    unknown = True
        return None if unknown else False
    return pred


# ----------------------------------------------------------------------------- public API
class JsonPath:
    """A compiled SQL/JSON path. Immutable and shareable across threads."""

    __slots__ = ("text", "lax", "variables", "_steps")

    def __init__(self, text: str, lax: bool, variables: frozenset[str], steps: tuple[Step, ...]):
        self.text = text
        self.lax = lax
        self.variables = variables
        self._steps = steps

    def __repr__(self) -> str:
        return f"JsonPath({self.text!r})"

    @property
    def mode(self) -> str:
        return "lax" if self.lax else "strict"

    def check_passing(self, passing: dict[str, Any] | None) -> None:
        """Raise ORA-40656 when the path uses a variable PASSING does not supply."""
        if self.variables:
            supplied = passing or {}
            for name in self.variables:
                if name not in supplied:
                    missing = sorted(v for v in self.variables if v not in supplied)[0]
                    raise JsonPassingError(
                        40656, f"Variable '{missing}' in JSON path expression has no value in PASSING clause.")

    def evaluate(self, doc: Any, passing: dict[str, Any] | None = None) -> list[Any]:
        """All JSON values the path selects in ``doc`` (an already-parsed Python value).

        Raises :class:`JsonDataError` for strict-mode mismatches and failing item methods,
        :class:`JsonPassingError` for a missing PASSING variable.
        """
        self.check_passing(passing)
        return self.evaluate_checked(doc, passing)

    def evaluate_checked(self, doc: Any, passing: dict[str, Any] | None = None) -> list[Any]:
        """:meth:`evaluate` for callers that already ran :meth:`check_passing`."""
        if not self._steps:
            return [doc]
        return _run_steps(self._steps, [doc], _Ctx(doc, passing or {}))

    def exists(self, doc: Any, passing: dict[str, Any] | None = None) -> bool:
        return bool(self.evaluate(doc, passing))


@functools.lru_cache(maxsize=2048)
def compile_path(path: str) -> JsonPath:
    """Parse and compile ``path`` once; later calls with the same text are a cache hit."""
    if not isinstance(path, str):
        raise JsonPathError(str(path), "the path must be a text literal", 1)
    parser = _Parser(path)
    steps = parser.parse()
    return JsonPath(path, parser.lax, frozenset(parser.variables), steps)
