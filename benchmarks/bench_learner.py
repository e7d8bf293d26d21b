"""The learner's clock: how long the set-up, every checkpoint and every notebook take, as a room feels them.

Measures, on private copies (the learner's own database and progress file are never touched):

* the database part of the set-up, fresh (an empty state folder with the built ONNX models copied in, so the
  number is the database's work, not the model build) and repeated (a second run on the result);
* every solution notebook run top to bottom in a fresh kernel (nbclient, the embedded engine), its total and its
  slowest cells;
* every checkpoint cell's latency on the solution: the cell runs right after its TODO as in the notebook, then
  again `--repeats - 1` times in the same place; the p50 and the worst of those calls.

Prints one table per measure and, with --json FILE, writes them for the docs (docs/facilitator.md quotes it).

    .venv/bin/python benchmarks/bench_learner.py                 # everything (about 6 minutes on 2 cores)
    .venv/bin/python benchmarks/bench_learner.py --parts 04 05   # some notebooks; --skip-setup to leave it out
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workshop import config  # noqa: E402
from workshop.db import copy_embedded_database  # noqa: E402
from workshop.notebooks.build import tags_of  # noqa: E402
from workshop.notebooks.execute import KernelSession  # noqa: E402
from workshop.notebooks.markup import TAG_CHECKPOINT  # noqa: E402

TARGETS = {"checkpoint_p50_s": 1.0, "notebook_s": 30.0, "notebook_06_s": 45.0, "all_notebooks_s": 240.0,
           "setup_database_s": 30.0}


@dataclass
class CellTime:
    index: int
    first_line: str
    seconds: float


@dataclass
class NotebookTime:
    notebook: str
    seconds: float
    errors: list[str]
    slowest: list[CellTime]
    checkpoints: list[dict] = field(default_factory=list)


def first_line(source: str) -> str:
    lines = [line.strip() for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]
    return (lines[0] if lines else source.strip().splitlines()[0] if source.strip() else "")[:60]


def checkpoint_name(source: str) -> str:
    import re
    found = re.search(r"check_(\w+)\(", source)
    return found[1] if found else "?"


def time_setup(python: str) -> dict:
    """The database part of the set-up in a scratch state folder: fresh, then repeated."""
    with tempfile.TemporaryDirectory(prefix="bench-setup-") as scratch:
        state = Path(scratch)
        models = config.state_dir() / "models"
        if models.exists():
            shutil.copytree(models, state / "models")
        env = {**os.environ, "WORKSHOP_STATE_DIR": str(state), "WORKSHOP_PROGRESS_FILE": "off"}
        env.pop("WORKSHOP_EMBEDDED_DB", None)
        env.pop("ORACLE_DSN", None)
        times = {}
        for label in ("fresh", "repeated"):
            start = time.perf_counter()
            done = subprocess.run([python, "-m", "workshop.setup"], env=env, capture_output=True, text=True)
            times[label] = time.perf_counter() - start
            if done.returncode:
                sys.exit(f"set-up failed ({label}):\n{done.stdout}\n{done.stderr}")
        return {"fresh_s": times["fresh"], "repeated_s": times["repeated"],
                "models_built": not models.exists()}


def time_notebook(path: Path, repeats: int, timeout: int = 600) -> NotebookTime:
    """Run a solution notebook cell by cell in a fresh kernel; checkpoint cells run `repeats` times in place."""
    cells: list[CellTime] = []
    checkpoints: list[dict] = []
    errors: list[str] = []

    def one_cell(session: KernelSession, index: int) -> float:
        started = time.perf_counter()
        failed = session.run(start=index, stop=index + 1)
        if failed:
            errors.append(f"cell {index + 1}: {failed[0].ename}: {failed[0].evalue[:160]}")
        return time.perf_counter() - started

    with KernelSession(path, cwd=path.parent, timeout=timeout) as session:
        for index, cell in enumerate(session.nb.cells):
            if cell.cell_type != "code":
                continue
            elapsed = one_cell(session, index)
            if errors:
                break
            cells.append(CellTime(index + 1, first_line(cell.source), elapsed))
            if TAG_CHECKPOINT in tags_of(cell):
                calls = [elapsed] + [one_cell(session, index) for _ in range(repeats - 1)]
                checkpoints.append({"notebook": path.name, "todo": checkpoint_name(cell.source),
                                    "p50_s": statistics.median(calls), "max_s": max(calls), "calls": len(calls)})
    total = sum(c.seconds for c in cells)
    return NotebookTime(path.name, total, errors, sorted(cells, key=lambda c: -c.seconds)[:3], checkpoints)


def print_tables(setup: dict | None, notebooks: list[NotebookTime]) -> None:
    import pandas as pd

    pd.set_option("display.width", 200)
    pd.set_option("display.max_colwidth", 70)
    if setup:
        print(f"set-up, database part (models {'built' if setup['models_built'] else 'cached'}): fresh "
              f"{setup['fresh_s']:.1f} s (target {TARGETS['setup_database_s']:.0f} s), repeated "
              f"{setup['repeated_s']:.1f} s\n")
    rows = []
    for nb in notebooks:
        target = TARGETS["notebook_06_s"] if nb.notebook.startswith("06") else TARGETS["notebook_s"]
        rows.append({"notebook": nb.notebook, "seconds": round(nb.seconds, 1), "target": target,
                     "meets": "yes" if nb.seconds <= target and not nb.errors else "NO",
                     "slowest cells": "; ".join(f"#{c.index} {c.seconds:.1f}s {c.first_line}" for c in nb.slowest),
                     "errors": "; ".join(nb.errors)})
    if rows:
        total = sum(nb.seconds for nb in notebooks)
        print(pd.DataFrame(rows).to_string(index=False))
        print(f"\nall notebooks: {total:.0f} s (target {TARGETS['all_notebooks_s']:.0f} s)\n")
    checks = [c for nb in notebooks for c in nb.checkpoints]
    if checks:
        frame = pd.DataFrame(checks).sort_values("p50_s", ascending=False)
        frame["meets"] = ["yes" if p <= TARGETS["checkpoint_p50_s"] else "NO" for p in frame["p50_s"]]
        frame["p50_s"] = frame["p50_s"].round(3)
        frame["max_s"] = frame["max_s"].round(3)
        print(frame.to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="*", help="only these parts (00 01 ...)")
    parser.add_argument("--repeats", type=int, default=3, help="calls of each checkpoint cell (p50 over them)")
    parser.add_argument("--skip-setup", action="store_true", help="leave out the set-up timing")
    parser.add_argument("--json", metavar="FILE", help="also write the measurements as JSON")
    args = parser.parse_args()

    setup = None if args.skip_setup else time_setup(sys.executable)
    notebooks = []
    solutions = sorted((config.PROJECT_ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    source = config.embedded_db_path()
    with tempfile.TemporaryDirectory(prefix="bench-learner-") as scratch:
        os.environ["WORKSHOP_PROGRESS_FILE"] = str(Path(scratch) / "progress.json")
        for path in solutions:
            if args.parts and path.name[:2] not in args.parts:
                continue
            os.environ["WORKSHOP_EMBEDDED_DB"] = str(source)
            db = copy_embedded_database(Path(scratch) / f"{path.stem}.db")
            os.environ["WORKSHOP_EMBEDDED_DB"] = str(db)
            os.environ.pop("ORACLE_DSN", None)
            notebooks.append(time_notebook(path, args.repeats))
            db.unlink(missing_ok=True)
            print(f"  {path.name}: {notebooks[-1].seconds:.1f} s", file=sys.stderr)
    print_tables(setup, notebooks)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "measured_at": time.strftime("%Y-%m-%d %H:%M"), "engine": "embedded",
            "load_average": os.getloadavg()[0], "cores": os.cpu_count(), "setup": setup, "targets": TARGETS,
            "notebooks": [asdict(nb) for nb in notebooks]}, indent=1))


if __name__ == "__main__":
    main()
