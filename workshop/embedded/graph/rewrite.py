"""Find every `GRAPH_TABLE ( ... )` in a statement and replace it with a derived table.

The scan works on tokens, so GRAPH_TABLE inside string literals, quoted identifiers and comments
is left alone. Each operator is replaced by `( SELECT ... )`; the alias and everything else in
the statement (CTEs, joins, subqueries, several GRAPH_TABLEs) are kept verbatim.
"""
from __future__ import annotations

from .compiler import GraphResolver, compile_graph_table
from .errors import unsupported
from .lexer import matching_close, tokenize


def rewrite_graph_tables(sql: str, resolve_graph: GraphResolver) -> str:
    """Return `sql` with each GRAPH_TABLE compiled to plain SQL.

    `resolve_graph(name)` receives the Oracle-resolved graph name (`SCHEMA.NAME` when qualified)
    and returns its GraphDef, or None (or raises KeyError) when there is no such graph.
    """
    if "graph_table" not in sql.lower():
        return sql
    tokens = tokenize(sql)
    spans: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if (token.is_word("GRAPH_TABLE") and i + 1 < len(tokens) and tokens[i + 1].is_op("(")
                and not (i > 0 and tokens[i - 1].is_op("."))):
            close = matching_close(tokens, i + 1)
            body = tokens[i + 2:close]
            if any(t.is_word("GRAPH_TABLE") for t in body):
                raise unsupported("GRAPH_TABLE nested inside another GRAPH_TABLE")
            spans.append((token.start, tokens[close].end, compile_graph_table(body, resolve_graph)))
            i = close + 1
        else:
            i += 1
    for start, end, compiled in reversed(spans):
        sql = f"{sql[:start]}({compiled}){sql[end:]}"
    return sql
