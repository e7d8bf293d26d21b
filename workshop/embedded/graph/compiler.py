"""Compile one GRAPH_TABLE into a plain `SELECT ... UNION ALL SELECT ...` over the element tables.

Each branch (see `expand.py`) is a chain of inner joins: an edge table joined to its two vertex
tables on SOURCE/DESTINATION KEY ... REFERENCES columns. The SQL uses only ANSI joins, CASE,
COALESCE, CAST and UNION ALL, so Oracle and SQLite both accept it, and it never needs WITH
RECURSIVE: bounded quantifiers were unrolled into fixed-length chains.
"""
from __future__ import annotations

from typing import Callable

from .errors import (DUPLICATE_COLUMN_NAME, GROUP_VARIABLE_IN_COLUMNS, GraphError, INVALID_IDENTIFIER,
                     TABLE_OR_VIEW_DOES_NOT_EXIST, VARIABLE_NOT_DECLARED, unsupported)
from .expand import MAX_BRANCHES, Branch, GroupBinding, Variant, assign_candidates, branches, elements, variants
from .expressions import Context, rewrite, star_properties
from .lexer import Token, identifier_name, quote_identifier
from .model import EdgeEnd, GraphDef
from .pattern import ColumnDef, GraphTableQuery, parse_graph_table

GraphResolver = Callable[[str], "GraphDef | None"]


def compile_graph_table(body: list[Token], resolve_graph: GraphResolver) -> str:
    """SQL (without the surrounding parentheses) equivalent to `GRAPH_TABLE ( <body> )`."""
    query = parse_graph_table(body)
    graph = _resolve(query, resolve_graph)
    declared = {e.var for path in query.paths for e in elements(path) if e.var is not None}
    _check_labels(query, graph)
    shapes = variants(query)
    for variant in shapes:
        assign_candidates(variant, graph)
        _validate(variant, query, graph, declared)
    stars = {k: _star_names(c, shapes) for k, c in enumerate(query.columns) if c.star_var is not None}
    names = _column_names(query, stars)
    all_branches: list[Branch] = []
    for variant in shapes:
        all_branches.extend(branches(variant, MAX_BRANCHES - len(all_branches)))
        if len(all_branches) > MAX_BRANCHES:
            raise unsupported(f"a pattern expanding to more than {MAX_BRANCHES} join branches")
    if not all_branches:
        nulls = ", ".join(f"NULL AS {quote_identifier(n)}" for n in names)
        return f"SELECT {nulls} FROM {graph.vertex_tables[0].table_sql()} WHERE 1 = 0"
    return "\nUNION ALL\n".join(_branch_sql(b, query, graph, declared, names, stars) for b in all_branches)


def _resolve(query: GraphTableQuery, resolve_graph: GraphResolver) -> GraphDef:
    name = f"{query.graph_schema}.{query.graph_name}" if query.graph_schema else query.graph_name
    try:
        graph = resolve_graph(name)
    except KeyError:
        graph = None
    if graph is None:
        raise GraphError(TABLE_OR_VIEW_DOES_NOT_EXIST, f"table or view \"{name}\" does not exist "
                                                       "(no property graph of that name)")
    return graph


def _check_labels(query: GraphTableQuery, graph: GraphDef) -> None:
    known = graph.labels()
    for path in query.paths:
        for element in elements(path):
            for label in sorted(element.label.names() if element.label else ()):
                if label not in known:
                    raise GraphError(INVALID_IDENTIFIER, f"label \"{label}\" is not defined in property graph {graph.name}")


def _validate(variant: Variant, query: GraphTableQuery, graph: GraphDef, declared: set[str]) -> None:
    """Resolve every name once without a branch, so errors surface even when nothing can match."""
    for ctx, tokens in _conditions(variant, query, graph, declared, None, None):
        rewrite(tokens, ctx)
    ctx = Context(graph, variant.nodes, variant.scope, declared, "COLUMNS")
    for column in query.columns:
        if column.star_var is None:
            rewrite(column.tokens, ctx)


def _conditions(variant: Variant, query: GraphTableQuery, graph: GraphDef, declared: set[str],
                branch: Branch | None, aliases: dict[int, str] | None):
    """(context, tokens) for every element and parenthesized-pattern WHERE, then the graph WHERE."""
    for node_id in variant.order:
        for cond in variant.nodes[node_id].conditions:
            yield Context(graph, variant.nodes, cond.scope, declared, "WHERE", cond.in_quantifier, branch, aliases), cond.tokens
    for cond in variant.conditions:
        yield Context(graph, variant.nodes, cond.scope, declared, "WHERE", cond.in_quantifier, branch, aliases), cond.tokens
    if query.where is not None:
        yield Context(graph, variant.nodes, variant.scope, declared, "WHERE", False, branch, aliases), query.where


