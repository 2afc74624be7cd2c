#!/usr/bin/env bash
# Set up on a fresh machine and run the whole test suite, the real-agent e2e tests included:
# .venv with the package, the pinned agent clients from npm (cached), then pytest.
# Extra arguments go to pytest, e.g. `scripts/test.sh -m "not e2e"` for the fast part only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/install-agent-clients.sh
export PATH="$PWD/.venv/bin:$PATH"
exec .venv/bin/python -m pytest "$@"
