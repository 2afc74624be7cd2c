#!/usr/bin/env bash
# Create .venv with evidence-ledger installed (editable) and the test tools. Safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
# Optional: ripgrep makes `ledger probe` scan big logs faster. Probe works without it (grep,
# then pure Python), so this is best effort and never fails the set-up.
if ! command -v rg >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y ripgrep >/dev/null 2>&1 || true
fi