def _column_names(query: GraphTableQuery, stars: dict[int, list[str]]) -> list[str]:
    names: list[str] = []
    for k, column in enumerate(query.columns):
        if column.star_var is not None:
            names.extend(stars[k])
        else:
            names.append(column.alias if column.alias is not None else identifier_name(column.tokens[2]))
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise GraphError(DUPLICATE_COLUMN_NAME, f"duplicate column name {duplicates[0]} in the COLUMNS clause")
    return names


def _star_names(column: ColumnDef, shapes: list[Variant]) -> list[str]:
    var = column.star_var
    nodes = []
    for variant in shapes:
        binding = variant.scope.get(var)
        if binding is None:
            raise GraphError(VARIABLE_NOT_DECLARED, f"Variable {var} is not declared in the MATCH clause of a GRAPH_TABLE operator")
        if isinstance(binding, GroupBinding):
            raise GraphError(GROUP_VARIABLE_IN_COLUMNS,
                             f"invalid reference of group variable {var} in the COLUMNS clause of a GRAPH_TABLE operator")
        nodes.append(variant.nodes[binding.node])
    return star_properties(nodes)


def _branch_sql(branch: Branch, query: GraphTableQuery, graph: GraphDef, declared: set[str], names: list[str],
                stars: dict[int, list[str]]) -> str:
    variant = branch.variant
    aliases = {node_id: f"{variant.nodes[node_id].kind[0]}{k}" for k, node_id in enumerate(variant.order)}
    on, where = _join_conditions(branch, aliases)
    for ctx, tokens in _conditions(variant, query, graph, declared, branch, aliases):
        where.append(f"({rewrite(tokens, ctx)})")
    columns: list[str] = []
    ctx = Context(graph, variant.nodes, variant.scope, declared, "COLUMNS", False, branch, aliases)
    for k, column in enumerate(query.columns):
        if column.star_var is None:
            columns.append(rewrite(column.tokens, ctx))
            continue
        node_id = variant.scope[column.star_var].node
        props = branch.tables[node_id].properties()
        columns.extend(props[p].sql(aliases[node_id]) if p in props else "NULL" for p in stars[k])
    select = ", ".join(f"{expr} AS {quote_identifier(name)}" for expr, name in zip(columns, names))

    from_parts = []
    for node_id in variant.order:
        ref = f"{branch.tables[node_id].table_sql()} {quote_identifier(aliases[node_id])}"
        if not from_parts:
            from_parts.append(f"FROM {ref}")
        elif on[node_id]:
            from_parts.append(f"JOIN {ref} ON " + " AND ".join(on[node_id]))
        else:
            from_parts.append(f"CROSS JOIN {ref}")
    sql = f"SELECT {select} " + " ".join(from_parts)
    return sql + (" WHERE " + " AND ".join(where) if where else "")


def _join_conditions(branch: Branch, aliases: dict[int, str]) -> tuple[dict[int, list[str]], list[str]]:
    """Edge-to-vertex join conditions, each attached to the ON clause of the last table it needs."""
    variant = branch.variant
    position = {node_id: k for k, node_id in enumerate(variant.order)}
    on: dict[int, list[str]] = {node_id: [] for node_id in variant.order}
    where: list[str] = []

    def attach(condition: str, *nodes: int) -> None:
        last = max(nodes, key=position.__getitem__)
        (where if position[last] == 0 else on[last]).append(condition)

    for step, orientation in zip(variant.steps, branch.orientations):
        edge = branch.tables[step.edge]
        e = aliases[step.edge]
        if orientation == "either":
            left, right = aliases[step.left], aliases[step.right]
            forward = f"{_end_match(e, edge.source, left)} AND {_end_match(e, edge.destination, right)}"
            backward = f"{_end_match(e, edge.destination, left)} AND {_end_match(e, edge.source, right)}"
            attach(f"(({forward}) OR ({backward}))", step.edge, step.left, step.right)
            # Implied by the condition above; lets SQLite reach the edge from an already joined end
            # through the source and destination indexes (MULTI-INDEX OR) instead of a scan.
            anchor = next((v for v in (step.left, step.right) if position[v] < position[step.edge]), None)
            if anchor is not None:
                a = aliases[anchor]
                attach(f"(({_end_match(e, edge.source, a)}) OR ({_end_match(e, edge.destination, a)}))",
                       step.edge, anchor)
            continue
        near, far = (edge.source, edge.destination) if orientation == "forward" else (edge.destination, edge.source)
        attach(_end_match(e, near, aliases[step.left]), step.edge, step.left)
        attach(_end_match(e, far, aliases[step.right]), step.edge, step.right)
    return on, where


def _end_match(edge_alias: str, end: EdgeEnd, vertex_alias: str) -> str:
    """The edge's SOURCE or DESTINATION key equals the referenced columns of a vertex."""
    return " AND ".join(f"{_col(edge_alias, ec)} = {_col(vertex_alias, vc)}"
                        for ec, vc in zip(end.edge_columns, end.vertex_columns))


def _col(alias: str, column: str) -> str:
    return f"{quote_identifier(alias)}.{quote_identifier(column)}"
