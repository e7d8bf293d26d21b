"""Hierarchical queries (START WITH ... CONNECT BY) as recursive WITH, before translation.

SQL Language Reference, "Hierarchical Queries" and "Hierarchical Operators" / "Hierarchical Pseudocolumns":
the root rows satisfy START WITH (every row without it); a row is a child of a parent row when the CONNECT BY
condition holds with PRIOR naming the parent's values; LEVEL is 1 for a root; SYS_CONNECT_BY_PATH(col, sep) is
sep || col of each row from the root down; CONNECT_BY_ROOT col is the root's value; a row met again on its own
path is ORA-01436 (CONNECT BY loop in user data) unless NOCYCLE, which stops there; WHERE filters after the
hierarchy is built; without ORDER BY the rows come in hierarchical (depth-first) order. Two shapes are rewritten:

- the row generator: `FROM dual CONNECT BY <condition on LEVEL>` (no PRIOR), the levels 1, 2, ... while the
  condition holds, from a recursive WITH in place of DUAL (correlated conditions included, as langgraph-oracledb's
  `list_namespaces` writes them inside a scalar subquery);
- the hierarchy over one table: a recursive WITH carries each row's ROWID, LEVEL, path key, path and root values,
  joined back to the table, so row-level security and the rest of the query translate as usual.

CONNECT_BY_ISLEAF is 1 when no row of the table is a child of the row under the CONNECT BY condition. Everything
else (joins in a hierarchical FROM, CONNECT_BY_ISCYCLE, ORDER SIBLINGS BY, a view or subquery as the hierarchy's
source) raises ORA-03001 naming it.
"""
from __future__ import annotations

import re
from typing import Callable

from sqlglot import exp

from . import errors

#: Beyond this many levels a row generator stops with ORA-30009, as Oracle does when CONNECT BY runs out of memory.
MAX_LEVELS = 1_000_000
CB = "ORA$CB"        # the alias of the derived table the rewrite adds
H = "ORA$H"          # the recursive WITH


def _unsupported(construct: str) -> errors.EngineError:
    return errors.EngineError(3001, f"unimplemented feature: {construct} {errors.ENGINE_SUFFIX}")


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table, quoted=True)


def _is_pseudo(node: exp.Expression, name: str) -> bool:
    return isinstance(node, exp.Column) and not node.table and node.name.upper() == name


def _own_nodes(select: exp.Select):
    """Nodes of this query block, not of nested query blocks (they have their own LEVEL)."""
    def walk(node: exp.Expression):
        for child in node.iter_expressions():
            if isinstance(child, (exp.Select, exp.SetOperation)):
                continue
            yield child
            yield from walk(child)
    for key in ("expressions", "where", "order", "group", "having"):
        value = select.args.get(key)
        for item in (value if isinstance(value, list) else [value] if value is not None else []):
            yield item
            yield from walk(item)


def _replace_own(select: exp.Select, match: Callable[[exp.Expression], exp.Expression | None]) -> None:
    for node in list(_own_nodes(select)):
        replacement = match(node)
        if replacement is not None:
            node.replace(replacement)


