"""Retention: `ledger gc` deletes whole old sessions, honours a size cap, VACUUMs, and logs
what it deleted so `ledger verify` stays clean.

Guards: ledger/retention.py (the cutoff, the 30-day default, keep-newest under the cap,
dry-run rollback, gc_log, VACUUM + WAL truncate) and the `gc` CLI.
"""

import os
import sqlite3
import time

import pytest
from click.testing import CliRunner

from hookrun import rows
from ledger import retention, store, verify
from ledger.cli import cli

DAY = 86400


def _session(conn, sid, age_days, n=3, size=100):
    for i in range(n):
        store.record(conn, {"session_id": sid, "command": "c%d" % i, "output": ("%s %d " % (sid, i)) + "y" * size})
    seen = time.time() - age_days * DAY
    conn.execute("UPDATE sessions SET last_seen = ?, first_seen = ? WHERE id = ?", (seen, seen, sid))
    store.record_decision(conn, {"session_id": sid, "decision": "allow"}, [{"text": "t", "kind": "assertion"}])
    conn.execute("UPDATE sessions SET last_seen = ? WHERE id = ?", (seen, sid))


def _ids(db_path, table="sessions", column="id"):
    conn = sqlite3.connect(db_path)
    try:
        return sorted(r[0] for r in conn.execute("SELECT %s FROM %s" % (column, table)))
    finally:
        conn.close()


def test_parse_duration_and_size():
    assert retention.parse_duration("30d") == 30 * DAY
    assert retention.parse_duration("12h") == 12 * 3600
    assert retention.parse_duration("2w") == 14 * DAY
    assert retention.parse_size("500M") == 500 * 1024 ** 2
    assert retention.parse_size("1GB") == 1024 ** 3
    assert retention.parse_size("4096") == 4096
    for bad in ("", "30", "d", "-1d", "1 fortnight"):
        with pytest.raises(ValueError):
            retention.parse_duration(bad)


def test_default_keeps_the_last_30_days(db_path):
    conn = store.connect(db_path)
    _session(conn, "ancient", 400)
    _session(conn, "old", 31)
    _session(conn, "recent", 29)
    _session(conn, "today", 0)
    result = retention.gc(conn)
    conn.close()
    assert sorted(result["sessions"]) == ["ancient", "old"]
    assert _ids(db_path) == ["recent", "today"]
    assert sorted(set(_ids(db_path, "evidence", "session_id"))) == ["recent", "today"]
    assert sorted(set(_ids(db_path, "decisions", "session_id"))) == ["recent", "today"]
    assert sorted(set(_ids(db_path, "claims", "session_id"))) == ["recent", "today"]
    # Deleted text leaves the full-text index as well.
    conn = store.connect(db_path)
    assert store.search(conn, "ancient") == []
    assert verify.verify(conn)[0] == []
    conn.close()


def test_dry_run_deletes_nothing(db_path):
    conn = store.connect(db_path)
    _session(conn, "old", 90)
    result = retention.gc(conn, "30d", dry_run=True)
    conn.close()
    assert result["sessions"] == ["old"] and result["entries"] == 3
    assert _ids(db_path) == ["old"]
    assert rows(db_path, "SELECT * FROM gc_log") == []


def test_size_cap_deletes_oldest_first_but_keeps_the_newest(db_path):
    conn = store.connect(db_path)
    for i, sid in enumerate(["s-a", "s-b", "s-c", "s-d"]):
        _session(conn, sid, 10 - i, n=20, size=20000)
    before = os.path.getsize(db_path)
    result = retention.gc(conn, "30d", max_size=retention.used_bytes(conn) // 2)
    conn.close()
    assert result["sessions"][:1] == ["s-a"] and "s-d" not in result["sessions"]
    assert "s-d" in _ids(db_path)
    assert os.path.getsize(db_path) < before  # VACUUM gave the space back
    assert not os.path.exists(db_path + "-wal") or os.path.getsize(db_path + "-wal") == 0
    conn = store.connect(db_path)
    assert verify.verify(conn)[0] == []
    huge_cap = retention.gc(conn, "30d", max_size=1)
    conn.close()
    assert _ids(db_path) == ["s-d"] and huge_cap["still_over_cap"]


def test_deleted_text_is_gone_from_the_file(db_path):
    conn = store.connect(db_path)
    _session(conn, "old", 60, size=10)
    store.record(conn, {"session_id": "old", "output": "UNIQUE-MARKER-4471"})
    conn.execute("UPDATE sessions SET last_seen = 1 WHERE id = 'old'")
    _session(conn, "new", 0)
    retention.gc(conn)
    conn.close()
    for suffix in ("", "-wal"):
        if os.path.exists(db_path + suffix):
            with open(db_path + suffix, "rb") as f:
                assert b"UNIQUE-MARKER-4471" not in f.read()


def test_gc_cli(db_path):
    conn = store.connect(db_path)
    _session(conn, "old", 90)
    _session(conn, "new", 1)
    conn.close()
    runner = CliRunner()
    dry = runner.invoke(cli, ["gc", "--dry-run"])
    assert dry.exit_code == 0 and "would delete 1 session(s), 3 entries" in dry.output
    assert _ids(db_path) == ["new", "old"]
    done = runner.invoke(cli, ["gc", "--older-than", "30d"])
    assert done.exit_code == 0 and "deleted 1 session(s)" in done.output
    assert _ids(db_path) == ["new"]
    bad = runner.invoke(cli, ["gc", "--older-than", "soon"])
    assert bad.exit_code != 0 and "not a duration" in bad.output
    assert runner.invoke(cli, ["verify"]).exit_code == 0
