"""The Oracle path's configuration is complete by test (issue 20, item 5): every ORACLE_* / WORKSHOP_* variable
the code reads is found by scanning the code with `ast` (not from a hand list), and each one that has no
working default must be set both in the Codespace's workspace service (.devcontainer/compose.yaml) and in the
CI Oracle job (.github/workflows/ci.yml). Then `connect(readonly=True)` runs with exactly the Codespace's
environment against a recording `oracledb.connect` and must return a session, not an error."""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import oracledb
import pytest

from tests.oracle.test_devcontainer_sync import compose, workflow
from workshop import db

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = ("ORACLE_", "WORKSHOP_")
SCANNED = ("workshop", "checkpoints")

#: Variables the scan finds that are read without a default argument, but whose absence the code handles on
#: purpose: each with the reason (a test fails if an entry is no longer read, so the table cannot go stale).
UNSET_WORKS = {
    "WORKSHOP_EMBEDDED_DB": "embedded engine only: unset means <WORKSHOP_STATE_DIR>/embedded/workshop.db",
    "WORKSHOP_PROGRESS_FILE": "unset: checkpoints log progress to the default file under the state folder",
    "WORKSHOP_CHECKPOINT_DEBUG": "unset: checkpoints show the learner-facing message only",
    "WORKSHOP_LLM_BASE_URL": "unset: part 07 uses its scripted planner",
    "WORKSHOP_LLM_MODEL": "unset: part 07 uses its scripted planner",
    "WORKSHOP_LLM_API_KEY": "unset: a chat endpoint without a key",
    "WORKSHOP_MY_NOTEBOOKS": "unset: the learner's copy is my-notebooks/ in the project folder",
    "WORKSHOP_PARTICIPANT": "unset: the progress export names the Codespace's GITHUB_USER, else the OS user",
}


@dataclass(frozen=True)
class Read:
    name: str
    where: str
    has_default: bool          # a default argument: .get(name, default) / getenv(name, default)


def _reads_in(path: Path, root: Path = ROOT) -> list[Read]:
    reads = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("get", "getenv") and isinstance(node.args[0].value, str):
                target = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
                if called == "getenv" or "env" in target.lower():
                    has_default = len(node.args) > 1 or any(k.arg == "default" for k in node.keywords)
                    reads.append(Read(node.args[0].value, f"{path.relative_to(root)}:{node.lineno}", has_default))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str) and "environ" in ast.unparse(node.value):
            reads.append(Read(node.slice.value, f"{path.relative_to(root)}:{node.lineno}", False))
    return [r for r in reads if r.name.startswith(PREFIXES)]


@functools.cache
def env_reads() -> tuple[Read, ...]:
    """Every read in the scanned packages (parsed once per session: the scan is the slow part)."""
    return tuple(r for folder in SCANNED for path in sorted((ROOT / folder).rglob("*.py")) for r in _reads_in(path))


def needs_a_value() -> set[str]:
    """Variables read somewhere without a default argument (one such read is enough: a default elsewhere does
    not help the code that has none) and not explained in UNSET_WORKS."""
    return {r.name for r in env_reads() if not r.has_default} - set(UNSET_WORKS)


def unset_in(env: dict) -> list[str]:
    return sorted(name for name in needs_a_value() if not str(env.get(name) or "").strip())


def codespace_env() -> dict[str, str]:
    return {k: str(v) for k, v in compose()["services"]["workspace"]["environment"].items()}


def ci_env() -> dict[str, str]:
    return {k: str(v) for k, v in workflow()["jobs"]["oracle"]["env"].items()}


def test_the_scan_finds_the_oracle_path_and_sees_defaults():
    reads = env_reads()
    names = {r.name for r in reads}
    assert {"ORACLE_DSN", "ORACLE_USER", "ORACLE_PASSWORD", "ORACLE_READONLY_USER", "ORACLE_READONLY_PASSWORD",
            "ORACLE_CONNECT_RETRIES", "WORKSHOP_STATE_DIR"} <= names
    assert {"ORACLE_DSN", "ORACLE_USER", "ORACLE_PASSWORD", "ORACLE_READONLY_USER",
            "ORACLE_READONLY_PASSWORD"} <= needs_a_value()
    assert "ORACLE_CONNECT_RETRIES" not in needs_a_value() and "WORKSHOP_STATE_DIR" not in needs_a_value()


def test_every_explained_default_is_still_read_and_none_hides_a_connection_setting():
    names = {r.name for r in env_reads()}
    assert set(UNSET_WORKS) <= names, set(UNSET_WORKS) - names
    assert not any(n.startswith("ORACLE_") for n in UNSET_WORKS)


@pytest.mark.parametrize("environment", [codespace_env, ci_env], ids=["codespace-workspace", "ci-oracle-job"])
def test_no_variable_without_a_working_default_is_left_unset(environment):
    assert unset_in(environment()) == []


@pytest.mark.parametrize("drop", ["ORACLE_READONLY_USER", "ORACLE_READONLY_PASSWORD", "ORACLE_DSN", "ORACLE_USER"])
def test_leaving_one_out_is_caught(drop):
    env = {k: v for k, v in codespace_env().items() if k != drop}
    assert unset_in(env) == [drop]
    assert unset_in({**codespace_env(), drop: " "}) == [drop]                    # blank counts as unset


def test_the_scanner_sees_every_form_of_read(tmp_path):
    source = tmp_path / "probe.py"
    source.write_text("import os\nfrom os import environ, getenv\n"
                      "a = os.environ['ORACLE_A']\nb = os.environ.get('ORACLE_B')\nc = getenv('WORKSHOP_C', 'x')\n"
                      "env = os.environ\nd = env.get('WORKSHOP_D')\ne = {'WORKSHOP_E': 1}.get('WORKSHOP_E')\n"
                      "f = os.environ.get('OTHER_F')\n")
    found = {(r.name, r.has_default) for r in _reads_in(source, tmp_path)}
    assert found == {("ORACLE_A", False), ("ORACLE_B", False), ("WORKSHOP_C", True), ("WORKSHOP_D", False)}


# --------------------------------------------------------------------------- connect(readonly=True) as shipped
class RecordingSession:
    current_schema = None


@pytest.mark.parametrize("environment", [codespace_env, ci_env], ids=["codespace-workspace", "ci-oracle-job"])
def test_connect_readonly_with_exactly_the_shipped_environment_opens_the_reader_session(monkeypatch, environment):
    env = environment()
    for name in list(__import__("os").environ):
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    calls = []

    def recording_connect(**kwargs):
        calls.append(kwargs)
        return RecordingSession()
    monkeypatch.setattr(oracledb, "connect", recording_connect)
    session = db.connect(readonly=True)
    assert isinstance(session, RecordingSession)
    assert calls == [{"user": env["ORACLE_READONLY_USER"], "password": env["ORACLE_READONLY_PASSWORD"],
                      "dsn": env["ORACLE_DSN"]}]
    assert session.current_schema == env["ORACLE_USER"]          # unqualified names resolve to the workshop's
    assert env["ORACLE_READONLY_USER"].upper() != env["ORACLE_USER"].upper()
