"""`ledger export -o FILE.db`: the audit as a fresh SQLite file (sqlite-utils builds it)."""

import json
import os
import sqlite3

from click.testing import CliRunner

from hookrun import run_hook
from ledger.cli import cli

SECRET = "AKIAIOSFODNN7EXAMPLE"


def test_sqlite_export_holds_sessions_evidence_decisions_and_claims(tmp_path):
    run_hook({"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "cat train.log"},
              "tool_response": {"stdout": "step 420 loss=nan grad_norm=inf\nkey " + SECRET, "stderr": ""}})
    run_hook({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": False,
              "last_assistant_message": "The root cause is the learning rate, so the loss diverges."})
    out = tmp_path / "audit.db"
    result = CliRunner().invoke(cli, ["export", "--redact", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert oct(os.stat(out).st_mode & 0o777) == "0o600"
    conn = sqlite3.connect(out)
    assert conn.execute("SELECT id FROM sessions").fetchall() == [("s1",)]
    assert conn.execute("SELECT command FROM evidence").fetchall() == [("cat train.log",)]
    decision, = conn.execute("SELECT decision FROM decisions").fetchall()
    assert decision == ("block",)
    claims = conn.execute("SELECT kind, cited, evidence FROM claims").fetchall()
    assert claims and claims[0][0] == "assertion" and json.loads(claims[0][2]) == []
    hits = conn.execute("SELECT rowid FROM evidence_fts WHERE evidence_fts MATCH 'grad_norm'").fetchall()
    assert len(hits) == 1
    assert conn.execute("SELECT verified FROM export").fetchone() == (1,)
    conn.close()
    assert SECRET.encode() not in out.read_bytes()


def test_jsonl_export_is_still_the_default(tmp_path):
    run_hook({"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a", "stderr": ""}})
    result = CliRunner().invoke(cli, ["export"])
    assert result.exit_code == 0
    kinds = [json.loads(line)["type"] for line in result.output.splitlines()]
    assert kinds == ["ledger", "session", "evidence"]
