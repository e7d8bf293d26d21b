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
    exp.Connect: "CONNECT BY: known gap, reaches SQLite and fails there (should be ORA-03001 naming it)",
    exp.Prior: "PRIOR (CONNECT BY): the same known gap",
}


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
