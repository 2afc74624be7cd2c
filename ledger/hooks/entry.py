"""The file an installed hook runs: `PYTHON /abs/path/to/ledger/hooks/entry.py AGENT`.

Why a file and not `python -m ledger.hooks` or pip's `ledger-hook` script: `-m` imports runpy,
importlib.util and contextlib (~1 ms a tool call), and pip's script imports re and enum (~5 ms
a tool call, bench/hook_bench.py); running a file by path pays neither. Keep this file free of imports
beyond `os` and `sys` (both loaded before any script runs): the package is not on sys.path yet.
"""

import os
import sys

# Python put this file's own folder (ledger/hooks) first on sys.path, where its modules would
# shadow top-level ones; the folder that holds the package belongs there instead.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ledger.hooks import run  # noqa: E402

run()
