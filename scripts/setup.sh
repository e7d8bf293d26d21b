#!/usr/bin/env bash
# First command of the Quick start: a virtualenv with everything pinned, then the workshop set-up.
# It prints only what a learner needs: pip runs quietly, and the project is put on the virtualenv's path with a
# .pth file (what an editable install does) instead of `pip install -e .`, whose setuptools build prints an
# "Editable installation" warning box on every run.
#   bash scripts/setup.sh                 # everything: virtualenv, packages, ONNX models, then the database
#   bash scripts/setup.sh --no-database   # only what needs no database: virtualenv, packages, the ONNX model files
#                                         # (the devcontainer's updateContentCommand, cached by Codespaces prebuilds)
set -euo pipefail
cd "$(dirname "$0")/.."
NO_DATABASE=0
if [ "${1:-}" = "--no-database" ]; then
  NO_DATABASE=1
  shift
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
bash scripts/install_packages.sh .venv/bin/python
.venv/bin/python - <<'PY'
import pathlib
import sysconfig

site_packages = pathlib.Path(sysconfig.get_paths()["purelib"])
(site_packages / "oracle_agent_memory_workshop.pth").write_text(str(pathlib.Path.cwd().resolve()) + "\n")
PY
if [ "$NO_DATABASE" = "1" ]; then
  exec .venv/bin/python -c "from workshop import models; print('ONNX models ready:', models.ensure_embedding_model().name, models.ensure_reranker_model().name)"
fi
exec .venv/bin/python -m workshop.setup "$@"