def rewrite(select: exp.Select, is_table: Callable[[str], bool], has_column: Callable[[str, str], bool],
            heading: Callable[[exp.Expression], str] = lambda p: p.sql()) -> exp.Select:
    """The query block without its CONNECT BY: the row generator or the hierarchy, as described above.
    ``is_table(name)``: a base table of the catalog; ``has_column(table, name)``: that table has the column;
    ``heading(projection)``: the column heading Oracle gives it (kept for the projections the rewrite replaces)."""
    connect = select.args["connect"]
    if select.args.get("joins"):
        raise _unsupported("CONNECT BY over a join")
    order = select.args.get("order")
    if order is not None and order.args.get("siblings"):
        raise _unsupported("ORDER SIBLINGS BY (CONNECT BY)")
    for node in _own_nodes(select):
        if _is_pseudo(node, "CONNECT_BY_ISCYCLE") or _is_pseudo(node, "CONNECT_BY_ISLEAF") and \
                not list(connect.args["connect"].find_all(exp.Prior)):
            raise _unsupported(f"pseudocolumn {node.name.upper()}")
    source = select.args["from_"].this if select.args.get("from_") is not None else None
    if not isinstance(source, exp.Table) or isinstance(source.this, exp.Func):
        raise _unsupported("CONNECT BY over a subquery or table function")
    select.set("connect", None)
    select.set("expressions", [exp.alias_(p, re.sub(r"\s+", "", heading(p)).upper(), quoted=True)
                               if not isinstance(p, exp.Alias) and _hierarchical(p) else p
                               for p in select.expressions])
    # `SELECT *` means the source's columns, not the ones the rewrite joins in
    select.set("expressions", [exp.Column(this=exp.Star(), table=exp.to_identifier(source.alias_or_name))
                               if isinstance(p, exp.Star) else p for p in select.expressions])
    if not list(connect.args["connect"].find_all(exp.Prior)):
        if source.name.upper() != "DUAL" or source.args.get("db") is not None:
            raise _unsupported("CONNECT BY without PRIOR over a table other than DUAL")
        return _generator(select, connect)
    if not is_table(source.name):
        raise _unsupported("CONNECT BY over a view or WITH query")
    return _hierarchy(select, connect, source, has_column)


def _hierarchical(node: exp.Expression) -> bool:
    """Whether a projection uses what the rewrite replaces (LEVEL, SYS_CONNECT_BY_PATH, CONNECT_BY_ROOT, ...)."""
    return any(_is_pseudo(n, "LEVEL") or _is_pseudo(n, "CONNECT_BY_ISLEAF") or isinstance(n, exp.ConnectByRoot)
               or isinstance(n, exp.Anonymous) and n.name.upper() == "SYS_CONNECT_BY_PATH" for n in node.walk())


def _in_hierarchical_order(select: exp.Select, key: exp.Expression) -> None:
    """Without ORDER BY (and without grouping), rows come in hierarchical order (SQLRF "Hierarchical Queries":
    ORDER BY or GROUP BY "will override the hierarchical order of the CONNECT BY results")."""
    if select.args.get("order") is None and select.args.get("group") is None and not any(
            p.find(exp.AggFunc) for p in select.expressions) and not select.args.get("distinct"):
        select.set("order", exp.Order(expressions=[exp.Ordered(this=key)]))


def _level_in(condition: exp.Expression, level: exp.Expression) -> exp.Expression:
    """The CONNECT BY condition for a child row: LEVEL there is the child's level."""
    return condition.transform(lambda n: exp.paren(level.copy()) if _is_pseudo(n, "LEVEL") else n)


def _generator(select: exp.Select, connect: exp.Connect) -> exp.Select:
    """`FROM dual CONNECT BY <cond>`: level 1 always (START WITH permitting), level n+1 while cond holds for it."""
    lvl = _col("LVL")
    anchor = exp.select(exp.alias_(exp.Literal.number(1), "LVL", quoted=True)).from_("DUAL")
    if connect.args.get("start") is not None:
        anchor = anchor.where(connect.args["start"].copy())
    nxt = exp.Add(this=lvl.copy(), expression=exp.Literal.number(1))
    guard = exp.EQ(this=_engine_call("ORA_CONNECT_BY_GUARD", [nxt.copy(),
                                                                               exp.Literal.number(MAX_LEVELS)]),
                   expression=exp.Literal.number(1))
    step = exp.select(exp.alias_(nxt, "LVL", quoted=True)).from_(exp.to_table(f'"{H}"')).where(
        exp.and_(_level_in(connect.args["connect"], nxt), guard))
    levels = _recursive(["LVL"], exp.union(anchor, step, distinct=False), exp.select(lvl.copy()))
    select.join(exp.Subquery(this=levels, alias=exp.TableAlias(this=_ident(CB))), join_type="CROSS", copy=False)
    _replace_own(select, lambda n: _col("LVL", CB) if _is_pseudo(n, "LEVEL") else None)
    _in_hierarchical_order(select, _col("LVL", CB))
    return select


