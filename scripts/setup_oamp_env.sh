#!/usr/bin/env bash
# Part 08 (Oracle AI Agent Memory): a SEPARATE virtualenv and Jupyter kernel for the oracleagentmemory package.
# oracleagentmemory==26.6.0 requires oracledb<5, which conflicts with the main environment's oracledb==26.1.0
# pin, so it gets its own venv (default .venv-oamp; pass another folder as $1) and never touches .venv.
#   scripts/setup_oamp_env.sh                 # build .venv-oamp and register the kernel "workshop-oamp"
#   scripts/setup_oamp_env.sh /tmp/oamp-venv  # build it elsewhere (maintainers' static check)
# Then open solutions/08_oracle_ai_agent_memory.ipynb with the kernel "Python (workshop OAMP)" on Oracle.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-oamp}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-oamp.txt
# The project on the venv's path (as scripts/setup.sh does for .venv), so `workshop` and `checkpoints` import.
"$VENV/bin/python" - <<'PY'
import pathlib
import sysconfig

site_packages = pathlib.Path(sysconfig.get_paths()["purelib"])
(site_packages / "oracle_agent_memory_workshop.pth").write_text(str(pathlib.Path.cwd().resolve()) + "\n")
PY
if [ "${OAMP_NO_KERNEL:-0}" != "1" ]; then
  "$VENV/bin/python" -m ipykernel install --user --name workshop-oamp --display-name "Python (workshop OAMP)" >/dev/null
  echo "kernel: workshop-oamp (Python (workshop OAMP))"
fi
"$VENV/bin/python" -m workshop.agent_memory.oamp_static --quiet-ok || true
"$VENV/bin/python" -c "import importlib.metadata as m; print('oracleagentmemory', m.version('oracleagentmemory'), '| oracledb', m.version('oracledb'))"
