#!/usr/bin/env bash
# postCreateCommand of the Oracle devcontainer (the compose file has already waited for the database
# to report healthy): the README's set-up command, then the doctor. Either failing makes the
# Codespace creation log say so; the Codespace stays usable for fixing it.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== set-up: bash scripts/setup.sh (database: ${ORACLE_DSN:-embedded engine})"
bash scripts/setup.sh --no-progress
echo "== doctor: .venv/bin/python -m workshop.doctor"
.venv/bin/python -m workshop.doctor
