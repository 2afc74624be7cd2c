#!/usr/bin/env bash
# Create .venv with evidence-ledger installed (editable) and the test tools. Safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
