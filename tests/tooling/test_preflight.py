"""What a learner meets before the first TODO: the notebooks' preflight cell, the doctor's advice, the connection
retries, the set-up script's output."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import oracledb
import pytest

from workshop import db, doctor
from workshop.config import PROJECT_ROOT
from workshop.doctor import RUN_RESET, RUN_SETUP, CheckResult, PreflightFailed, preflight
from workshop.embedded import connect


@pytest.fixture
def embedded(monkeypatch, tmp_path):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "workshop.db"))
    return tmp_path / "workshop.db"


def test_preflight_with_no_database_file_says_what_to_run_and_creates_nothing(embedded):
    with pytest.raises(PreflightFailed) as excinfo:
        preflight("01")
    lines = excinfo.value._render_traceback_()
    text = " ".join(" ".join(lines).split())
    assert lines[0] == "❌ preflight: the notebook cannot run yet"
    assert "-m workshop.setup" in text and "docs/troubleshooting.md" in text and "not set up yet" in text
    assert all(len(line) <= 100 for line in lines)
    assert not embedded.exists()


def test_preflight_on_an_empty_database_names_what_is_missing(embedded):
    connect(embedded).close()
    with pytest.raises(PreflightFailed, match="tables: missing: WORKSHOP_META.*embedding model: ALL_MINILM_L6_V2 is "
                                              "not in USER_MINING_MODELS"):
        preflight()


def test_preflight_with_a_closed_port_says_what_it_waits_for(monkeypatch):
    monkeypatch.setenv("ORACLE_DSN", "localhost:1/FREEPDB1")
    monkeypatch.setenv("ORACLE_USER", "u")
    monkeypatch.setenv("ORACLE_PASSWORD", "p")
    monkeypatch.setenv("ORACLE_CONNECT_RETRIES", "1")
    with pytest.raises(PreflightFailed, match="Could not connect to Oracle AI Database"):
        preflight()


def test_every_notebook_starts_with_the_preflight_and_links_the_troubleshooting_page():
    for path in sorted((PROJECT_ROOT / "solutions").glob("0[0-3]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert "preflight(" in first_code.source, path.name
        assert "docs/troubleshooting.md" in nb.cells[0].source, path.name
        assert (PROJECT_ROOT / "docs" / "troubleshooting.md").exists()


def test_connect_says_what_it_waits_for_on_each_retry():
    said, sleeps = [], []

    def opener(**kwargs):
        raise oracledb.OperationalError(FakeError("DPY-6005", 0))
    with pytest.raises(ConnectionError):
        db.connect_oracle(db.OracleSettings("h:1/S", "u", "p"), retries=3, sleep=sleeps.append, opener=opener,
                          say=said.append)
    assert len(said) == 2 == len(sleeps)
    assert said[0].startswith("waiting for Oracle AI Database at h:1/S (DPY-6005: nothing is listening")
    assert "attempt 1 of 3" in said[0] and "attempt 2 of 3" in said[1]


class FakeError:
    def __init__(self, full_code: str, code: int):
        self.full_code, self.code, self.message = full_code, code, f"{full_code}: cannot connect"

    def __str__(self) -> str:
        return self.message


def test_doctor_prints_the_pasteable_set_up_command_once():
    results = [CheckResult(name, False, "missing", RUN_SETUP) for name in ("tables", "indexes", "embedding model")]
    results.append(CheckResult("data version", False, "old", RUN_RESET))
    text = doctor.report(results)
    python = doctor.pasteable_python()
    assert text.count(f"{python} -m workshop.setup\n") + text.endswith(f"{python} -m workshop.setup") == 1
    assert text.count("-m workshop.setup --reset") == 1
    assert "tables, indexes, embedding model: the set-up creates or repairs these" in text
    assert "run: python -m" not in text


def test_set_up_script_does_not_build_an_editable_install_and_the_pth_puts_the_project_on_the_path(tmp_path):
    script = (PROJECT_ROOT / "scripts" / "setup.sh").read_text()
    commands = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    installer = (PROJECT_ROOT / "scripts" / "install_packages.sh").read_text()
    assert "bash scripts/install_packages.sh .venv/bin/python" in commands
    assert "uv pip install" in installer and "-r requirements.txt" in installer
    assert not re.search(r"pip install[^\n]*\s-e\s", commands + installer)
    snippet = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    site = tmp_path / "site"
    site.mkdir()
    code = snippet.replace('pathlib.Path(sysconfig.get_paths()["purelib"])', f"pathlib.Path({str(site)!r})")
    subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, check=True)
    probe = subprocess.run([sys.executable, "-S", "-c", f"import site; site.addsitedir({str(site)!r}); "
                            "import workshop.config; print(workshop.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert Path(probe.stdout.strip()).is_relative_to(PROJECT_ROOT)


def test_part_03_needs_only_the_model_its_notebook_creates_its_own_tables(embedded):
    connect(embedded).close()
    with pytest.raises(PreflightFailed) as excinfo:
        preflight("03")
    assert "tables" not in str(excinfo.value) and "ALL_MINILM_L6_V2 is not in USER_MINING_MODELS" in str(excinfo.value)


def test_preflight_shows_the_set_up_command_on_one_line_however_long_the_interpreter_path(tmp_path, monkeypatch):
    long_python = "/check/" + "deeply/nested/" * 8 + ".venv-ci/bin/python"
    monkeypatch.setattr(doctor, "pasteable_python", lambda: long_python)
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "missing.db"))
    with pytest.raises(doctor.PreflightFailed) as failure:
        doctor.preflight("01")
    shown = failure.value._render_traceback_()
    assert f"{doctor.COMMAND_INDENT}{long_python} -m workshop.setup" in shown
    assert all(len(line) <= 100 for line in shown if not line.startswith(doctor.COMMAND_INDENT))
