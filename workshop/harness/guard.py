"""The read-only SQL tool: a statement guard outside the model, a row cap bound into the SQL, and a time limit.

The guard parses with sqlglot's Oracle dialect (never regular expressions: comments, case and line breaks do
not change what a parser sees) and allows exactly one SELECT (or WITH ... SELECT, or a set operation of
SELECTs) over allowlisted tables and views, with no row locks, no hints and no calls of packages or
user-defined functions. Names are resolved by scope, as Oracle resolves them: a name in a WITH clause stands
for that query only inside its own WITH (in the query the WITH belongs to, and in the WITH's later entries),
so `... WHERE EXISTS (WITH finance_sar_reports AS (...) SELECT ...)` does not turn the outer
FINANCE_SAR_REPORTS into a harmless CTE. Every other table reference must be on the allowlist; data-dictionary
views, schema-qualified names and database links are refused even when listed.

It is the first layer; the second is the database session itself (`workshop.db.connect(readonly=True)`), so a
statement that slips past the guard still cannot write. The third is the per-call time limit
(`connection.call_timeout`, python-oracledb's round-trip limit: DPY-4024 when it runs out), so a cross join
cannot hold the tool for 38 seconds.
"""
from __future__ import annotations

from collections.abc import Iterable

import oracledb
import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

DEFAULT_MAX_ROWS = 50            # the MCP App caps maximumRows at 1..50
#: The time one query_finance call may take, in milliseconds (python-oracledb's `Connection.call_timeout`).
DEFAULT_CALL_TIMEOUT_MS = 5000
#: Write and DDL nodes (FOR UPDATE is not among them: it is the Select's "locks" argument, checked apart).
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter, exp.Command,
           exp.TruncateTable, exp.Grant) + tuple(getattr(exp, n) for n in ("Revoke", "Transaction",
                                                                                   "Commit", "Rollback")
                                                          if hasattr(exp, n))
_PACKAGES = ("DBMS_", "UTL_", "OWA_", "HTP", "HTF", "CTX_", "CTXSYS", "SYS")
_SYSTEM_FUNCTIONS = ("SYSDATE", "SYSTIMESTAMP", "SYS_CONTEXT", "SYS_GUID", "SYS_EXTRACT_UTC")
#: Data-dictionary and dynamic performance views (Oracle Database Reference, "Static Data Dictionary Views"
#: and "Dynamic Performance Views"): never data the agent's tool reads, allowlisted or not.
DICTIONARY_PREFIXES = ("USER_", "ALL_", "DBA_", "CDB_", "V$", "GV$", "V_$", "GV_$", "X$")
DICTIONARY_NAMES = frozenset({"DICTIONARY", "DICT", "TAB", "TABS", "COLS", "CAT", "OBJ", "SYN", "IND", "SEQ",
                              "SESSION_ROLES", "SESSION_PRIVS", "PRODUCT_COMPONENT_VERSION"})
#: Oracle built-ins sqlglot does not model (they parse as anonymous calls) and that read no table. Any other
#: unmodelled call may be a user-defined function, which runs with its owner's rights and can read any table,
#: so the guard refuses it.
BUILTIN_FUNCTIONS = frozenset({
    "NUMTODSINTERVAL", "NUMTOYMINTERVAL", "SYS_CONTEXT", "SYS_EXTRACT_UTC", "SYS_GUID", "BITAND", "JSON_QUERY",
    "RATIO_TO_REPORT", "ORA_HASH", "HEXTORAW", "RAWTOHEX", "TO_VECTOR", "VECTOR_DISTANCE", "VECTOR_NORM",
    "VECTOR_DIMENSION_COUNT", "COSINE_DISTANCE", "L1_DISTANCE", "L2_DISTANCE", "INNER_PRODUCT", "NLS_UPPER",
    "NLS_LOWER", "NLS_INITCAP", "NANVL", "REMAINDER", "TZ_OFFSET", "FROM_TZ", "NEW_TIME", "SESSIONTIMEZONE",
    "DBTIMEZONE", "TO_DSINTERVAL", "TO_YMINTERVAL", "TO_BINARY_DOUBLE", "TO_BINARY_FLOAT", "TO_CLOB", "TO_NCHAR",
    "LENGTHB", "SUBSTRB", "INSTRB", "REGEXP_INSTR", "COLLECT", "STATS_MODE"})


