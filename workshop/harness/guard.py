"""The read-only SQL tool: a statement guard outside the model, and a row cap bound into the SQL.

The guard parses with sqlglot's Oracle dialect (never regular expressions: comments, case and line breaks do
not change what a parser sees) and allows exactly one SELECT (or WITH ... SELECT, or a set operation of
SELECTs) over allowlisted tables and views, with no row locks and no calls of DBMS_/UTL_ packages. It is the
first layer; the second is the database session itself (`workshop.db.connect(readonly=True)`), so a statement
that slips past the guard still cannot write.
"""
from __future__ import annotations

from collections.abc import Iterable

import oracledb
import sqlglot
from sqlglot import exp

DEFAULT_MAX_ROWS = 50            # the MCP App caps maximumRows at 1..50
#: Write and DDL nodes (FOR UPDATE is not among them: it is the Select's "locks" argument, checked apart).
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter, exp.Command,
           exp.TruncateTable, exp.Grant) + tuple(getattr(exp, n) for n in ("Revoke", "Transaction",
                                                                                   "Commit", "Rollback")
                                                          if hasattr(exp, n))
_PACKAGES = ("DBMS_", "UTL_", "OWA_", "HTP", "HTF", "CTX_", "CTXSYS", "SYS")
_SYSTEM_FUNCTIONS = ("SYSDATE", "SYSTIMESTAMP", "SYS_CONTEXT", "SYS_GUID")


#: The statement kinds the guard accepts at the top: a SELECT, WITH ... SELECT, or a set operation of them.
QUERY_NODES = (exp.Select, exp.Union, exp.Intersect, exp.Except)
WRITE_NODES = _WRITES


class GuardRefused(ValueError):
    """The statement is not one read-only query over the allowlisted objects."""


def package_names(sql: str) -> list[str]:
    """Identifiers of the statement's tokens that name a system package. Read from the tokens, not the tree:
    sqlglot rewrites some calls (DBMS_RANDOM.VALUE becomes RAND()), and comments and strings are not tokens."""
    from sqlglot.tokens import TokenType
    tokens = sqlglot.Dialect.get_or_raise("oracle").tokenize(sql)
    return [t.text.upper() for t in tokens
            if t.token_type not in (TokenType.STRING, TokenType.NATIONAL_STRING) and t.text.upper().startswith(_PACKAGES)
            and t.text.upper() not in _SYSTEM_FUNCTIONS]


def guard_select(sql: str, allowed: Iterable[str]) -> exp.Expression:
    """The parsed statement when `sql` is one read-only query over `allowed` objects; GuardRefused otherwise."""
    if not isinstance(sql, str) or not sql.strip():
        raise GuardRefused("empty statement")
    try:
        statements = [s for s in sqlglot.parse(sql, read="oracle") if s is not None]
    except sqlglot.errors.SqlglotError as error:
        raise GuardRefused(f"not parseable as Oracle SQL ({str(error).splitlines()[0][:80]})") from None
    if len(statements) != 1:
        raise GuardRefused(f"exactly one statement allowed, found {len(statements)}")
    if sql.strip().endswith(";"):
        raise GuardRefused("the statement ends with ';' (even inside a comment): send it without one, as "
                           "cursor.execute needs (Oracle answers ORA-00933)")
    tree = statements[0]
    if not isinstance(tree, QUERY_NODES):
        raise GuardRefused(f"only SELECT or WITH ... SELECT is allowed, not {tree.key.upper()}")
    for node in tree.walk():
        if isinstance(node, _WRITES):
            raise GuardRefused(f"{node.key.upper()} is not allowed inside a query")
        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise GuardRefused("FOR UPDATE is not allowed: a read-only tool takes no row locks")
    for name in package_names(sql):
        raise GuardRefused(f"calls of {name} are not allowed")
    ctes = {cte.alias_or_name.upper() for cte in tree.find_all(exp.CTE)}
    permitted = {name.upper() for name in allowed} | {"DUAL"}
    for table in tree.find_all(exp.Table):
        name = table.name.upper()
        if table.db or table.catalog:
            raise GuardRefused(f"schema-qualified {table.sql(dialect='oracle')} is not allowed")
        if name not in permitted and name not in ctes:
            raise GuardRefused(f"{name} is not an allowlisted table or view")
    return tree


def capped_query(sql: str, allowed: Iterable[str]) -> str:
    """The guarded statement inside a bound row cap: the database, not Python, stops at :max_rows."""
    tree = guard_select(sql, allowed)
    return f"SELECT * FROM ({tree.sql(dialect='oracle')}) FETCH FIRST :max_rows ROWS ONLY"


def run_readonly_query(conn: oracledb.Connection, sql: str, allowed: Iterable[str],
                       max_rows: int = DEFAULT_MAX_ROWS) -> list[dict]:
    """Guard, cap and run `sql` on `conn` (a read-only session); rows as dicts with lower-case keys."""
    if not isinstance(max_rows, int) or isinstance(max_rows, bool) or not 1 <= max_rows <= DEFAULT_MAX_ROWS:
        raise GuardRefused(f"max_rows must be an int from 1 to {DEFAULT_MAX_ROWS}, not {max_rows!r}")
    statement = capped_query(sql, allowed)
    with conn.cursor() as cur:
        cur.execute(statement, max_rows=max_rows)
        names = [d[0].lower() for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
