"""Rewrite GRAPH_TABLE conditions and column expressions into plain SQL for one join branch.

`var.property` becomes the column (or property expression) of the element table the variable
is bound to in the branch, or NULL when that table does not expose the property. Aggregates
over group variables (COUNT, SUM, AVG, MIN, MAX, LISTAGG) are unrolled over the branch's fixed
number of iterations into scalar CASE expressions with the same NULL handling as the aggregate.
Graph predicates (IS LABELED, IS SOURCE/DESTINATION OF, VERTEX_EQUAL, EDGE_EQUAL) and
BINDING_COUNT are decided per branch. Everything else is passed through unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import (GROUP_FUNCTION_INSIDE_QUANTIFIED, GROUP_FUNCTION_MULTIPLE_VARIABLES,
                     GROUP_VARIABLE_IN_COLUMNS, GROUP_VARIABLE_IN_WHERE, GraphError, INVALID_IDENTIFIER,
                     MISSING_EXPRESSION, PROPERTY_NEVER_DEFINED, VARIABLE_NOT_DECLARED, unsupported)
from .expand import Binding, Branch, GroupBinding, Node, Single
from .lexer import IDENT, QIDENT, Token, identifier_name, matching_close, quote_identifier, render
from .model import ElementTable, GraphDef

UNROLLED_AGGREGATES = {"COUNT", "SUM", "AVG", "MIN", "MAX", "LISTAGG"}
OTHER_AGGREGATES = {"JSON_ARRAYAGG", "JSON_OBJECTAGG", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE",
                    "VAR_POP", "VAR_SAMP", "MEDIAN", "COLLECT", "XMLAGG", "ARRAY_AGG", "ANY_VALUE"}
UNSUPPORTED_FUNCTIONS = {"VERTEX_ID", "EDGE_ID", "MATCHNUM", "ELEMENT_NUMBER", "PATH_NAME", "PROPERTY_EXISTS",
                         "IS_SOURCE_OF", "IS_DESTINATION_OF"}
TEXT_TYPE = "VARCHAR2(4000)"   # LISTAGG's result type; SQLite reads it as TEXT affinity


@dataclass
class Context:
    graph: GraphDef
    nodes: dict[int, Node]
    scope: dict[str, Binding]
    declared: set[str]               # every variable of the MATCH clause
    clause: str                      # "COLUMNS" | "WHERE"
    in_quantifier: bool = False      # inside an element WHERE of a quantified pattern
    branch: Branch | None = None     # None: check names only (values become NULL)
    aliases: dict[int, str] | None = None

    def alias(self, node: int) -> str:
        return quote_identifier(self.aliases[node])

    def table(self, node: int) -> ElementTable | None:
        return self.branch.tables[node] if self.branch is not None else None


def rewrite(tokens: list[Token], ctx: Context) -> str:
    """SQL text for `tokens` in the branch of `ctx`."""
    return render(_pieces(tokens, ctx))


def resolve_property(graph: GraphDef, node: Node, name: str, var: str) -> str:
    """The stored property name `name` refers to, or ORA-40983 when no label of the graph defines it.

    As in Oracle, a property defined for some element tables of the variable's kind but not for
    the table a match binds to reads as NULL there.
    """
    tables = graph.vertex_tables if node.kind == "vertex" else graph.edge_tables
    names = [p for table in node.candidates + tables for p in table.properties()]
    if name in names:
        return name
    folded = {p for p in names if p.upper() == name.upper()}
    if len(folded) == 1:
        return folded.pop()
    raise GraphError(PROPERTY_NEVER_DEFINED, f"property \"{name}\" is never defined "
                                             f"(no {node.kind} label of graph {graph.name} has it; variable {var})")


def property_sql(ctx: Context, node_id: int, name: str, var: str) -> str:
    node = ctx.nodes[node_id]
    stored = resolve_property(ctx.graph, node, name, var)
    table = ctx.table(node_id)
    if table is None:
        return "NULL"
    prop = table.properties().get(stored)
    return prop.sql(ctx.aliases[node_id]) if prop is not None else "NULL"


def star_properties(nodes: list[Node]) -> list[str]:
    """Property names of `var.*`: the union over the variable's candidate tables, in definition order."""
    out: list[str] = []
    for node in nodes:
        for table in node.candidates:
            for name in table.properties():
                if name not in out:
                    out.append(name)
    return out