def _recursive(columns: list[str], body: exp.Expression, outer: exp.Select) -> exp.Select:
    cte = exp.CTE(this=body, alias=exp.TableAlias(this=_ident(H), columns=[_ident(c) for c in columns]))
    outer = outer.from_(exp.to_table(f'"{H}"'))
    outer.set("with_", exp.With(expressions=[cte], recursive=True))
    return outer


def _hierarchy(select: exp.Select, connect: exp.Connect, source: exp.Table,
               has_column: Callable[[str, str], bool]) -> exp.Select:
    table, alias = source.name, source.alias_or_name
    paths: list[tuple[exp.Expression, exp.Expression]] = []   # SYS_CONNECT_BY_PATH (value, separator)
    roots: list[exp.Expression] = []                          # CONNECT_BY_ROOT value

    def as_child(expr: exp.Expression, row: str) -> exp.Expression:
        """An expression over the source's columns, read from the row aliased ``row``."""
        def fix(n):
            if isinstance(n, exp.Column) and (n.table == alias or not n.table and has_column(table, n.name)):
                return exp.column(n.name, table=row, quoted=True)
            return n
        return expr.copy().transform(fix)

    def is_leaf() -> exp.Expression:
        """CONNECT_BY_ISLEAF: 1 when no row is a child of the current one under the CONNECT BY condition."""
        below = exp.Add(this=_col("LVL", CB), expression=exp.Literal.number(1))
        condition = connect.args["connect"].copy().transform(
            lambda n: as_child(n.this, "ORA$CUR") if isinstance(n, exp.Prior) else n)
        condition = as_child(_level_in(condition, below), "ORA$L").transform(
            lambda n: exp.column(n.name, table=alias, quoted=True)
            if isinstance(n, exp.Column) and n.table == "ORA$CUR" else n)
        child_rows = exp.select(exp.Literal.number(1)).from_(exp.to_table(table).as_("ORA$L", quoted=True)).where(
            condition)
        return exp.Case(ifs=[exp.If(this=exp.Exists(this=child_rows), true=exp.Literal.number(0))],
                        default=exp.Literal.number(1))

    def collect(node: exp.Expression) -> exp.Expression | None:
        if _is_pseudo(node, "CONNECT_BY_ISLEAF") and not has_column(table, "CONNECT_BY_ISLEAF"):
            return is_leaf()
        if isinstance(node, exp.Anonymous) and node.name.upper() == "SYS_CONNECT_BY_PATH":
            if len(node.expressions) != 2:
                raise errors.EngineError(909, "invalid number of arguments")
            paths.append((node.expressions[0].copy(), node.expressions[1].copy()))
            return _col(f"P{len(paths) - 1}", CB)
        if isinstance(node, exp.ConnectByRoot):
            roots.append(node.this.copy())
            return _col(f"R{len(roots) - 1}", CB)
        if _is_pseudo(node, "LEVEL") and not has_column(table, "LEVEL"):
            return _col("LVL", CB)
        return None
    _replace_own(select, collect)

    child, parent = "ORA$C", "ORA$P"
    rowid = lambda row: exp.column("ROWID", table=row)  # noqa: E731 - a tiny accessor
    key_call = lambda key, row: _engine_call("ORA_CONNECT_BY_KEY", [key, rowid(row)])  # noqa: E731
    anchor_cols = [rowid(child), exp.Literal.number(1), key_call(exp.Null(), child)]
    anchor_cols += [exp.DPipe(this=as_child(sep, child), expression=as_child(v, child)) for v, sep in paths]
    anchor_cols += [as_child(v, child) for v in roots]
    names = ["RID", "LVL", "KEY"] + [f"P{i}" for i in range(len(paths))] + [f"R{i}" for i in range(len(roots))]
    anchor = exp.select(*[exp.alias_(c, n, quoted=True) for c, n in zip(anchor_cols, names)]).from_(
        exp.to_table(table).as_(child, quoted=True))
    if connect.args.get("start") is not None:
        anchor = anchor.where(as_child(connect.args["start"], child))

    level = exp.Add(this=_col("LVL", H), expression=exp.Literal.number(1))
    condition = connect.args["connect"].copy().transform(
        lambda n: as_child(n.this, parent) if isinstance(n, exp.Prior) else n)
    condition = as_child(_level_in(condition, level), child)
    # The loop check raises ORA-01436, so it must see only the pairs the CONNECT BY condition joins: SQLite may test
    # a WHERE term as soon as its tables are at hand, before the join's ON, hence the check sits behind the condition.
    check = _engine_call("ORA_CONNECT_BY_CYCLE", [
        _col("KEY", H), rowid(child), exp.Literal.number(1 if connect.args.get("nocycle") else 0)])
    cycle = exp.EQ(this=exp.Case(ifs=[exp.If(this=condition.copy(), true=check)], default=exp.Literal.number(1)),
                   expression=exp.Literal.number(0))
    step_cols = [rowid(child), level, key_call(_col("KEY", H), child)]
    step_cols += [exp.DPipe(this=exp.DPipe(this=_col(f"P{i}", H), expression=as_child(sep, child)),
                            expression=as_child(v, child)) for i, (v, sep) in enumerate(paths)]
    step_cols += [_col(f"R{i}", H) for i in range(len(roots))]
    step = exp.select(*[exp.alias_(c, n, quoted=True) for c, n in zip(step_cols, names)]).from_(
        exp.to_table(f'"{H}"')).join(exp.to_table(table).as_(parent, quoted=True),
                                     on=exp.EQ(this=rowid(parent), expression=_col("RID", H))).join(
        exp.to_table(table).as_(child, quoted=True), on=condition).where(cycle)
    levels = _recursive(names, exp.union(anchor, step, distinct=False),
                        exp.select(*[_col(n) for n in names]))
    select.join(exp.Subquery(this=levels, alias=exp.TableAlias(this=_ident(CB))),
                on=exp.EQ(this=exp.column("ROWID", table=alias), expression=_col("RID", CB)), copy=False)
    _in_hierarchical_order(select, _col("KEY", CB))
    return select


