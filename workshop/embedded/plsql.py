"""Anonymous PL/SQL blocks, in the forms the workshop and langchain-oracledb use.

Supported: a BEGIN ... END block whose statements are `EXECUTE IMMEDIATE '<sql>'`, calls of
procedures the engine implements (`pkg.proc(args)` with positional or `name => value` args),
and `NULL`; an optional `EXCEPTION WHEN OTHERS THEN` handler that ignores given SQLCODEs
(`IF SQLCODE != -942 THEN RAISE; END IF;`, `... NOT IN (-942, -955) ...`, or `NULL;`).
Anything else raises ORA-03001 naming what was found.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import oracledb

from . import errors, readonly
from .functions.datetimes import new_statement_clock
from .lexing import code_mask, split_top_level, strip_comments
from .statement import Result
from .translate import unsupported
from .values import python_value

if TYPE_CHECKING:
    from .hooks import EngineAPI as Engine


def _split_statements(body: str) -> list[str]:
    """Split a block body on top-level semicolons (strings and parentheses respected)."""
    return split_top_level(body, ";")


_HANDLER_IGNORE = [
    re.compile(r"(?is)^WHEN\s+OTHERS\s+THEN\s+NULL$"),
]
_HANDLER_CODES = [
    re.compile(r"(?is)^WHEN\s+OTHERS\s+THEN\s+IF\s+SQLCODE\s*(?:!=|<>|\^=)\s*(-?\d+)\s+THEN\s+RAISE\s*;\s*END\s+IF$"),
    re.compile(r"(?is)^WHEN\s+OTHERS\s+THEN\s+IF\s+SQLCODE\s+NOT\s+IN\s*\(([-\d,\s]+)\)\s+THEN\s+RAISE\s*;\s*END\s+IF$"),
    re.compile(r"(?is)^WHEN\s+OTHERS\s+THEN\s+IF\s+SQLCODE\s*=\s*(-?\d+)\s+THEN\s+NULL\s*;\s*ELSE\s+RAISE\s*;\s*END\s+IF$"),
    re.compile(r"(?is)^WHEN\s+OTHERS\s+THEN\s+IF\s+SQLCODE\s+IN\s*\(([-\d,\s]+)\)\s+THEN\s+NULL\s*;\s*ELSE\s+RAISE\s*;\s*END\s+IF$"),
]


def _parse_block(sql: str) -> tuple[list[str], set[int] | None]:
    text = strip_comments(sql).strip().rstrip("/").strip()
    masked = code_mask(text)
    if re.match(r"(?is)^DECLARE\b", masked):
        raise unsupported("PL/SQL DECLARE section")
    m = re.match(r"(?is)^BEGIN\b(.*)\bEND\s*;?\s*$", masked)
    if not m:
        raise errors.EngineError(6550, "PLS-00103: Encountered the symbol \"end-of-file\" (block not terminated)")
    body = text[m.start(1):m.end(1)]
    body_masked = masked[m.start(1):m.end(1)]
    ignored: set[int] | None = set()
    exc = re.search(r"(?is)\bEXCEPTION\b", body_masked)
    if exc:
        handler = re.sub(r"\s+", " ", body[exc.end():].strip().rstrip(";").strip())
        body = body[:exc.start()]
        if any(p.match(handler) for p in _HANDLER_IGNORE):
            ignored = None
        else:
            for pattern in _HANDLER_CODES:
                hm = pattern.match(handler)
                if hm:
                    ignored = {abs(int(c)) for c in re.findall(r"-?\d+", hm.group(1))}
                    break
            else:
                raise unsupported(f"PL/SQL exception handler '{handler[:60]}'")
    return _split_statements(body), ignored


def run_block(engine: "Engine", sql: str, binds: Any) -> "Result":
    statements, ignored = _parse_block(sql)
    if isinstance(binds, (list, tuple)) and binds:
        binds = _positional_binds(sql, binds)
    try:
        for statement in statements:
            _run_statement(engine, statement, binds)
    except oracledb.DatabaseError as exc:
        code = exc.args[0].code
        if ignored is None or code in (ignored or set()):
            return Result()
        raise
    return Result()


def _positional_binds(sql: str, binds: Any) -> dict:
    """Positional binds of a PL/SQL block -> by name: python-oracledb binds PL/SQL by distinct name,
    in order of first appearance."""
    from .lexing import bind_names
    names = bind_names(sql)
    if len(names) != len(binds):
        raise errors.EngineError(1008, "not all variables bound")
    return dict(zip(names, binds))


def _run_statement(engine: "Engine", statement: str, binds: Any) -> None:
    masked = code_mask(statement)
    if re.fullmatch(r"(?is)\s*NULL\s*", masked):
        return
    m = re.match(r"(?is)^\s*EXECUTE\s+IMMEDIATE\s+", masked)
    if m:
        literal = statement[m.end():].strip()
        if not (literal.startswith("'") and literal.endswith("'")):
            raise unsupported("EXECUTE IMMEDIATE with a non-literal statement")
        inner = literal[1:-1].replace("''", "'")
        result_error = None
        new_statement_clock()       # each SQL statement of a block reads the clock afresh, as on Oracle
        try:
            engine._execute(inner, None, None)
        except errors.EngineError as exc:
            result_error = exc.to_oracle()
        if result_error is not None:
            raise result_error
        return
    m = re.match(r"(?is)^\s*([A-Za-z_][\w$#]*(?:\s*\.\s*[A-Za-z_][\w$#]*)*)\s*(\((.*)\))?\s*$", statement)
    if not m:
        raise unsupported(f"PL/SQL statement '{statement[:60]}'")
    name = re.sub(r"\s+", "", m.group(1)).upper()
    procedure = engine.hooks.procedures.get(name[4:] if name.startswith("SYS.") else name)
    if engine.readonly:    # before the arguments are evaluated: a refused call has no effect at all
        readonly.refuse_procedure(name, builtin=procedure is not None)
    if procedure is None and engine.hooks.user_procedure is not None:
        procedure = engine.hooks.user_procedure(name)
    if procedure is None:
        raise errors.EngineError(6550, f"PLS-00201: identifier '{name}' must be declared "
                                       f"(not available in the embedded engine)")
    args, kwargs = _evaluate_args(engine, m.group(3) or "", binds)
    if name in DDL_PROCEDURES:
        engine.run_as_ddl(lambda: procedure(engine, *args, **kwargs))
    else:
        procedure(engine, *args, **kwargs)


#: Supplied procedures that do DDL (they create or drop dictionary objects: preferences, models, policies): like
#: DDL they commit the session's transaction before they run and their own work after, and leave no transaction
#: open when they fail (SQL Language Reference, "Types of SQL Statements" > DDL: "Oracle Database implicitly commits
#: the current transaction before and after every DDL statement").
DDL_PROCEDURES = frozenset({
    "DBMS_VECTOR_CHAIN.CREATE_PREFERENCE", "DBMS_VECTOR_CHAIN.DROP_PREFERENCE", "DBMS_VECTOR.LOAD_ONNX_MODEL",
    "DBMS_VECTOR.DROP_ONNX_MODEL", "DBMS_DATA_MINING.IMPORT_ONNX_MODEL", "DBMS_DATA_MINING.DROP_MODEL",
    "DBMS_RLS.ADD_POLICY", "DBMS_RLS.DROP_POLICY", "DBMS_RLS.ENABLE_POLICY",
})


def _evaluate_args(engine: "Engine", text: str, binds: Any) -> tuple[list, dict]:
    """Evaluate each argument expression with the statement's binds (SELECT expr FROM DUAL)."""
    args, kwargs = [], {}
    parts = split_top_level(text) if text.strip() else []
    for part in parts:
        nm = re.match(r"(?is)^\s*([A-Za-z_][\w$#]*)\s*=>\s*(.*)$", part)
        name, expr = (nm.group(1).lower(), nm.group(2)) if nm else (None, part)
        value = _evaluate(engine, expr, binds)
        if name:
            kwargs[name] = value
        else:
            args.append(value)
    return args, kwargs


def _evaluate(engine: "Engine", expr: str, binds: Any) -> Any:
    stripped = expr.strip()
    if re.fullmatch(r"(?i)TRUE|FALSE", stripped):
        return stripped.upper() == "TRUE"
    constant = engine.hooks.plsql_constants.get(re.sub(r"\s+", "", stripped).upper())
    if constant is not None:
        return constant
    from .lexing import bind_names
    names = bind_names(stripped)
    if isinstance(binds, dict):
        given = {str(k).upper(): v for k, v in binds.items()}
        local = {n: given[n] for n in names if n in given}
        if len(local) != len(names):
            raise errors.EngineError(1008, "not all variables bound")
        if len(names) == 1 and re.fullmatch(r":\s*\w+", stripped):
            return local[names[0]]
    elif binds:
        raise unsupported("positional binds in a PL/SQL call (use named binds)")
    else:
        local = {}
    result = engine._execute(f"SELECT {stripped} FROM DUAL", local, None)
    return python_value(result.rows[0][0], result.column_types[0] if result.column_types else None)
