# A package, so that its conftest.py loads as `e2e.conftest` and never shadows tests/conftest.py
# (under pytest's default import mode both would otherwise be the module `conftest`). The e2e
# modules import each other by plain name (`import harness`), so this folder stays on sys.path.
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)
