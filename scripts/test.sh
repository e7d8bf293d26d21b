#!/usr/bin/env bash
# The test command: engine, models, checkpoints, notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python -m pytest -q -n 2 "$@"