# ---------------------------------------------------------------------- run-time helpers (registered as ORA_*)
def connect_by_key(key: str | None, rowid: int) -> str:
    """The path key of a row: its ancestors' and its own ROWIDs, fixed width, so keys sort in depth-first order."""
    return f"{key or ''}/{int(rowid):012d}"


def connect_by_cycle(key: str | None, rowid: int, nocycle: int) -> int:
    """1 when the row is already on the path and NOCYCLE stops there; ORA-01436 without NOCYCLE; else 0."""
    if f"/{int(rowid):012d}/" in (key or "") + "/":
        if nocycle:
            return 1
        raise errors.EngineError(1436, "CONNECT BY loop in user data")
    return 0


def connect_by_guard(level: int, limit: int) -> int:
    """Stops a row generator that never ends (`CONNECT BY 1 = 1`) as Oracle does, with ORA-30009."""
    if level > limit:
        raise errors.EngineError(30009, "Not enough memory for CONNECT BY operation")
    return 1


def _engine_call(name: str, args: list) -> exp.Anonymous:
    """A call of one of the engine's own ORA_CONNECT_BY_* functions. The rewrite runs after check_constructs,
    which refuses an ORA_ call that the statement's text wrote (ORA-00904), so these reach SQLite."""
    return exp.Anonymous(this=name, expressions=args)


RUNTIME_FUNCTIONS = {
    "ORA_CONNECT_BY_KEY": (connect_by_key, 2, True),
    "ORA_CONNECT_BY_CYCLE": (connect_by_cycle, 3, True),
    "ORA_CONNECT_BY_GUARD": (connect_by_guard, 2, True),
}