def _is_name(token: Token | None) -> bool:
    return token is not None and token.kind in (IDENT, QIDENT)


def _pieces(tokens: list[Token], ctx: Context) -> list[Token | str]:
    out: list[Token | str] = []
    has_subquery = any(t.is_word("SELECT") for t in tokens)
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        prev = tokens[i - 1] if i else None
        nxt = tokens[i + 1] if i + 1 < n else None
        after_dot = prev is not None and prev.is_op(".")
        if t.kind == IDENT and not after_dot and nxt is not None and nxt.is_op("("):
            name = t.upper
            close = matching_close(tokens, i + 1)
            handled = _function(name, tokens, i, close, ctx)
            if handled is not None:
                text, i = handled
                out.append(text)
                continue
        if _is_name(t) and not after_dot:
            var = identifier_name(t)
            if var in ctx.declared:
                if nxt is not None and nxt.is_word("IS") and _predicate_ahead(tokens, i + 1):
                    text, i = _predicate(tokens, i, ctx)
                    out.append(text)
                    continue
                if nxt is not None and nxt.is_op(".") and i + 2 < n and _is_name(tokens[i + 2]) and not (
                        i + 3 < n and tokens[i + 3].is_op("(")):
                    out.append(_property_ref(var, identifier_name(tokens[i + 2]), ctx))
                    i += 3
                    continue
                if nxt is not None and nxt.is_op(".") and i + 2 < n and tokens[i + 2].is_op("*"):
                    raise GraphError(MISSING_EXPRESSION, f"{var}.* is allowed only as a whole COLUMNS item")
                if not has_subquery and not (nxt is not None and nxt.is_op(".")):
                    raise GraphError(INVALID_IDENTIFIER, f"vertex or edge variable {var} cannot be used as a value; "
                                                         f"reference a property ({var}.name)")
            elif (not has_subquery and nxt is not None and nxt.is_op(".") and i + 2 < n and _is_name(tokens[i + 2])
                  and not (i + 3 < n and tokens[i + 3].is_op("(", "."))):
                raise GraphError(VARIABLE_NOT_DECLARED,
                                 f"Variable {var} is not declared in the MATCH clause of a GRAPH_TABLE operator")
        out.append(t)
        i += 1
    return out


def _property_ref(var: str, prop: str, ctx: Context) -> str:
    binding = ctx.scope.get(var)
    if binding is None:
        raise GraphError(GROUP_VARIABLE_IN_WHERE,
                         f"invalid reference of group variable {var} in the WHERE clause of a GRAPH_TABLE operator")
    if isinstance(binding, GroupBinding):
        code = GROUP_VARIABLE_IN_COLUMNS if ctx.clause == "COLUMNS" else GROUP_VARIABLE_IN_WHERE
        raise GraphError(code, f"invalid reference of group variable {var} in the {ctx.clause} clause of a "
                               "GRAPH_TABLE operator (use it inside an aggregate such as COUNT, SUM or LISTAGG)")
    return property_sql(ctx, binding.node, prop, var)


# --- predicates -------------------------------------------------------------------------------

def _predicate_ahead(tokens: list[Token], k: int) -> bool:
    """`IS [NOT] LABELED|SOURCE|DESTINATION` starts at index k."""
    j = k + 1
    if j < len(tokens) and tokens[j].is_word("NOT"):
        j += 1
    return j < len(tokens) and tokens[j].is_word("LABELED", "SOURCE", "DESTINATION")


