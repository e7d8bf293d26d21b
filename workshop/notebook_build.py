"""`python -m workshop.notebook_build`: write the student notebooks (notebooks/) from solutions/.

    python -m workshop.notebook_build            # build: write changed notebooks, remove orphans
    python -m workshop.notebook_build --check    # exit 1 listing missing, stale, orphan or leaking notebooks
    python -m workshop.notebook_build --list     # the TODOs of every solution notebook, with their hints
    python -m workshop.notebook_build --verify-stubs  # run each student notebook: it must stop at TODO 1's
                                                      # checkpoint with a friendly CheckpointFailed

Exit status: 0 fine; 1 --check or --verify-stubs found problems (markup errors included); 2 markup
errors stopped a build or --list (nothing is written then).
The conventions are in docs/authoring-notebooks.md.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .config import PROJECT_ROOT
from .notebooks import MarkupError, build_folder, check_folder, list_todos, solution_files


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workshop.notebook_build",
                                     description="Generate student notebooks from solution notebooks.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if notebooks/ drifted or leaks")
    mode.add_argument("--list", action="store_true", help="print the TODOs of every solution notebook")
    mode.add_argument("--verify-stubs", action="store_true",
                      help="execute every student notebook; each must first fail at TODO 1's checkpoint")
    parser.add_argument("--solutions", type=Path, default=PROJECT_ROOT / "solutions", help="solution notebooks folder")
    parser.add_argument("--notebooks", type=Path, default=PROJECT_ROOT / "notebooks", help="student notebooks folder")
    args = parser.parse_args(argv)

    if args.check:
        problems = check_folder(args.solutions, args.notebooks)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} problem(s). Regenerate with: python -m workshop.notebook_build")
            return 1
        print(f"notebooks/ is in sync with solutions/ ({len(solution_files(args.solutions))} notebooks)")
        return 0
    if args.verify_stubs:
        return _verify_stubs(args.notebooks)
    try:
        if args.list:
            for solution in solution_files(args.solutions):
                print(_relative(solution))
                for todo in list_todos(solution, _relative(solution)):
                    hints = " | ".join(h for h in todo.hints if h) or "(no hint)"
                    print(f"  TODO {todo.number} {todo.name} ({todo.check_function}): cell {todo.cell_index + 1} "
                          f"(id {todo.cell_id}), checkpoint cell {todo.checkpoint_index + 1}: {hints}")
            return 0
        report = build_folder(args.solutions, args.notebooks)
    except MarkupError as exc:
        print(f"solution markup errors, nothing written:\n{exc}", file=sys.stderr)
        return 2
    for path in report.written:
        print(f"wrote {_relative(path)}")
    for path in report.removed:
        print(f"removed {_relative(path)} (no solution notebook)")
    print(f"{len(report.written)} written, {len(report.unchanged)} unchanged, {len(report.removed)} removed")
    return 0


def _verify_stubs(notebooks_dir: Path) -> int:
    from .notebooks.execute import execute, stub_contract_problems
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))
    failures = 0
    for notebook in solution_files(notebooks_dir):
        nb, errors = execute(notebook, cwd=notebook.parent)
        problems = stub_contract_problems(nb, errors)
        failures += len(problems)
        for problem in problems:
            print(f"{_relative(notebook)}: {problem}")
        if not problems:
            print(f"{_relative(notebook)}: ok (stops at the TODO 1 checkpoint)" if errors else
                  f"{_relative(notebook)}: ok (no TODOs)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
