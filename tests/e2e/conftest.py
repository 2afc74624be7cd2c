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


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(why):
    if in_ci():
        pytest.fail("e2e: %s (CI=true, so this fails instead of skipping)" % why, pytrace=False)
    pytest.skip("e2e: %s" % why)


@pytest.fixture(scope="session")
def sealed_namespace():
    """Proof that `unshare -n` works here; every client run goes through one."""
    problem = harness.namespace_problem()
    if problem:
        unavailable(problem)
    return True


def _client(name):
    found = harness.find_client(name)
    if found:
        return found
    package, version, _ = harness.pins()[name]
    if os.environ.get("LEDGER_E2E_NO_INSTALL"):
        unavailable("%s@%s is not installed and LEDGER_E2E_NO_INSTALL is set; run "
                    "scripts/install-agent-clients.sh %s" % (package, version, name))
    ok, output = harness.install_client(name)
    found = harness.find_client(name)
    if not ok or not found:
        unavailable("%s@%s is not in %s and could not be installed from npm (%s)"
                    % (package, version, harness.cache_root(), output.strip()[-500:]))
    return found


@pytest.fixture(scope="session")
def claude_client(sealed_namespace):
    """Path to the pinned `claude` executable."""
    return _client("claude")


@pytest.fixture
def session(tmp_path, claude_client):
    """A fresh user: temp HOME, empty project, own ledger file. Nothing installed yet."""
    return harness.Session(tmp_path / "e2e", claude_client)
