"""The two long runs of `python -m workshop.verify_oracle --full`: every solution notebook in a real kernel
(nbclient, as the embedded CI runs them; the kernel inherits ORACLE_DSN) and the tests marked `oracle` (a
child pytest writing JUnit XML). Each becomes report lines: one per notebook, and one per failing test plus a
summary, each failure with what to look at.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from . import config
from .verify_oracle import Step

NOTEBOOK_SECTION = "12 notebooks"
TESTS_SECTION = "14 tests marked oracle"
#: A cell may wait for a model load or an index build on a busy runner.
CELL_TIMEOUT = 900

Executor = Callable[[Path], list]          # path -> the errors its run raised (workshop.notebooks.execute.CellError)


def _execute(path: Path) -> list:
    from .notebooks.execute import execute
    _, errors = execute(path, cwd=config.PROJECT_ROOT, allow_errors=False, timeout=CELL_TIMEOUT)
    return errors


def solution_notebooks() -> list[Path]:
    return sorted((config.PROJECT_ROOT / "solutions").glob("*.ipynb"))


def notebook_steps(executor: Executor = _execute, paths: list[Path] | None = None) -> list[Step]:
    """Run each solution notebook top to bottom; PASS when no cell raised, else the first error and where."""
    steps = []
    for path in paths if paths is not None else solution_notebooks():
        started = time.perf_counter()
        try:
            errors = executor(path)
        except Exception as exc:  # a kernel that died or timed out is a line of the report, not a crash
            steps.append(Step(NOTEBOOK_SECTION, path.name, "FAIL", f"{type(exc).__name__}: {str(exc)[:300]}",
                              "the kernel did not finish: run the notebook by hand on this database"))
            continue
        seconds = time.perf_counter() - started
        if not errors:
            steps.append(Step(NOTEBOOK_SECTION, path.name, "PASS", f"every cell ran ({seconds:.0f} s)"))
            continue
        first = errors[0]
        part = path.name[:2]
        steps.append(Step(NOTEBOOK_SECTION, path.name, "FAIL",
                          f"cell {first.index + 1} ({first.cell_id}): {first.ename}: {first.evalue[:300]}",
                          f"the cell's SQL or call behaves differently on Oracle: find {first.ename} in "
                          f"docs/troubleshooting.md (Part {part}); if it is not there, the embedded engine "
                          "differs from Oracle here: paste this line into an issue"))
    return steps


Runner = Callable[..., subprocess.CompletedProcess]


def oracle_test_steps(runner: Runner = subprocess.run) -> list[Step]:
    """`pytest -m oracle tests` in a child process; one line per failing test and a summary line."""
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "oracle-tests.xml"
        done = runner([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", "-m",
                       "oracle", f"--junitxml={junit}", "tests"], cwd=config.PROJECT_ROOT, capture_output=True,
                      text=True)
        if not junit.exists():
            tail = ((done.stdout or "") + (done.stderr or "")).strip().splitlines()[-1:] or ["(no output)"]
            return [Step(TESTS_SECTION, "pytest -m oracle tests", "FAIL", f"no report (exit {done.returncode}): "
                                                                          f"{tail[0][:300]}",
                         "run .venv/bin/python -m pytest -m oracle tests by hand and read the error")]
        return junit_steps(junit.read_text(encoding="utf-8"), done.returncode)


def junit_steps(xml: str, returncode: int) -> list[Step]:
    """Report lines from pytest's JUnit XML."""
    root = ET.fromstring(xml)
    cases = list(root.iter("testcase"))
    steps, counts = [], {"passed": 0, "failed": 0, "skipped": 0}
    for case in cases:
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        if problem is not None:
            counts["failed"] += 1
            message = (problem.get("message") or problem.text or "").strip().splitlines()
            steps.append(Step(TESTS_SECTION, test, "FAIL", message[0][:300] if message else "failed",
                              "read the test's docstring: it names the claim about Oracle that failed"))
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    ok = returncode == 0 and counts["failed"] == 0 and bool(cases)
    summary = Step(TESTS_SECTION, "pytest -m oracle tests", "PASS" if ok else "FAIL",
                   ", ".join(f"{n} {k}" for k, n in counts.items()) + f" (exit {returncode})",
                   "" if ok else "see the failing tests above" if counts["failed"] else
                   "no test ran: are the tests marked oracle collected (ORACLE_DSN set)?")
    return [*steps, summary]