#: The statement kinds the guard accepts at the top: a SELECT, WITH ... SELECT, or a set operation of them.
QUERY_NODES = (exp.Select, exp.Union, exp.Intersect, exp.Except)
WRITE_NODES = _WRITES


class GuardRefused(ValueError):
    """The statement is not one read-only query over the allowlisted objects."""


def package_names(sql: str) -> list[str]:
    """Identifiers of the statement's tokens that name a system package. Read from the tokens, not the tree:
    sqlglot rewrites some calls (DBMS_RANDOM.VALUE becomes RAND()), and comments and strings are not tokens."""
    tokens = sqlglot.Dialect.get_or_raise("oracle").tokenize(sql)
    return [t.text.upper() for t in tokens
            if t.token_type not in (TokenType.STRING, TokenType.NATIONAL_STRING) and t.text.upper().startswith(_PACKAGES)
            and t.text.upper() not in _SYSTEM_FUNCTIONS]


def has_semicolon(sql: str) -> bool:
    """True when a ';' is a token of `sql`: one inside a string literal or a comment is not (it is data or text),
    so `SELECT ';' FROM dual` passes and `SELECT 1 FROM dual;` does not (cursor.execute takes no terminator)."""
    return any(t.token_type == TokenType.SEMICOLON for t in sqlglot.Dialect.get_or_raise("oracle").tokenize(sql))


def object_name(table: exp.Table) -> str:
    """The name Oracle looks up for `table`: an unquoted name in upper case, a quoted one exactly as written
    ("FINANCE_LOANS" and finance_loans are one table; "finance_loans" is another)."""
    ident = table.this
    if isinstance(ident, exp.Identifier):
        return ident.this if ident.quoted else ident.this.upper()
    return table.name.upper()


def cte_name(cte: exp.CTE) -> str:
    """The name a WITH entry defines, normalised like `object_name`."""
    alias = cte.args.get("alias")
    ident = alias.this if alias is not None else None
    if isinstance(ident, exp.Identifier):
        return ident.this if ident.quoted else ident.this.upper()
    return cte.alias_or_name.upper()


def _is_recursive(cte: exp.CTE) -> bool:
    """Oracle calls a WITH entry recursive when its body names itself, and then requires a column alias list
    (ORA-32039 otherwise): without one, a self-reference is not the CTE, so the guard does not treat it as one."""
    alias = cte.args.get("alias")
    return bool(alias is not None and alias.args.get("columns"))


def names_a_cte(table: exp.Table) -> bool:
    """True when `table`, at its place in the tree, names a WITH entry in scope (Oracle SQL Language Reference,
    SELECT, subquery_factoring_clause: a query name is visible in the query it belongs to and in the WITH's
    later entries; a recursive entry also sees itself). A CTE of a subquery is not visible outside it."""
    name = object_name(table)
    child, node = table, table.parent
    while node is not None:
        if isinstance(node, exp.With) and isinstance(child, exp.CTE):
            entries = list(node.expressions)
            position = next(i for i, e in enumerate(entries) if e is child)
            if any(cte_name(e) == name for e in entries[:position]):
                return True
            if cte_name(child) == name and _is_recursive(child):
                return True
        elif isinstance(node, exp.Query):
            with_ = node.args.get("with") or node.args.get("with_")
            if isinstance(with_, exp.With) and child is not with_ and any(cte_name(e) == name
                                                                           for e in with_.expressions):
                return True
        child, node = node, node.parent
    return False


def _refuse_table(table: exp.Table, permitted: set[str]) -> None:
    if not isinstance(table.this, exp.Identifier):
        if isinstance(table.this, exp.JSONTable):        # reads a column of a table named elsewhere (checked there)
            return
        raise GuardRefused(f"{table.sql(dialect='oracle')[:60]} is not a table: TABLE(), XMLTABLE and other "
                           "table functions are not allowed")
    if table.args.get("db") or table.args.get("catalog"):
        raise GuardRefused(f"schema-qualified {table.sql(dialect='oracle')} is not allowed: name the allowlisted "
                           "table without a schema")
    name = object_name(table)
    if "@" in name:
        raise GuardRefused(f"{name} goes through a database link; only local allowlisted tables are allowed")
    if name.upper().startswith(DICTIONARY_PREFIXES) or name.upper() in DICTIONARY_NAMES or "$" in name:
        raise GuardRefused(f"{name} is a data-dictionary view; the tool reads allowlisted tables only")
    if names_a_cte(table):
        return
    if name not in permitted:
        raise GuardRefused(f"{name} is not an allowlisted table or view (nor a WITH query in scope here)")


