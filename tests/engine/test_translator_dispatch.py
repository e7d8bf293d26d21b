"""The translator's dispatch table (NODE_REWRITES, sqlglot's TRANSFORMS idiom): every node type the
parser produces from the workshop's own SQL has a rewrite or is a declared pass-through, so a new
construct cannot slip through to SQLite unconsidered."""
from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path

import pytest
from sqlglot import exp

from workshop.embedded import translate as T
from workshop.embedded.dialect import parse

ROOT = Path(__file__).resolve().parents[2]
_STATEMENT = re.compile(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE|MERGE)\b", re.I)

#: Parsed by sqlglot but never reaching the translator, or known gaps that SQLite rejects today.
NOT_TRANSLATED = {
    exp.Block: "a ';' between statements: Engine._execute rejects it before parsing (ORA-00933)",
    exp.Semicolon: "a trailing ';': Engine._execute rejects it before parsing (ORA-00933)",
    exp.Drop: "DROP is DDL (workshop.embedded.ddl), never translated; the harness's fuzz list stacks it after a SELECT",
}

#: Types the repo's SQL parses into that the engine rejects at run time with ORA-03001 naming them
#: (translate.check_constructs): the fuzz lists and the tests below send them on purpose.
REJECTED = set(T.UNSUPPORTED_CONSTRUCTS)


def _strings(source: str):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in test sources are not our concern here
            tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _STATEMENT.match(node.value):
            yield node.value


def _workshop_sql() -> list[str]:
    """Every SQL statement literal in the package, the checkpoints, the tests and the solution notebooks."""
    found: set[str] = set()
    for base in ("workshop", "checkpoints", "tests"):
        for path in (ROOT / base).rglob("*.py"):
            found.update(_strings(path.read_text(encoding="utf-8")))
    for notebook in (ROOT / "solutions").glob("*.ipynb"):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                found.update(_strings("".join(cell["source"])))
    return sorted(found)


def _handled(node_type: type) -> bool:
    return any(cls in T.NODE_REWRITES for cls in node_type.__mro__)


def _connect(tmp_path):
    from workshop.embedded import connect
    return connect(tmp_path / "dispatch.db")


def test_every_parsed_node_type_has_a_rewrite_or_is_a_declared_passthrough():
    statements = _workshop_sql()
    parsed = 0
    missing: dict[str, str] = {}
    for sql in statements:
        try:
            tree = parse(sql)
        except Exception:  # noqa: BLE001 - f-string templates and deliberately broken SQL
            continue
        parsed += 1
        if type(tree) in REJECTED:
            continue       # the whole statement is a construct check_constructs rejects (INSERT ALL)
        for dropped in [n for n in tree.walk() if isinstance(n, exp.Hint) or type(n) in REJECTED]:
            dropped.pop()  # hints are removed, rejected constructs never get past check_constructs
        for node in tree.walk():
            kind = type(node)
            if not (_handled(kind) or kind in T.PASSTHROUGH_NODES or kind in NOT_TRANSLATED):
                missing.setdefault(kind.__name__, sql[:100])
    assert parsed > 300, f"only {parsed} of {len(statements)} statements parsed: the corpus went missing"
    assert not missing, f"parsed node types with no handler (add one to NODE_REWRITES or PASSTHROUGH_NODES): {missing}"


def test_a_node_type_without_handler_is_reported():
    """The check above can fail: a type that is neither handled nor declared is caught."""
    class Novel(exp.Expression):
        pass
    assert not _handled(Novel) and Novel not in T.PASSTHROUGH_NODES


def test_passthrough_and_rewrites_do_not_overlap():
    assert not {t for t in T.PASSTHROUGH_NODES if t in T.NODE_REWRITES}


@pytest.mark.parametrize("sql, expected", [
    ("SELECT 'a' || 'b' FROM dual", "ORA_CONCAT"),
    ("SELECT 7 / 2 FROM dual", "ORA_DIV"),
    ("SELECT MOD(7, 2) FROM dual", "ORA_MOD"),
    ("SELECT DATE '2000-01-01' FROM dual", "ORA_TO_DATE"),
    ("SELECT TRIM(' a ') FROM dual", "ORA_TRIM_EX"),
])
def test_rewrites_come_from_the_table(tmp_path, sql, expected):
    from workshop.embedded import connect

    conn = connect(tmp_path / "dispatch.db")
    try:
        assert expected in conn._engine._translate_query_text(sql).sql
    finally:
        conn.close()


