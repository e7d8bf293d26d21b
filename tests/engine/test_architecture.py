"""The engine's import architecture (.importlinter): the engine imports nothing from the lessons, the lessons
reach it only through workshop.db, no import cycle hides inside it (function-local imports count), its inside is
layered one way (door, plug-ins, executor, translation, functions and values) and the plug-ins reach the
executor only through its seam (hooks)."""
from __future__ import annotations

import importlib
import os
import sys
import re
import shutil
import textwrap
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def _lint(config: Path, cwd: Path) -> int:
    # A copy linted by an earlier test (another tmp_path) must not be found again through sys.modules or the
    # import system's caches: import-linter locates each root package with importlib.
    for name in [m for m in sys.modules if m.split(".")[0] in ("wscopy", "toy")]:
        del sys.modules[name]
    importlib.invalidate_caches()
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
    config = config.split("\n# The engine's inside")[0]            # the layer contracts have their own test below
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


# ---------------------------------------------------------------------- the engine's layers, on a copy of it
LAYERS = "The engine's inside is layered one way"
SEAM = "The plug-ins reach the executor only through its seam"
CYCLES = "No import cycles inside the embedded engine"
PLANTED = [
    # (case, module to write into, planted code, the one contract it must break; each plant makes no cycle)
    ("clean", None, "", None),
    ("values import the executor", "values.py", "\ndef _planted():\n    from . import statement\n", LAYERS),
    ("translation imports a plug-in", "translate.py", "\ndef _planted():\n    from . import graph\n", LAYERS),
    ("the executor imports a plug-in", "engine.py", "\ndef _planted():\n    from . import text_support\n", LAYERS),
    ("functions import translation", "functions/strings.py", "\ndef _planted():\n    from .. import translate\n",
     LAYERS),
    ("a module in no layer", "planted_new.py", "from . import values\n", LAYERS),
    ("a plug-in imports the executor", "model_support.py", "\ndef _planted():\n    from . import engine\n", SEAM),
    ("a plug-in package imports the executor", "hybrid/search.py", "\ndef _planted():\n    from .. import dml\n",
     SEAM),
    ("a type-checking import of the engine", "plsql.py",
     "\nimport typing\nif typing.TYPE_CHECKING:\n    from .engine import Engine as _Planted\n", CYCLES),
]


def _engine_copy(root: Path) -> Path:
    """workshop.embedded as it is, under the package name `wscopy` (the real `workshop` is imported in this
    process, and import-linter would find it instead), an empty module for every other name the contracts
    mention, and the repository's .importlinter renamed the same way. Returns the config's path."""
    target = root / "wscopy" / "embedded"
    shutil.copytree(ROOT / "workshop" / "embedded", target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for source in target.rglob("*.py"):
        source.write_text(source.read_text().replace("workshop.embedded", "wscopy.embedded"))
    (root / "wscopy" / "__init__.py").write_text("")
    (root / "checkpoints").mkdir()
    (root / "checkpoints" / "__init__.py").write_text("")
    text = ROOT.joinpath(".importlinter").read_text()
    for name in set(re.findall(r"\bworkshop\.([a-z_]+)\b", text)) - {"embedded"}:
        (root / "wscopy" / f"{name}.py").write_text("")
    config = root / ".importlinter"
    config.write_text(re.sub(r"\bworkshop\b", "wscopy", text))
    return config


@pytest.mark.parametrize("module,code,broken", [case[1:] for case in PLANTED], ids=[case[0] for case in PLANTED])
def test_the_engine_layers_break_on_a_planted_violation(tmp_path, monkeypatch, capsys, module, code, broken):
    """The repository's own contracts over a copy of the engine: kept as it is, and each planted import breaks
    the contract that forbids it (and, for the layers, no other reason)."""
    config = _engine_copy(tmp_path)
    if module:
        target = tmp_path / "wscopy" / "embedded" / module
        target.write_text((target.read_text() if target.exists() else "") + code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("COLUMNS", "400")                 # one line per contract in the report
    code_returned = _lint(config, tmp_path)
    report = capsys.readouterr().out
    # the report wraps long contract names at the console's width (80 under xdist, whatever COLUMNS says)
    flat = " ".join(report.split())
    names = [" ".join(line.split("=", 1)[1].split()) for line in config.read_text().splitlines()
             if line.startswith("name =")]
    broken_now = {name for name in names if f"{name} BROKEN" in flat}
    if broken is None:
        assert code_returned == 0 and not broken_now, report
    else:
        assert code_returned != 0 and [name for name in broken_now if name.startswith(broken)] \
            and len(broken_now) == 1, report
