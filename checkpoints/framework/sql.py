"""Reading a learner's SQL by its structure, with sqlglot (the embedded engine's Oracle dialect), never with
regular expressions: comments, line breaks, aliases, letter case and clause spelling do not matter.

    statement_kind("-- make it\\nCREATE VECTOR INDEX ...")      # 'CREATE VECTOR INDEX'
    literals("... WHERE primary_subject = 'cs.CL'")            # [Literal('cs.CL', is_string=True)]
    bind_names("... = :subject AND y = :1")                     # ['subject', '1']
    fetch_clause("... FETCH APPROX FIRST :k ROWS ONLY")         # Fetch(count=':k', approximate=True, ...)
    formatted_values(statement, {"subject": "cs.CL", "k": 4})   # the probe values written into the text
    calls_function("SELECT MAX(id) FROM t", "max")              # True: MAX followed by "("

Checks should read the database (the dictionary, the rows) wherever it can answer; these helpers are for
what only the statement shows: whether a value was bound or formatted into the text, and whether the
database or Python limited a result.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .recording import Statement

_KIND_WORDS = 4
#: A probe string at least this long counts as formatted when a literal contains it ('cs.CL%', "'%memory%'").
_MIN_EMBEDDED = 4


@dataclass(frozen=True)
class Literal:
    value: str
    is_string: bool


@dataclass(frozen=True)
class Fetch:
    """The row-limiting clause of a query: FETCH [APPROX] FIRST <count> ROWS ONLY [WITH TARGET ACCURACY n]."""

    count: str | None           # ':k' for a bind, '5' for a literal, None without FETCH
    approximate: bool
    target_accuracy: str | None


def sql_tokens(sql: str) -> list:
    """The statement's sqlglot tokens in the embedded engine's Oracle dialect (comments dropped); ValueError when
    the text cannot be tokenized (an unterminated string or quoted name)."""
    from workshop.db import oracle_dialect
    try:
        return list(oracle_dialect()().tokenize(sql))
    except Exception as exc:  # sqlglot's TokenError: an unterminated string or quote
        raise ValueError(f"cannot read the SQL text: {exc}") from None


def _words(sql: str) -> list[str]:
    return [t.text.upper() for t in sql_tokens(sql)]


def statement_kind(sql: str) -> str:
    """'SELECT' (also for WITH ... SELECT), 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'CREATE TABLE',
    'CREATE INDEX', 'CREATE VECTOR INDEX', 'DROP TABLE', ... from the leading keywords (comments skipped)."""
    words = [w for w in _words(sql)[:_KIND_WORDS + 4] if w != "("]
    if not words:
        return ""
    if words[0] in ("SELECT", "WITH"):
        return "SELECT"
    if words[0] in ("CREATE", "DROP", "ALTER"):
        rest = [w for w in words[1:] if w not in ("OR", "REPLACE", "UNIQUE", "BITMAP", "GLOBAL", "TEMPORARY",
                                                  "PRIVATE", "IMMUTABLE", "BLOCKCHAIN")]
        if rest[:2] == ["VECTOR", "INDEX"]:
            return f"{words[0]} VECTOR INDEX"
        if rest[:2] == ["PROPERTY", "GRAPH"]:
            return f"{words[0]} PROPERTY GRAPH"
        return f"{words[0]} {rest[0]}" if rest else words[0]
    return words[0]


def calls_function(sql: str, name: str) -> bool:
    """The statement calls the function `name` (MAX, COUNT, ...): the name followed by "(", read from the tokens,
    so a column or a string that merely contains the word does not count."""
    tokens = sql_tokens(sql)
    return any(token.text.upper() == name.upper() and following.token_type.name == "L_PAREN"
               for token, following in zip(tokens, tokens[1:]))


def literals(sql: str) -> list[Literal]:
    """String and number literals of the statement (bind placeholders such as :1 are not literals)."""
    found: list[Literal] = []
    tokens = sql_tokens(sql)
    for position, token in enumerate(tokens):
        kind = token.token_type.name
        after_colon = position > 0 and tokens[position - 1].token_type.name == "COLON"
        if kind in ("STRING", "NATIONAL_STRING"):
            found.append(Literal(token.text, True))
        elif kind == "NUMBER" and not after_colon:
            found.append(Literal(token.text, False))
    return found


def bind_names(sql: str) -> list[str]:
    """The bind placeholders in order of appearance (:name -> 'name' upper-cased as Oracle does, :1 -> '1')."""
    tokens = sql_tokens(sql)
    names = []
    for position, token in enumerate(tokens[:-1]):
        if token.token_type.name == "COLON" and tokens[position + 1].token_type.name in ("VAR", "NUMBER"):
            names.append(tokens[position + 1].text.upper())
    return names


def fetch_clause(sql: str) -> Fetch:
    """The query's FETCH clause (the last one, the outer query's); count None when there is none."""
    words = _words(sql)
    starts = [i for i, w in enumerate(words) if w == "FETCH"]
    if not starts:
        return Fetch(None, False, None)
    i = starts[-1] + 1
    approximate = i < len(words) and words[i] in ("APPROX", "APPROXIMATE")
    if i < len(words) and words[i] in ("APPROX", "APPROXIMATE", "EXACT"):
        i += 1
    if i < len(words) and words[i] in ("FIRST", "NEXT"):
        i += 1
    count = None
    if i < len(words):
        count = f":{words[i + 1]}" if words[i] == ":" and i + 1 < len(words) else words[i]
    accuracy = None
    for j in range(i, len(words) - 2):
        if words[j:j + 2] == ["TARGET", "ACCURACY"]:
            accuracy = words[j + 2]
    return Fetch(count, approximate, accuracy)


def _same(literal: Literal, value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        if literal.is_string:
            return False
        try:
            return float(literal.value) == float(value)
        except ValueError:
            return False
    text = str(value)
    return literal.is_string and (literal.value == text or (len(text) >= _MIN_EMBEDDED and text in literal.value))


def formatted_values(statements: Statement | Iterable[Statement] | str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The `values` (name -> probe value) that appear as literals in the SQL text instead of as binds.

    A string value is reported when a string literal equals it; a number only when it is the row limit
    (FETCH FIRST <n>) or equals a literal and is not among the bound values.
    """
    if isinstance(statements, (str, Statement)):
        statements = [statements]
    found: dict[str, Any] = {}
    for statement in statements:
        sql = statement if isinstance(statement, str) else statement.sql
        bound = [] if isinstance(statement, str) else statement.bind_values()
        text_literals = literals(sql)
        fetch = fetch_clause(sql)
        for name, value in values.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if fetch.count is not None and not fetch.count.startswith(":") and _same(
                        Literal(fetch.count, False), value):
                    found[name] = value
                elif value not in bound and any(_same(lit, value) for lit in text_literals):
                    found[name] = value
            elif any(_same(lit, value) for lit in text_literals):
                found[name] = value
    return found