def _predicate(tokens: list[Token], i: int, ctx: Context) -> tuple[str, int]:
    var = identifier_name(tokens[i])
    j = i + 2
    negate = tokens[j].is_word("NOT")
    j += 1 if negate else 0
    word = tokens[j].upper
    j += 1
    node = _single(var, ctx, f"IS {word}")
    if word == "LABELED":
        if j >= len(tokens) or not _is_name(tokens[j]):
            raise GraphError(MISSING_EXPRESSION, "missing label after IS LABELED")
        label = identifier_name(tokens[j])
        if label not in ctx.graph.labels():
            raise GraphError(INVALID_IDENTIFIER, f"label \"{label}\" is not defined in property graph {ctx.graph.name}")
        table = ctx.table(node)
        holds = table is not None and label in table.label_names()
        return ("(1 = 0)" if holds == negate else "(1 = 1)"), j + 1
    if j >= len(tokens) or not tokens[j].is_word("OF") or j + 1 >= len(tokens) or not _is_name(tokens[j + 1]):
        raise GraphError(MISSING_EXPRESSION, f"expected IS {word} OF edge_variable")
    edge_var = identifier_name(tokens[j + 1])
    edge = _single(edge_var, ctx, f"IS {word} OF")
    if ctx.nodes[node].kind != "vertex" or ctx.nodes[edge].kind != "edge":
        raise GraphError(INVALID_IDENTIFIER, f"IS {word} OF needs a vertex variable and an edge variable")
    condition = "1 = 0"
    vertex_table, edge_table = ctx.table(node), ctx.table(edge)
    if vertex_table is not None:
        end = edge_table.source if word == "SOURCE" else edge_table.destination
        if end.vertex_table == vertex_table.name:
            condition = " AND ".join(
                f"{ctx.alias(edge)}.{quote_identifier(ec)} = {ctx.alias(node)}.{quote_identifier(vc)}"
                for ec, vc in zip(end.edge_columns, end.vertex_columns))
    return (f"(NOT ({condition}))" if negate else f"({condition})"), j + 2


def _single(var: str, ctx: Context, construct: str) -> int:
    binding = ctx.scope.get(var)
    if not isinstance(binding, Single):
        code = GROUP_VARIABLE_IN_COLUMNS if ctx.clause == "COLUMNS" else GROUP_VARIABLE_IN_WHERE
        raise GraphError(code, f"invalid reference of group variable {var} in {construct}")
    return binding.node


# --- functions --------------------------------------------------------------------------------

def _function(name: str, tokens: list[Token], i: int, close: int, ctx: Context) -> tuple[str, int] | None:
    """Handle graph-aware functions; None means: an ordinary function, rewrite its arguments."""
    args = _split_args(tokens[i + 2:close])
    if name in UNSUPPORTED_FUNCTIONS:
        raise unsupported(f"{name}()")
    if name in ("VERTEX_EQUAL", "EDGE_EQUAL"):
        return _element_equal(name, args, ctx), close + 1
    if name == "BINDING_COUNT":
        if len(args) != 1 or len(args[0]) != 1 or identifier_name(args[0][0]) not in ctx.declared:
            raise GraphError(MISSING_EXPRESSION, "BINDING_COUNT takes one element variable")
        binding = ctx.scope.get(identifier_name(args[0][0]))
        return (str(len(binding.nodes)) if isinstance(binding, GroupBinding) else "1"), close + 1
    if name not in UNROLLED_AGGREGATES and name not in OTHER_AGGREGATES:
        return None
    referenced = _referenced_vars(tokens[i + 2:close], ctx)
    if not referenced:
        return None          # an ordinary aggregate, e.g. inside a scalar subquery
    if ctx.in_quantifier:
        raise GraphError(GROUP_FUNCTION_INSIDE_QUANTIFIED, "Group function is not allowed inside a quantified path pattern.")
    groups = sorted(v for v in referenced if isinstance(ctx.scope.get(v), GroupBinding))
    if not groups:
        raise unsupported(f"aggregate {name} over singleton variables ({', '.join(sorted(referenced))})")
    if len(groups) > 1:
        raise GraphError(GROUP_FUNCTION_MULTIPLE_VARIABLES,
                         f"A group function inside GRAPH_TABLE() must reference the same group variable ({', '.join(groups)}).")
    if name in OTHER_AGGREGATES:
        raise unsupported(f"aggregate {name} over a group variable")
    trailing = tokens[close + 1] if close + 1 < len(tokens) else None
    if trailing is not None and trailing.is_word("WITHIN", "OVER", "KEEP"):
        raise unsupported(f"{name} ... {trailing.upper} over a group variable")
    return _unrolled(name, args, groups[0], ctx), close + 1


def _split_args(tokens: list[Token]) -> list[list[Token]]:
    args: list[list[Token]] = [[]]
    depth = 0
    for t in tokens:
        if t.is_op("(", "[", "{"):
            depth += 1
        elif t.is_op(")", "]", "}"):
            depth -= 1
        if depth == 0 and t.is_op(","):
            args.append([])
        else:
            args[-1].append(t)
    return args if args != [[]] else []


def _referenced_vars(tokens: list[Token], ctx: Context) -> set[str]:
    found = set()
    for k, t in enumerate(tokens):
        if (_is_name(t) and k + 1 < len(tokens) and tokens[k + 1].is_op(".")
                and not (k > 0 and tokens[k - 1].is_op(".")) and identifier_name(t) in ctx.declared):
            found.add(identifier_name(t))
    return found


