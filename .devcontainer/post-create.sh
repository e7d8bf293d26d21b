#!/usr/bin/env bash
# postCreateCommand of the Oracle devcontainer: the database part. The compose file has already waited for the
# database to report healthy, and updateContentCommand (.devcontainer/prepare.sh) has built the virtualenv and
# the ONNX models, so what is left is the set-up against Oracle (models loaded, tables, data, embeddings,
# indexes, graph; the read-only user's grants), then the doctor. Together the two are the README's
# `bash scripts/setup.sh`. Either failing makes the Codespace creation log say so; the Codespace stays usable.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then            # a client that skipped updateContentCommand
  bash scripts/setup.sh --no-database
fi
echo "== set-up: .venv/bin/python -m workshop.setup (database: ${ORACLE_DSN:-embedded engine})"
.venv/bin/python -m workshop.setup --no-progress
echo "== doctor: .venv/bin/python -m workshop.doctor"
.venv/bin/python -m workshop.doctor
