"""The hooks' SQL does not grow with the ledger: a count per invocation, and no full scans.

Not a timing test. Each hook runs in-process against a small and a larger ledger, with every
statement traced (sqlite3's trace callback); the statements issued must be the same number at
both sizes and under a fixed bound, and none of them may scan a whole table: EXPLAIN QUERY PLAN
of each must use an index (or the FTS index) on evidence, sessions, decisions and claims.
"""

import io
import json
import sys

import pytest

from ledger import merge, store
import ledger.hooks

# What one call costs today, with a little room; a change that adds statements per call should
# have to raise these on purpose.
POST_MAX = 8  # 7 traced today (the 3 PRAGMAs of connect come before the trace is set)
STOP_MAX = 14  # 13 today for a message with two claims, one uncited (merge.due; the ranking's ln())

# The ledger's tables and the aliases store.py gives them.
TABLES = {"evidence", "e", "sessions", "s", "decisions", "d", "claims", "c"}

MESSAGE = ("The loss diverged because the learning rate was too high: the log shows "
           "`step 420 loss=nan lr=3.0e-03`.\n\nThe root cause is the learning rate: it is too "
           "high, so the loss diverges.")


def build(path, sessions, per_session):
    conn = store.connect(str(path))
    try:
        for s in range(sessions):
            for i in range(per_session):
                store.record(conn, {
                    "agent": "claude", "session_id": "sess-%d" % s, "tool_name": "Bash",
                    "command": "python train.py --step %d" % i,
                    "output": "step %d loss=%.3f lr=3.0e-03\nstep 420 loss=nan lr=3.0e-03" % (i, i / 7),
                    "failed": i % 5 == 0, "exit_code": 1 if i % 5 == 0 else 0,
                })
            store.record_decision(conn, {"session_id": "sess-%d" % s, "decision": "allow", "turn_id": "p0"})
    finally:
        conn.close()
    return "sess-%d" % (sessions - 1)


def traced_run(monkeypatch, db, payload):
    """Run `ledger-hook claude` in this process; return the SQL statements it issued."""
    statements = []
    real_connect = store.connect

    def connect(*args, **kwargs):
        conn = real_connect(*args, **kwargs)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(store, "connect", connect)
    monkeypatch.setenv("LEDGER_DB", str(db))
    # The Stop's look at the index's depth is counted (ledger/merge.py); the merge it may start
    # is not run from inside the test process.
    monkeypatch.setenv("LEDGER_INDEX_MERGE", "1")
    monkeypatch.setattr(merge, "start", lambda path: None)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert ledger.hooks.main(["claude"]) == 0
    monkeypatch.undo()
    # Only our own statements: FTS5's work on its shadow tables ("-- ..." lines, and 'main'.
    # reads) depends on when it last merged segments, not on what the hook asked for.
    ours = [s for s in statements if not s.lstrip().startswith("--") and "'main'." not in s]
    return ours, out.getvalue()


def post(session):
    return {"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "tail -n 5 train.log"}, "cwd": "/home/dev/proj",
            "tool_response": {"stdout": "step 421 loss=nan", "stderr": "", "interrupted": False},
            "tool_use_id": "toolu_x"}


def stop(session, prompt):
    return {"session_id": session, "hook_event_name": "Stop", "cwd": "/home/dev/proj",
            "prompt_id": prompt, "last_assistant_message": MESSAGE, "stop_hook_active": False}


def full_scans(db, statements):
    """Statements whose plan reads a whole ledger table: 'SCAN evidence' and the like."""
    conn = store.connect(str(db), readonly=True)
    bad = []
    try:
        for sql in statements:
            head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
            if head not in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH") or "'main'." in sql:
                continue  # PRAGMA, BEGIN, COMMIT, "-- TRIGGER" markers, FTS5's own shadow tables
            for row in conn.execute("EXPLAIN QUERY PLAN " + sql):
                words = row[3].split()
                if len(words) >= 2 and words[0] == "SCAN" and words[1] in TABLES and "USING" not in words:
                    bad.append((sql, row[3]))
    finally:
        conn.close()
    return bad


@pytest.fixture
def ledgers(tmp_path):
    small, large = tmp_path / "small.db", tmp_path / "large.db"
    return {"small": (small, build(small, 2, 5)), "large": (large, build(large, 40, 30))}


def test_post_tool_use_issues_the_same_few_statements_at_any_size(monkeypatch, ledgers):
    counts = {}
    for name, (db, session) in ledgers.items():
        statements, _ = traced_run(monkeypatch, db, post(session))
        counts[name] = len(statements)
        assert any(s.startswith("INSERT INTO evidence") for s in statements), statements
        assert full_scans(db, statements) == []
    assert counts["small"] == counts["large"], counts
    assert counts["large"] <= POST_MAX, counts


def test_stop_issues_the_same_few_statements_at_any_size(monkeypatch, ledgers):
    counts = {}
    for name, (db, session) in ledgers.items():
        statements, out = traced_run(monkeypatch, db, stop(session, "p-" + name))
        # The uncited second claim blocks, so the reason's related-entry search ran too.
        assert json.loads(out)["decision"] == "block", out
        assert any("evidence_fts MATCH" in s for s in statements), statements
        counts[name] = len(statements)
        assert full_scans(db, statements) == []
    assert counts["small"] == counts["large"], counts
    assert counts["large"] <= STOP_MAX, counts


def test_the_scan_check_would_catch_a_whole_table_read(ledgers):
    db, _ = ledgers["large"]
    assert full_scans(db, ["SELECT COUNT(*) FROM evidence WHERE output LIKE '%nan%'"])
