#!/usr/bin/env bash
# The test command: engine, models, set-up, checkpoints, tooling, and every solution notebook run
# top to bottom with nbval on the embedded engine. Uses the project's .venv when no virtualenv is
# active (CI activates its own).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python
if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi
export TOKENIZERS_PARALLELISM=false
# The solution notebooks run one at a time (solutions/conftest.py) while the other worker runs test files that open
# the same workshop database; a writer waits for another's transaction up to this long (15 s by default) before
# ORA-00054. On a loaded CI machine a part's longest transaction (part 06's titled copy) has taken longer than 15 s.
export WORKSHOP_BUSY_TIMEOUT="${WORKSHOP_BUSY_TIMEOUT:-120}"
PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
# The notebooks read the workshop database: make sure it is set up (idempotent, seconds when done).
"$PY" -m workshop.setup
# loadfile keeps each notebook's cells on one worker, in order; solutions/conftest.py runs one notebook at a time.
exec "$PY" -m pytest -q -n 2 --dist loadfile --nbval-lax tests solutions "$@"
