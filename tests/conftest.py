"""Shared fixtures: every test gets its own ledger file, home and XDG folders.

The autouse fixture matters most: a test that forgot to point the ledger somewhere would
otherwise write into the real ~/.local/share of whoever runs the suite. The helpers for running
the hook live in hookrun.py (import them from there; re-exported here for older tests).
"""

import os
import shutil
import tempfile

import pytest

# The detector compiles its patterns at import, while tests are collected, through the Stop
# hook's cache (ledger/diskcache.py): the run gets a cache of its own, never the user's. One for
# the whole run, so hook processes after the first read it warm as users' do (tests of the
# cache itself use their own folders).
CACHE_HOME = os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ledger-tests-cache-")


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(CACHE_HOME, ignore_errors=True)

from hookrun import REPO, SHARED_FIXTURES, fixture_path, hook_env, payload, rows, run_hook  # noqa: F401


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", CACHE_HOME)
    monkeypatch.setenv("LEDGER_DB", str(tmp_path / "ledger" / "ledger.db"))
    for name in ("LEDGER_MAX_OUTPUT", "LEDGER_DISABLE", "LEDGER_CACHE", "CLAUDE_PROJECT_DIR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    # No detached index merges after a Stop (ledger/merge.py) outliving the test that started
    # them, nor forked from tests that run a hook in-process; tests/test_merge.py turns it on.
    monkeypatch.setenv("LEDGER_INDEX_MERGE", "0")
    return tmp_path


@pytest.fixture
def db_path():
    """Where the hooks and the CLI will write in this test (the file may not exist yet)."""
    return os.environ["LEDGER_DB"]
