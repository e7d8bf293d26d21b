"""Whether OAMP can run here, the LLM settings, the doctor's check, and the static check of the notebook's OAMP
code against the installed package (runs only where the OAMP environment exists)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from workshop import doctor
from workshop.agent_memory import oamp
from workshop.config import PROJECT_ROOT

OAMP_PYTHON = next((p for p in (os.environ.get("OAMP_PYTHON"), PROJECT_ROOT / ".venv-oamp" / "bin" / "python",
                                "/tmp/oamp-venv/bin/python") if p and Path(p).exists()), None)
needs_oamp_env = pytest.mark.skipif(OAMP_PYTHON is None, reason="no OAMP environment: run scripts/setup_oamp_env.sh")


def test_the_embedded_engine_gives_the_one_reason(conn):
    reason = oamp.unavailable_reason(conn)
    assert reason.startswith("the embedded engine cannot run OAMP")
    assert not oamp.ready(conn)


def test_the_llm_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("OAMP_LLM_MODEL", raising=False)
    assert oamp.llm_settings() is None and "OAMP_LLM_MODEL" in oamp.llm_missing_reason()
    monkeypatch.setenv("OAMP_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("OAMP_LLM_API_KEY", "k")
    assert oamp.llm_settings() == {"model": "openai/gpt-4o-mini", "api_base": None, "api_key": "k"}
    assert oamp.llm_missing_reason() is None


def test_the_doctor_says_not_applicable_on_the_embedded_engine(conn):
    result = doctor.check_oamp(conn)
    assert result.ok and "not applicable" in result.detail
    assert "OAMP (part 08)" in [name for name, _, _ in doctor.CHECKS]


def test_the_doctor_finds_the_package_in_its_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OAMP_VENV", str(tmp_path))
    assert doctor.oamp_environment() is None
    (tmp_path / "lib" / "python3.11" / "site-packages" / "oracleagentmemory-26.6.0.dist-info").mkdir(parents=True)
    assert doctor.oamp_environment() == "26.6.0"


def test_the_main_environment_does_not_have_the_package():
    assert not oamp.package_installed()          # it needs oracledb<5: installing it here would break the pin


@needs_oamp_env
def test_the_notebooks_oamp_code_resolves_in_the_installed_package():
    run = subprocess.run([OAMP_PYTHON, "-m", "workshop.agent_memory.oamp_static"], cwd=PROJECT_ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "oamp static check OK: oracleagentmemory 26.6.0" in run.stdout


@needs_oamp_env
@pytest.mark.parametrize("old,new", [("search_index_sync=SearchIndexSyncMode.ON_COMMIT",
                                      "search_index_sync_mode=SearchIndexSyncMode.ON_COMMIT"),
                                     ("SearchStrategy.HYBRID, search_index_sync", "SearchStrategy.FUSED, search_index_sync"),
                                     ("thread.wait_for_memory_extraction()", "thread.wait_for_extraction()"),
                                     ("from oracleagentmemory.core.embedders import OracleDBEmbedder",
                                      "from oracleagentmemory.core.embedders import OracleEmbedder")])
def test_the_static_check_catches_a_wrong_api_name(tmp_path, old, new):
    notebook = tmp_path / "08.ipynb"
    text = (PROJECT_ROOT / "solutions" / "08_oracle_ai_agent_memory.ipynb").read_text(encoding="utf-8")
    assert old in text.replace("\\n", "\n").replace('\\"', '"')
    import json
    data = json.loads(text)
    for cell in data["cells"]:
        source = "".join(cell["source"])
        cell["source"] = source.replace(old, new)
    notebook.write_text(json.dumps(data), encoding="utf-8")
    run = subprocess.run([OAMP_PYTHON, "-m", "workshop.agent_memory.oamp_static", "--notebook", str(notebook)],
                         cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "MISSING" in run.stdout, run.stdout + run.stderr


def test_the_env_script_never_targets_the_main_venv():
    script = (PROJECT_ROOT / "scripts" / "setup_oamp_env.sh").read_text()
    assert 'VENV="${1:-.venv-oamp}"' in script and "-r requirements-oamp.txt" in script
    assert shutil.which("bash")
    requirements = (PROJECT_ROOT / "requirements-oamp.txt").read_text()
    pins = [line.split("==")[0] for line in requirements.splitlines() if line and not line.startswith("#")]
    assert "oracleagentmemory" in pins and "oracledb" not in pins and "langchain-oracledb" not in pins