def parse(sql: str):
    """The statement's sqlglot tree (the embedded engine's Oracle dialect); ValueError if it cannot be parsed."""
    from workshop.db import parse_oracle
    try:
        return parse_oracle(sql)
    except Exception as exc:
        raise ValueError(f"cannot parse the SQL statement: {str(exc).splitlines()[0]}") from None


def same_statement(first: str, second: str) -> bool:
    """True when two statements have the same syntax tree once comments, spacing, letter case of keywords and
    unquoted names are ignored (sqlglot's canonical text of each, compared)."""
    def canonical(sql: str) -> str:
        from workshop.db import oracle_dialect
        return parse(sql).sql(dialect=oracle_dialect(), normalize=True, comments=False)
    return canonical(first) == canonical(second)


_ORDER_END = {"FETCH", "OFFSET", "FOR", "LIMIT"}
_ORDER_WORDS = {"ASC", "DESC", "NULLS", "FIRST", "LAST"}


def _split_depth0(tokens: list) -> list[list]:
    """The tokens split at the commas outside parentheses."""
    items, depth, current = [], 0, []
    for token in tokens:
        kind = token.token_type.name
        depth += kind == "L_PAREN"
        depth -= kind == "R_PAREN"
        if kind == "COMMA" and depth == 0:
            items.append(current)
            current = []
        else:
            current.append(token)
    if current:
        items.append(current)
    return items


def _item_name(tokens: list) -> str:
    """The name an item is known by: its alias, or the last name of a (qualified) column; '' for an expression
    without an alias."""
    words = [t for t in tokens if t.text.upper() not in _ORDER_WORDS]
    if not words:
        return ""
    last = words[-1]
    if last.token_type.name not in ("VAR", "IDENTIFIER"):
        return ""
    if len(words) == 1 or words[-2].token_type.name in ("DOT", "ALIAS"):
        return last.text.upper()
    if words[-2].token_type.name == "R_PAREN" or words[-2].token_type.name in ("VAR", "IDENTIFIER"):
        return last.text.upper()                      # `expr alias` without AS
    return ""


def order_by_keys(sql: str) -> list[str]:
    """The outer query's ORDER BY keys as upper-case names (a select-list position such as `ORDER BY 4` becomes
    that item's alias or column name; an expression without a name gives ''). Read from the tokens (the engine's
    Oracle dialect: binds such as :1 and GRAPH_TABLE are fine), so it works where no parser reads the whole
    statement; [] without an outer ORDER BY."""
    tokens = sql_tokens(sql)
    depth, order_at, select_at, from_at = 0, None, None, None
    for position, token in enumerate(tokens):
        kind = token.token_type.name
        if kind == "L_PAREN":
            depth += 1
        elif kind == "R_PAREN":
            depth -= 1
        elif depth == 0 and kind == "ORDER_BY":
            order_at = position
        elif depth == 0 and kind == "SELECT":
            select_at, from_at = position, None
        elif depth == 0 and kind == "FROM" and from_at is None:
            from_at = position
    if order_at is None:
        return []
    end = next((i for i in range(order_at + 1, len(tokens)) if tokens[i].text.upper() in _ORDER_END), len(tokens))
    select_items = (_split_depth0(tokens[select_at + 1:from_at]) if select_at is not None and from_at is not None
                    else [])
    keys = []
    for item in _split_depth0(tokens[order_at + 1:end]):
        words = [t for t in item if t.text.upper() not in _ORDER_WORDS]
        if len(words) == 1 and words[0].token_type.name == "NUMBER":
            index = int(words[0].text) - 1
            keys.append(_item_name(select_items[index]) if 0 <= index < len(select_items) else "")
        else:
            keys.append(_item_name(item) if len(words) <= 3 else "")
    return keys
