"""The learner's working copy of the series: `my-notebooks/`, copied from the generated `notebooks/`.

JupyterLab's autosave writes a learner's answers into whatever notebook is open. When that was a tracked
`notebooks/*.ipynb`, `git pull` conflicted and the test suite reported the learner's own code as "leaks solution
text" (issue 21). So the series is opened from a git-ignored copy: the set-up (`python -m workshop.setup`) and
`python -m workshop.working_copy` copy every student notebook that is missing there, and never overwrite one that
exists (it holds the learner's work). A notebook that changed upstream is reported, not replaced.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from workshop import config

FIRST_NOTEBOOK = "00_setup_and_orientation.ipynb"


def shipped_dir() -> Path:
    return config.PROJECT_ROOT / "notebooks"


def make_working_copy(source: Path | None = None, target: Path | None = None) -> list[str]:
    """Copy each `NN_*.ipynb` of `source` (notebooks/) that `target` (my-notebooks/) lacks; keep every file that is
    there. Returns one line per notebook: copied, yours (kept), or yours and the shipped one changed since."""
    source, target = Path(source or shipped_dir()), Path(target or config.working_copy_dir())
    target.mkdir(parents=True, exist_ok=True)
    lines = []
    for shipped in sorted(source.glob("[0-9][0-9]_*.ipynb")):
        mine = target / shipped.name
        if not mine.exists():
            shutil.copyfile(shipped, mine)
            lines.append(f"copied  {mine.name}")
        elif shipped.stat().st_mtime > mine.stat().st_mtime and shipped.read_bytes() != mine.read_bytes():
            lines.append(f"kept    {mine.name} (yours; notebooks/{shipped.name} is newer: to start that part "
                         f"again, delete or rename your copy and run this again)")
        else:
            lines.append(f"kept    {mine.name} (yours)")
    return lines


def next_step(target: Path | None = None) -> str:
    """What to open next, for the end of the set-up."""
    target = Path(target or config.working_copy_dir())
    try:
        shown = target.relative_to(config.PROJECT_ROOT)
    except ValueError:
        shown = target
    return (f"next:      open {shown}/{FIRST_NOTEBOOK} (your own copy: git ignores it; notebooks/ stays as shipped). "
            f"JupyterLab: .venv/bin/python -m pip install jupyterlab && .venv/bin/jupyter lab {shown}/")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workshop.working_copy", description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    copied = make_working_copy()
    print("\n".join(copied))
    print(next_step())
    return 0


if __name__ == "__main__":
    sys.exit(main())
