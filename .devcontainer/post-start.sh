#!/usr/bin/env bash
# postStartCommand: on every later start, report whether the database is still ready. Never fails
# the start; the doctor's table says what to run.
cd "$(dirname "$0")/.." || exit 0
if [ -x .venv/bin/python ]; then
  .venv/bin/python -m workshop.doctor || echo "Some checks failed: see 'What to do' above."
fi
exit 0
