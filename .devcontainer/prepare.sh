#!/usr/bin/env bash
# updateContentCommand of the Oracle devcontainer: everything that needs no database, so that a Codespaces
# prebuild caches it (the virtualenv with the pinned packages, the two ONNX model files and the learner's
# working copy of the notebooks). It runs again when the repository's content changes (pip and the models'
# sha256 pins make a second run quick). WORKSHOP_OAMP=1 (a Codespaces secret or variable) also builds part 08's optional OAMP
# kernel (.venv-oamp); anyone can add it later with: bash scripts/setup_oamp_env.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== prepare: bash scripts/setup.sh --no-database (virtualenv, packages, ONNX models)"
bash scripts/setup.sh --no-database
# the learner's git-ignored copy of the notebooks (needs no database; existing files are never overwritten), so
# the notebook devcontainer.json opens exists before the database part has run
.venv/bin/python -m workshop.working_copy
if [ "${WORKSHOP_OAMP:-0}" = "1" ]; then
  echo "== WORKSHOP_OAMP=1: bash scripts/setup_oamp_env.sh (part 08's OAMP kernel)"
  bash scripts/setup_oamp_env.sh
fi
