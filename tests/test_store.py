"""The ledger file: where it lives, its modes, its schema, and the queries the rest code against."""

import hashlib
import json
import os
import sqlite3
import stat

import pytest

from hookrun import payload, rows, run_hook
from ledger import paths, store


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_ledger_db_overrides_everything(tmp_path, monkeypatch):
    target = tmp_path / "elsewhere" / "my.db"
    monkeypatch.setenv("LEDGER_DB", str(target))
    assert paths.db_path() == str(target)
    result = run_hook(payload(tool_response={"stdout": "x", "stderr": ""}))
    assert result.returncode == 0
    assert target.exists()
    assert not (tmp_path / "data").exists()


def test_ledger_db_expands_user(monkeypatch):
    monkeypatch.setenv("LEDGER_DB", "~/l.db")
    assert paths.db_path() == os.path.join(os.environ["HOME"], "l.db")


def test_default_path_under_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.delenv("LEDGER_DB")
    expected = tmp_path / "data" / "evidence-ledger" / "ledger.db"
    assert paths.db_path() == str(expected)
    result = run_hook(payload(tool_response={"stdout": "x", "stderr": ""}), env={"LEDGER_DB": None})
    assert result.returncode == 0, result.stderr
    assert expected.exists()
    assert rows(str(expected))[0]["output"] == "x"


def test_default_path_without_xdg_is_under_home(monkeypatch):
    monkeypatch.delenv("LEDGER_DB")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert paths.db_path() == os.path.join(
        os.environ["HOME"], ".local", "share", "evidence-ledger", "ledger.db")


def test_file_0600_folder_0700_even_with_a_loose_umask(db_path):
    old = os.umask(0o000)
    try:
        result = run_hook(payload(tool_response={"stdout": "x", "stderr": ""}))
    finally:
        os.umask(old)
    assert result.returncode == 0
    assert _mode(db_path) == 0o600
    assert _mode(os.path.dirname(db_path)) == 0o700
    # The WAL and shared-memory files take the main file's mode, not the umask.
    conn = store.connect()
    conn.execute("SELECT 1 FROM evidence").fetchall()
    other = store.connect()
    store.record(other, {"session_id": "s", "output": "y"})
    for suffix in ("-wal", "-shm"):
        assert _mode(db_path + suffix) == 0o600, suffix
    other.close()
    conn.close()


def test_wal_mode_and_schema_version(db_path):
    store.connect().close()
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"evidence", "sessions", "decisions", "claims", "evidence_fts"} <= tables
    conn.close()


def test_reconnecting_does_not_rerun_migrations(db_path, monkeypatch):
    store.connect().close()
    from ledger import migrations

    def boom(conn):
        raise AssertionError("migration ran on a current file")

    monkeypatch.setattr(migrations, "MIGRATIONS", [boom])
    conn = store.connect()
    store.record(conn, {"session_id": "s", "output": "fine"})
    conn.close()


def test_connect_without_create_reports_missing_ledger(db_path):
    with pytest.raises(store.LedgerError, match="no ledger at"):
        store.connect(create=False)
    with pytest.raises(store.LedgerError):
        store.connect(readonly=True)
    assert not os.path.exists(db_path)


def test_readonly_connection_cannot_write(db_path):
    store.connect().close()
    conn = store.connect(readonly=True)
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("DELETE FROM evidence")
    conn.close()


def test_record_returns_ids_and_fields(db_path):
    conn = store.connect()
    first = store.record(conn, {
        "session_id": "s1", "agent": "claude", "tool_name": "Bash",
        "tool_input": {"command": "nvidia-smi"}, "command": "nvidia-smi",
        "output": "GPU 0: H100 80GB", "failed": False, "exit_code": 0, "duration_ms": 12.7,
        "cwd": "/p", "turn_id": 5, "event": "PostToolUse",
    })
    second = store.record(conn, {"session_id": "s2", "output": "other"})
    assert (first, second) == ("E1", "E2")
    (row,) = store.session_evidence(conn, "s1")
    assert row["id"] == "E1" and row["num"] == 1
    assert json.loads(row["tool_input"]) == {"command": "nvidia-smi"}
    assert row["output"] == "GPU 0: H100 80GB"
    assert row["duration_ms"] == 12
    assert row["turn_id"] == "5"
    assert row["output_sha256"] == hashlib.sha256(b"GPU 0: H100 80GB").hexdigest()
    assert store.get_evidence(conn, "e1")["command"] == "nvidia-smi"
    assert store.get_evidence(conn, " E2 ")["session_id"] == "s2"
    assert store.get_evidence(conn, "E99") is None
    assert store.get_evidence(conn, "D1") is None
    conn.close()


def test_record_redacts_every_text_field(db_path):
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    conn = store.connect()
    store.record(conn, {"session_id": "s", "tool_input": {"command": "echo " + key},
                        "command": "echo " + key, "output": "got " + key})
    row = store.session_evidence(conn, "s")[0]
    for field in ("tool_input", "command", "output"):
        assert key not in row[field]
        assert "[REDACTED:aws-access-key]" in row[field]
    # The hash is of what was printed, so a person holding the real output can match it.
    assert row["output_sha256"] == hashlib.sha256(("got " + key).encode()).hexdigest()
    conn.close()


