#!/usr/bin/env bash
# Set up on a fresh machine and run the whole test suite, the real-agent e2e tests included:
# .venv with the package, the pinned agent clients from npm (cached), then pytest.
# Extra arguments go to pytest, e.g. `scripts/test.sh -m "not e2e"` for the fast part only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/install-agent-clients.sh
# Optional: ripgrep is `ledger probe`'s fastest engine and the tests compare it with the others
# when it is there. Probe works without it (grep, then pure Python), so this is best effort, for
# root on Debian-like machines (CI), and never fails the run.
if ! command -v rg >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    timeout 120 apt-get install -y -q ripgrep >/dev/null 2>&1 || true
fi
export PATH="$PWD/.venv/bin:$PATH"
exec .venv/bin/python -m pytest "$@"