def test_rejected_constructs_are_neither_handled_nor_passed_through():
    """A rejected construct has no rewrite of its own; one that inherits a generic rewrite (XMLTABLE is a Func) is
    refused first by check_constructs, as the last case shows."""
    assert not {t for t in T.UNSUPPORTED_CONSTRUCTS if t in T.NODE_REWRITES or t in T.PASSTHROUGH_NODES}
    with pytest.raises(Exception, match="ORA-03001: unimplemented feature: XMLTABLE"):
        T.check_constructs(parse("SELECT x FROM XMLTABLE('/a' PASSING xmltype('<a/>') COLUMNS x VARCHAR2(10) "
                                 "PATH '.')"))


@pytest.mark.parametrize("sql, construct", [
    # sqlglot parses these and would drop them on the way to SQLite: PIVOT returned [('X',)] instead of [(1,)]
    ("SELECT * FROM dual PIVOT (COUNT(*) FOR dummy IN ('X'))", "PIVOT"),
    ("SELECT * FROM (SELECT 1 a, 2 b FROM dual) UNPIVOT (v FOR k IN (a, b))", "UNPIVOT"),
    ("SELECT * FROM dual SAMPLE (10)", "SAMPLE"),
    ("SELECT * FROM dual MATCH_RECOGNIZE (ORDER BY dummy MEASURES FIRST(dummy) AS f PATTERN (x+) "
     "DEFINE x AS dummy > 'A')", "MATCH_RECOGNIZE"),
    ("SELECT dummy, COUNT(*) FROM dual GROUP BY ROLLUP (dummy)", "ROLLUP"),
    ("SELECT dummy, COUNT(*) FROM dual GROUP BY CUBE (dummy)", "CUBE"),
    ("SELECT dummy, COUNT(*) FROM dual GROUP BY GROUPING SETS ((dummy), ())", "GROUPING SETS"),
    ("SELECT * FROM dual d CROSS APPLY (SELECT 1 FROM dual)", "APPLY"),
    ("SELECT * FROM dual AS OF TIMESTAMP SYSTIMESTAMP", "AS OF"),
    ("SELECT 1 FROM dual WHERE 1 > ANY (0, 2)", "ANY"),
    ("SELECT 1 FROM dual WHERE 1 = ALL (SELECT 1 FROM dual)", "ALL"),
    ("SELECT dummy FROM dual CONNECT BY PRIOR dummy = dummy ORDER SIBLINGS BY dummy", "ORDER SIBLINGS BY"),
    # (+) was dropped: the outer join silently became an inner join
    ("SELECT a.dummy FROM dual a, dual b WHERE a.dummy = b.dummy(+)", "(+)"),
    ("SELECT dummy FROM dual ORDER SIBLINGS BY dummy", "SIBLINGS"),
    ("UPDATE dual SET dummy = 'Y' WHERE 1 = ANY (SELECT 1 FROM dual)", "ANY"),
])
def test_an_unimplemented_construct_is_ora_03001_naming_it(tmp_path, sql, construct):
    import oracledb

    conn = _connect(tmp_path)
    try:
        with pytest.raises(oracledb.DatabaseError) as err:
            conn.cursor().execute(sql)
        assert "ORA-03001" in str(err.value) and construct in str(err.value), str(err.value)
    finally:
        conn.close()


def test_optimizer_hints_are_ignored_as_on_oracle(tmp_path):
    """Oracle ignores hints (a wrong hint never changes a result); they are comments to SQLite."""
    conn = _connect(tmp_path)
    try:
        assert conn.cursor().execute("SELECT /*+ FULL(d) NO_INDEX(d) */ dummy FROM dual d").fetchall() == [("X",)]
    finally:
        conn.close()
