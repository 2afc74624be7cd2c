#!/usr/bin/env bash
# Set up on a fresh machine and run the demo: a recorded debugging session replayed through
# the real hooks on a temporary ledger (your own ledger is not touched).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/ledger demo "$@"
