"""Fixtures for the end-to-end tests: a real agent client from npm, run offline.

The client is installed once per machine by scripts/install-agent-clients.sh (the tests run
it themselves when the registry is reachable) and shared by every test. The suite skips, with
the reason, only when this machine cannot make a loopback-only network namespace or cannot get
the client; under CI (CI=true) either of those is a failure instead, so a broken runner never
passes by skipping. LEDGER_E2E_NO_INSTALL=1 stops the tests from calling npm at all.
"""

import os

import pytest

import harness
from sealed import pinned_client, unavailable


@pytest.fixture(scope="session")
def sealed_namespace():
    """Proof that `unshare -n` works here; every client run goes through one."""
    problem = harness.namespace_problem()
    if problem:
        unavailable(problem)
    return True


@pytest.fixture(scope="session")
def claude_client(sealed_namespace):
    """Path to the pinned `claude` executable."""
    return pinned_client("claude")


@pytest.fixture
def session(tmp_path, claude_client):
    """A fresh user: temp HOME, empty project, own ledger file. Nothing installed yet."""
    return harness.Session(tmp_path / "e2e", claude_client)