def test_hash_chain_recomputes(db_path):
    conn = store.connect()
    for i in range(3):
        store.record(conn, {"session_id": "s", "output": "line %d" % i})
    prev = None
    for row in store.session_evidence(conn, "s"):
        data = dict(row)
        assert data["prev_hash"] == prev
        assert store.entry_hash(prev, data) == data["hash"]
        prev = data["hash"]
    # Tampering with an output breaks that entry's hash.
    conn.execute("UPDATE evidence SET output = 'edited' WHERE num = 2")
    tampered = dict(store.session_evidence(conn, "s")[1])
    assert store.entry_hash(tampered["prev_hash"], tampered) != tampered["hash"]
    conn.close()


def test_search_fts(db_path):
    conn = store.connect()
    store.record(conn, {"session_id": "a", "command": "python train.py --lr 1e-2",
                        "output": "step 420 loss=nan grad_norm=inf"})
    store.record(conn, {"session_id": "b", "command": "nvidia-smi", "output": "CUDA out of memory"})
    store.record(conn, {"session_id": "a", "command": "cat log", "output": "損失が発散しました"})
    assert [r["id"] for r in store.search(conn, "loss=nan")] == ["E1"]
    assert [r["id"] for r in store.search(conn, "--lr")] == ["E1"]  # punctuation is not syntax
    assert [r["id"] for r in store.search(conn, "memory")] == ["E2"]
    assert [r["id"] for r in store.search(conn, "発散")] == []  # under 3 characters
    assert [r["id"] for r in store.search(conn, "発散しました")] == ["E3"]
    assert [r["id"] for r in store.search(conn, "memory", session_id="a")] == []
    assert len(store.search(conn, "nan memory log", limit=1)) == 1
    assert store.search(conn, "x y") == []
    assert [r["id"] for r in store.search(conn, "loss=nan grad", phrase=True)] == ["E1"]
    conn.close()


def test_sessions_and_decisions(db_path):
    conn = store.connect()
    store.record(conn, {"session_id": "old", "agent": "claude", "output": "1", "project_dir": "/p"})
    store.record(conn, {"session_id": "new", "agent": "codex", "output": "2", "failed": True})
    d1 = store.record_decision(conn, {"session_id": "new", "decision": "block", "turn_id": "t1",
                                      "reason": "cite it", "message": "the cause is X"},
                               [{"text": "the cause is X", "kind": "assertion", "cited": False,
                                 "evidence": []}])
    d2 = store.record_decision(conn, {"session_id": "new", "decision": "allow", "turn_id": "t1"},
                               [{"text": "X because E2", "kind": "assertion", "cited": True,
                                 "evidence": ["E2"]}])
    assert (d1, d2) == ("D1", "D2")
    listed = store.sessions(conn)
    assert [s["id"] for s in listed] == ["new", "old"]
    new = dict(listed[0])
    assert (new["evidence"], new["failed"], new["claims"], new["blocks"]) == (1, 1, 2, 1)
    assert dict(listed[1])["project_dir"] == "/p"
    # The allow (D2) ended turn t1, so a stop that comes back with the same key starts afresh.
    assert store.blocks_in_turn(conn, "new", "t1") == 0
    store.record_decision(conn, {"session_id": "new", "decision": "block", "turn_id": "t1"})
    assert store.blocks_in_turn(conn, "new", "t1") == 1
    assert store.blocks_in_turn(conn, "new", "t2") == 0
    decisions = store.session_decisions(conn, "new")
    assert [d["id"] for d in decisions] == ["D1", "D2", "D3"]
    claims = store.decision_claims(conn, 2)
    assert json.loads(claims[0]["evidence"]) == ["E2"]
    conn.close()


def test_cap_output_unit():
    text, cut = store.cap_output("abc" * 10, limit=100)
    assert (text, cut) == ("abc" * 10, False)
    text, cut = store.cap_output("a" * 50 + "b" * 50, limit=20)
    assert cut and text.startswith("a" * 10) and text.endswith("b" * 10)
    assert "[... 80 bytes omitted by evidence-ledger ...]" in text


def test_schema_version_counts_the_migrations():
    from ledger import migrations

    assert store.SCHEMA_VERSION == len(migrations.MIGRATIONS)


def test_a_version_1_ledger_is_upgraded_in_place(db_path):
    import sqlite3

    from ledger import migrations

    os.makedirs(os.path.dirname(db_path), exist_ok=True)
    old = sqlite3.connect(db_path, isolation_level=None)
    old.execute("BEGIN IMMEDIATE")
    migrations.m001_initial(old)
    old.execute("PRAGMA user_version = 1")
    old.execute("COMMIT")
    old.execute("INSERT INTO evidence (session_id, output, recorded_at) VALUES ('s', 'kept', 1)")
    old.close()
    conn = store.connect()
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    assert conn.execute("SELECT output FROM evidence").fetchone()[0] == "kept"
    assert conn.execute("SELECT COUNT(*) FROM gc_log").fetchone()[0] == 0


def test_locked_retry_rides_out_a_creation_race_but_not_other_errors():
    # Parallel hooks creating a new ledger can hit "database is locked" without SQLite's busy
    # handler waiting (seen as one lost entry in 40 runs of six first-time writers).
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise sqlite3.OperationalError("database is locked")
        return "done"

    assert store._locked_retry(flaky, 5000) == "done" and len(calls) == 3

    def broken():
        raise sqlite3.OperationalError("no such table: evidence")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        store._locked_retry(broken, 5000)

    def always_locked():
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        store._locked_retry(always_locked, 50)