def _refuse_functions(tree: exp.Expression) -> None:
    for node in tree.walk():
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Func):
            raise GuardRefused(f"{node.sql(dialect='oracle')[:60]} calls a package or schema function; only "
                               "built-in functions are allowed")
        if isinstance(node, exp.Anonymous):
            name = str(node.this).upper()
            if name not in BUILTIN_FUNCTIONS:
                raise GuardRefused(f"{name}() is not a built-in function the guard knows; a user-defined function "
                                   "runs with its owner's rights and can read any table")


def guard_select(sql: str, allowed: Iterable[str]) -> exp.Expression:
    """The parsed statement when `sql` is one read-only query over `allowed` objects; GuardRefused otherwise."""
    if not isinstance(sql, str) or not sql.strip():
        raise GuardRefused("empty statement")
    try:
        statements = [s for s in sqlglot.parse(sql, read="oracle") if s is not None]
        semicolon = has_semicolon(sql)
    except sqlglot.errors.SqlglotError as error:
        raise GuardRefused(f"not parseable as Oracle SQL ({str(error).splitlines()[0][:80]})") from None
    if len(statements) != 1:
        raise GuardRefused(f"exactly one statement allowed, found {len(statements)}")
    if semicolon:
        raise GuardRefused("the statement contains a ';' outside strings and comments: send one statement "
                           "without a terminator, as cursor.execute needs (Oracle answers ORA-00933)")
    tree = statements[0]
    if not isinstance(tree, QUERY_NODES):
        raise GuardRefused(f"only SELECT or WITH ... SELECT is allowed, not {tree.key.upper()}")
    for node in tree.walk():
        if isinstance(node, _WRITES):
            raise GuardRefused(f"{node.key.upper()} is not allowed inside a query")
        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise GuardRefused("FOR UPDATE is not allowed: a read-only tool takes no row locks")
        if isinstance(node, exp.Hint):
            raise GuardRefused("optimizer hints are not allowed: the tool's queries do not steer the optimizer")
    for name in package_names(sql):
        raise GuardRefused(f"calls of {name} are not allowed")
    _refuse_functions(tree)
    permitted = {name.upper() for name in allowed} | {"DUAL"}
    for table in tree.find_all(exp.Table):
        _refuse_table(table, permitted)
    return tree


def capped_query(sql: str, allowed: Iterable[str]) -> str:
    """The guarded statement inside a bound row cap: the database, not Python, stops at :max_rows. Regenerated
    from the tree without comments, so nothing the statement's comments say reaches the database."""
    tree = guard_select(sql, allowed)
    return f"SELECT * FROM ({tree.sql(dialect='oracle', comments=False)}) FETCH FIRST :max_rows ROWS ONLY"


def run_readonly_query(conn: oracledb.Connection, sql: str, allowed: Iterable[str],
                       max_rows: int = DEFAULT_MAX_ROWS, *,
                       timeout_ms: int = DEFAULT_CALL_TIMEOUT_MS) -> list[dict]:
    """Guard, cap and run `sql` on `conn` (a read-only session) within `timeout_ms` (the connection's
    call_timeout for this call; DPY-4024 when it runs out); rows as dicts with lower-case keys."""
    if not isinstance(max_rows, int) or isinstance(max_rows, bool) or not 1 <= max_rows <= DEFAULT_MAX_ROWS:
        raise GuardRefused(f"max_rows must be an int from 1 to {DEFAULT_MAX_ROWS}, not {max_rows!r}")
    if not isinstance(timeout_ms, int) or isinstance(timeout_ms, bool) or timeout_ms <= 0:
        raise ValueError(f"timeout_ms must be a positive int, not {timeout_ms!r}")
    statement = capped_query(sql, allowed)
    previous = conn.call_timeout
    conn.call_timeout = timeout_ms
    try:
        with conn.cursor() as cur:
            cur.execute(statement, max_rows=max_rows)
            names = [d[0].lower() for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]
    finally:
        conn.call_timeout = previous
