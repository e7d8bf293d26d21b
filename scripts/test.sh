#!/usr/bin/env bash
# The test command: engine, models, checkpoints, notebooks. Uses the project's .venv when no
# virtualenv is active (CI activates its own).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python
if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi
export TOKENIZERS_PARALLELISM=false
exec "$PY" -m pytest -q -n 2 "$@"
