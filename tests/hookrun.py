"""Helpers for tests that fire the real hook: run it as a process, read the ledger raw.

A module of its own, not conftest.py: tests/e2e has a conftest.py too, and under pytest's
default import mode whichever conftest loaded last answers `from conftest import ...`.
"""

import json
import os
import sqlite3
import subprocess

import ledger.hooks

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# CI clones the repo with a copy of shared/ beside it; the captures are read from there, never
# copied in.
SHARED_FIXTURES = os.path.join(os.path.dirname(REPO), "shared", "fixtures")


def fixture_path(*parts):
    return os.path.join(SHARED_FIXTURES, *parts)


def hook_env(**extra):
    env = dict(os.environ)
    # The subprocess must import this checkout, whatever is installed.
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    return env


def run_hook(payload, agent="claude", env=None, timeout=60):
    """Run `ledger-hook AGENT` as a real process, payload on stdin (dict/list -> JSON; str/bytes raw)."""
    if isinstance(payload, bytes):
        data = payload
    elif isinstance(payload, str):
        data = payload.encode("utf-8")
    else:
        data = json.dumps(payload).encode("utf-8")
    return subprocess.run(
        ledger.hooks.command(agent),
        input=data,
        capture_output=True,
        env=hook_env(**(env or {})),
        cwd=REPO,
        timeout=timeout,
    )


def rows(db, sql="SELECT * FROM evidence ORDER BY num", args=()):
    """Read the ledger with plain sqlite3, not through the code under test."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, args).fetchall()]
    finally:
        conn.close()


def payload(tool_name="Bash", tool_input=None, tool_response=None, event="PostToolUse",
            session_id="sess-1", **extra):
    body = {
        "session_id": session_id,
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool_name,
        "tool_input": tool_input if tool_input is not None else {"command": "echo hi"},
        "tool_use_id": "toolu_01",
    }
    if tool_response is not None or event == "PostToolUse":
        body["tool_response"] = tool_response
    body.update(extra)
    return body
