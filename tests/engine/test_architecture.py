"""The engine's import architecture (.importlinter): the engine imports nothing from the lessons, the lessons
reach it only through workshop.db, and no import cycle hides inside it (function-local imports count)."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def _lint(config: Path, cwd: Path) -> int:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    finally:
        os.chdir(old)


def test_the_repository_keeps_every_import_contract(capsys):
    code = _lint(ROOT / ".importlinter", ROOT)
    assert code == 0, capsys.readouterr().out


@pytest.mark.parametrize("kind", ["clean", "cycle", "engine_imports_lesson", "lesson_imports_engine"])
def test_each_contract_breaks_on_a_planted_violation(tmp_path, monkeypatch, kind):
    """The same contracts over a toy package: kept when clean, broken by each planted violation."""
    pkg = tmp_path / "toy"
    (pkg / "embedded").mkdir(parents=True)
    (pkg / "memory").mkdir()
    for init in (pkg, pkg / "embedded", pkg / "memory"):
        (init / "__init__.py").write_text("")
    for name in ("retrieval", "knowledge", "pipeline", "evaluation", "agent_memory", "display", "setup", "schema", "doctor", "reset",
                 "notebooks", "notebook_build", "verify_oracle", "oracle_grants"):
        (pkg / f"{name}.py").write_text("")
    (pkg / "db.py").write_text("def connect():\n    from .embedded import engine\n    return engine\n")
    engine = "from . import plsql\n"
    plsql = "def run():\n    from . import engine\n" if kind == "cycle" else ""
    if kind == "engine_imports_lesson":
        engine += "from toy.memory import store\n"
    (pkg / "embedded" / "engine.py").write_text(engine)
    (pkg / "embedded" / "plsql.py").write_text(plsql)
    store = "from toy.embedded import engine\n" if kind == "lesson_imports_engine" else "from toy import db\n"
    (pkg / "memory" / "store.py").write_text(store)
    config = ROOT.joinpath(".importlinter").read_text()
    config = config.replace("workshop.", "toy.").replace("    workshop\n    checkpoints\n", "    toy\n")
    config = "\n".join(line for line in config.splitlines() if line.strip() != "checkpoints")
    toy_config = tmp_path / ".importlinter"
    toy_config.write_text(textwrap.dedent(config))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert (_lint(toy_config, tmp_path) == 0) == (kind == "clean")


def test_the_engine_core_knows_no_plugin(tmp_path):
    """Without plug-ins the engine runs plain SQL and refuses a plug-in's statement with ORA-03001."""
    import oracledb

    from workshop.embedded.engine import Engine

    engine = Engine(tmp_path / "core.db")
    try:
        assert engine.execute("SELECT 1 FROM dual").rows == [(1,)]
        with pytest.raises(oracledb.DatabaseError, match="ORA-03001"):
            engine.execute("CREATE PROPERTY GRAPH g VERTEX TABLES (t)")
    finally:
        engine.close()


def test_each_engine_owns_its_hooks_and_every_plugin_fills_them(tmp_path):
    from workshop.embedded import connect
    from workshop.embedded.extensions import PLUGINS

    assert len({p.name for p in PLUGINS}) == len(PLUGINS)
    first, second = connect(tmp_path / "a.db"), connect(tmp_path / "b.db")
    try:
        hooks = first._engine.hooks
        assert hooks is not second._engine.hooks
        assert hooks.procedures is not second._engine.hooks.procedures
        assert {"CTX_DDL.SYNC_INDEX", "DBMS_RLS.ADD_POLICY", "DBMS_VECTOR.LOAD_ONNX_MODEL",
                "DBMS_VECTOR_CHAIN.CREATE_PREFERENCE", "DBMS_STATS.GATHER_TABLE_STATS"} <= set(hooks.procedures)
        assert len(hooks.on_drop_table) == 3 and len(hooks.on_commit) == 2 and len(hooks.before_write) == 1
        assert hooks.statement_handler("CREATE PROPERTY GRAPH") is not None
        assert hooks.statement_handler("CREATE OR REPLACE CONTEXT") is not None
        assert hooks.statement_handler("CREATE SYNONYM") is None
    finally:
        first.close()
        second.close()