def _element_equal(name: str, args: list[list[Token]], ctx: Context) -> str:
    kind = "vertex" if name == "VERTEX_EQUAL" else "edge"
    if len(args) != 2 or any(len(a) != 1 or not _is_name(a[0]) for a in args):
        raise GraphError(MISSING_EXPRESSION, f"{name} takes two {kind} variables")
    nodes = [_single(identifier_name(a[0]), ctx, name) for a in args]
    if any(ctx.nodes[n].kind != kind for n in nodes):
        raise GraphError(INVALID_IDENTIFIER, f"{name} takes two {kind} variables")
    left, right = (ctx.table(n) for n in nodes)
    if left is None or left.name != right.name:
        return "(1 = 0)"
    return "(" + " AND ".join(f"{ctx.alias(nodes[0])}.{quote_identifier(k)} = {ctx.alias(nodes[1])}.{quote_identifier(k)}"
                              for k in left.key) + ")"


def _unrolled(name: str, args: list[list[Token]], group_var: str, ctx: Context) -> str:
    """An aggregate over a group variable as a scalar expression over its k iterations."""
    if not args or not args[0]:
        raise GraphError(MISSING_EXPRESSION, f"missing argument of {name}")
    first = args[0]
    if first[0].is_word("DISTINCT", "UNIQUE"):
        raise unsupported(f"{name}(DISTINCT ...) over a group variable")
    if first[0].is_word("ALL"):
        first = first[1:]
    expected = (1, 2) if name == "LISTAGG" else (1,)
    if len(args) not in expected:
        raise GraphError(909, f"invalid number of arguments for {name}")
    binding = ctx.scope[group_var]
    values = [rewrite(first, replace(ctx, scope={**ctx.scope, group_var: Single(node)}))
              for node in binding.nodes]
    separator = rewrite(args[1], ctx) if len(args) == 2 else None
    return _AGGREGATE_BUILDERS[name](values, separator)


def _all_null(values: list[str]) -> str:
    return " AND ".join(f"{v} IS NULL" for v in values)


def _count(values: list[str], _sep=None) -> str:
    if not values:
        return "0"
    return "(" + " + ".join(f"CASE WHEN {v} IS NOT NULL THEN 1 ELSE 0 END" for v in values) + ")"


def _sum(values: list[str], _sep=None) -> str:
    if not values:
        return "NULL"
    return f"(CASE WHEN {_all_null(values)} THEN NULL ELSE " + " + ".join(f"COALESCE({v}, 0)" for v in values) + " END)"


def _avg(values: list[str], _sep=None) -> str:
    if not values:
        return "NULL"
    total = " + ".join(f"COALESCE({v}, 0)" for v in values)
    return f"(CASE WHEN {_all_null(values)} THEN NULL ELSE ({total}) * 1.0 / {_count(values)} END)"


def _extreme(op: str):
    def build(values: list[str], _sep=None) -> str:
        if not values:
            return "NULL"
        whens = []
        for k, v in enumerate(values):
            beats = [f"({o} IS NULL OR {v} {op} {o})" for j, o in enumerate(values) if j != k]
            whens.append(f"WHEN {' AND '.join([f'{v} IS NOT NULL'] + beats)} THEN {v}")
        return "(CASE " + " ".join(whens) + " ELSE NULL END)"
    return build


def _listagg(values: list[str], separator: str | None) -> str:
    if not values:
        return "NULL"
    pieces = []
    for k, v in enumerate(values):
        text = f"CAST({v} AS {TEXT_TYPE})"
        if k == 0 or separator is None:
            pieces.append(f"COALESCE({text}, '')")
            continue
        earlier = " OR ".join(f"{o} IS NOT NULL" for o in values[:k])
        pieces.append(f"CASE WHEN {v} IS NULL THEN '' WHEN {earlier} THEN {separator} || {text} ELSE {text} END")
    return f"(CASE WHEN {_all_null(values)} THEN NULL ELSE " + " || ".join(pieces) + " END)"


_AGGREGATE_BUILDERS = {"COUNT": _count, "SUM": _sum, "AVG": _avg, "MIN": _extreme("<="), "MAX": _extreme(">="),
                       "LISTAGG": _listagg}
