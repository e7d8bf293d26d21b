"""Check a learner's DDL *statement*, not only the table a database happens to hold.

`CREATE TABLE IF NOT EXISTS` keeps whatever table an earlier (wrong) statement made, so a dictionary
check of the real table can pass a wrong statement, or fail a corrected one forever. Running the
learner's own statement under a scratch name answers "what does *this* statement create?": the
statement's object names are replaced (by position, from sqlglot's Oracle tokens: comments, case,
quotes and layout are kept as written) and the result is executed, inspected and dropped.

    scratch = scratch_table_ddl(ddl, expected="CONVERSATION_MEMORY", suffix=token)
    scratch.sql, scratch.table      # the statement that creates scratch.table instead
"""
from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot.tokens import Token, TokenType

from .framework import fail


@dataclass(frozen=True)
class ScratchStatement:
    sql: str          # the learner's statement with its object names replaced
    table: str        # the scratch table (dictionary spelling) the statement now creates / indexes
    name: str         # the name the learner's statement used (dictionary spelling)


def _tokens(sql: str) -> list[Token]:
    try:
        return sqlglot.tokenize(sql, read="oracle")
    except Exception as exc:  # noqa: BLE001 - sqlglot raises its own TokenError
        fail(f"the statement cannot be read as SQL ({exc})", "Check the quotes and brackets of your statement.")
        raise  # unreachable: fail raises


def _dictionary_spelling(token: Token) -> str:
    return token.text if token.token_type == TokenType.IDENTIFIER else token.text.upper()


def _skip_if_not_exists(tokens: list[Token], i: int) -> int:
    words = [t.text.upper() for t in tokens[i:i + 3]]
    return i + 3 if words == ["IF", "NOT", "EXISTS"] else i


def _name_at(tokens: list[Token], i: int) -> tuple[int, int, str]:
    """(first token index, last token index, dictionary name) of a possibly schema-qualified name at i."""
    if i >= len(tokens) or tokens[i].token_type in (TokenType.L_PAREN, TokenType.ON):
        fail("the statement has no object name where one is expected", "Write CREATE TABLE <name> (...).")
    last = i
    while last + 2 < len(tokens) and tokens[last + 1].token_type == TokenType.DOT:
        last += 2
    return i, last, _dictionary_spelling(tokens[last])


def _replace(sql: str, spans: list[tuple[int, int, str]]) -> str:
    for start, end, text in sorted(spans, reverse=True):
        sql = sql[:start] + text + sql[end + 1:]
    return sql


def _constraint_renames(tokens: list[Token], suffix: str) -> list[tuple[int, int, str]]:
    """Named constraints would clash with the real table's: give each a scratch name."""
    spans = []
    for i, token in enumerate(tokens[:-1]):
        if token.text.upper() == "CONSTRAINT":
            name = tokens[i + 1]
            spans.append((name.start, name.end, f"CK{suffix}_{len(spans)}"))
    return spans


def scratch_table_ddl(sql: str, *, expected: str, suffix: str) -> ScratchStatement:
    """The CREATE TABLE statement `sql`, creating CK<suffix> instead of its table (which must be `expected`)."""
    tokens = _tokens(sql)
    words = [t.text.upper() for t in tokens[:2]]
    if words != ["CREATE", "TABLE"]:
        fail(f"the statement starts with {' '.join(t.text for t in tokens[:3]) or 'nothing'!r}, not CREATE TABLE",
             "Write one CREATE TABLE IF NOT EXISTS conversation_memory (...) statement.")
    first, last, name = _name_at(tokens, _skip_if_not_exists(tokens, 2))
    if name != expected:
        fail(f"the statement creates {name}, not {expected}", f"Name the table {expected.lower()}.")
    table = f"CK{suffix}".upper()
    spans = [(tokens[first].start, tokens[last].end, table)] + _constraint_renames(tokens, suffix)
    return ScratchStatement(_replace(sql, spans), table, name)


def scratch_index_ddl(sql: str, *, table: str, scratch_table: str, suffix: str) -> ScratchStatement:
    """The CREATE INDEX statement `sql` on `table`, renamed to a scratch index on `scratch_table`."""
    tokens = _tokens(sql)
    i = 1 if tokens and tokens[0].text.upper() == "CREATE" else 0
    if i == 0:
        fail("the index statement does not start with CREATE INDEX",
             "Write CREATE INDEX IF NOT EXISTS <name> ON conversation_memory (...).")
    while i < len(tokens) and tokens[i].text.upper() in ("UNIQUE", "BITMAP"):
        i += 1
    if i >= len(tokens) or tokens[i].text.upper() != "INDEX":
        fail("the index statement does not start with CREATE INDEX",
             "Write CREATE INDEX IF NOT EXISTS <name> ON conversation_memory (...).")
    first, last, index_name = _name_at(tokens, _skip_if_not_exists(tokens, i + 1))
    on = last + 1
    if on >= len(tokens) or tokens[on].token_type != TokenType.ON:
        fail("the index statement has no ON <table> (...)", "CREATE INDEX IF NOT EXISTS <name> ON <table> (...)")
    t_first, t_last, table_name = _name_at(tokens, on + 1)
    if table_name != table:
        fail(f"the index is on {table_name}, not on {table}", f"Index {table.lower()}: ON {table.lower()} (...).")
    spans = [(tokens[first].start, tokens[last].end, f"CK{suffix}_IX".upper()),
             (tokens[t_first].start, tokens[t_last].end, scratch_table)]
    return ScratchStatement(_replace(sql, spans), scratch_table, index_name)
