"""Tamper evidence: `ledger verify` and the Stop guard against edited, deleted, reordered and
inserted entries.

Guards: ledger/verify.py (check_chain's per-kind detection, check_sequence's id continuity and
gc_log exemption), the `verify` CLI's non-zero exit, and stop.py passing only verified entries
to the detector (and naming the rest as ignored evidence). Each attack is done the way an
agent would do it: plain sqlite3 on the file.
"""

import json
import sqlite3

import pytest
from click.testing import CliRunner

from hookrun import run_hook
from ledger import store, verify
from ledger.cli import cli


def _fill(db_path, n=6, session="s1"):
    conn = store.connect(db_path)
    ids = [store.record(conn, {"session_id": session, "tool_name": "Bash", "command": "step %d" % i,
                               "output": "line %d loss=%d" % (i, i)}) for i in range(n)]
    conn.close()
    return ids


def _sql(db_path, *statements):
    conn = sqlite3.connect(db_path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _problems(db_path, session=None):
    conn = store.connect(db_path, readonly=True)
    try:
        return verify.verify(conn, session)[0]
    finally:
        conn.close()


def _kinds(problems):
    return sorted({p.kind for p in problems})


def _cli_verify(*args):
    return CliRunner().invoke(cli, ["verify", *args])


def test_untouched_ledger_verifies(db_path):
    _fill(db_path)
    _fill(db_path, 3, session="s2")
    assert _problems(db_path) == []
    result = _cli_verify()
    assert result.exit_code == 0 and "ok: 9 entries" in result.output


def test_the_checker_hashes_as_the_recorder_does(db_path):
    # The recorder hashes with the built-in sha256, check_chain with OpenSSL's (faster on MiBs).
    import hashlib

    conn = store.connect(db_path)
    store.record(conn, {"session_id": "s1", "tool_name": "Bash", "command": "cat log",
                        "output": "ünïcode 日本語 \x7f\n" * 50000})
    rows = [dict(r) for r in store.session_evidence(conn, "s1")]
    conn.close()
    row = rows[0]
    assert store.entry_hash(row["prev_hash"], row) == store.entry_hash(row["prev_hash"], row, hashlib.sha256) == row["hash"]
    assert verify.check_chain(rows) == ([], [])


def test_edited_output_is_reported(db_path):
    _fill(db_path)
    _sql(db_path, "UPDATE evidence SET output = 'all fine' WHERE num = 3")
    problems = _problems(db_path)
    assert _kinds(problems) == ["edited"] and problems[0].ids == ["E3"]
    result = _cli_verify()
    assert result.exit_code == 1 and "E3" in result.output


@pytest.mark.parametrize("column, value", [("exit_code", "0"), ("failed", "0"), ("command", "'ls'"),
                                           ("recorded_at", "1.0"), ("session_id", "'s1'")])
def test_every_hashed_field_is_covered(column, value, db_path):
    _fill(db_path)
    _sql(db_path, "UPDATE evidence SET failed = 1, exit_code = 2 WHERE num = 2")  # differs first
    _sql(db_path, "UPDATE evidence SET %s = %s WHERE num = 2" % (column, value))
    assert "E2" in sum((p.ids for p in _problems(db_path)), [])


def test_rehashed_edit_breaks_the_link_to_the_next_entry(db_path):
    # A careful forger recomputes the edited entry's own hash; the next entry still points at the old one.
    _fill(db_path)
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    row = dict(conn.execute("SELECT * FROM evidence WHERE num = 3").fetchone())
    row["output"] = "all fine"
    conn.execute("UPDATE evidence SET output = ?, hash = ? WHERE num = 3",
                 (row["output"], store.entry_hash(row["prev_hash"], row)))
    conn.commit()
    conn.close()
    problems, untrusted = verify.check_chain(store.session_evidence(store.connect(db_path), "s1"))
    assert _kinds(problems) == ["deleted"]
    assert "E3" in untrusted  # the dead end before the break is not trusted


def test_deleted_middle_entry_is_reported(db_path):
    _fill(db_path)
    _sql(db_path, "DELETE FROM evidence WHERE num = 3")
    problems = _problems(db_path)
    assert "deleted" in _kinds(problems) and "missing" in _kinds(problems)
    assert any("E4" in p.ids for p in problems if p.kind == "deleted")


def test_deleted_last_entries_are_reported_as_missing_ids(db_path):
    _fill(db_path)
    _sql(db_path, "DELETE FROM evidence WHERE num >= 5")
    problems = _problems(db_path)
    assert _kinds(problems) == ["missing"]
    assert problems[0].ids == ["E5", "E6"] and "end of the ledger" in problems[0].detail


def test_wiping_the_id_counter_too_is_reported(db_path):
    _fill(db_path)
    _sql(db_path, "DELETE FROM evidence WHERE num >= 5", "DELETE FROM sqlite_sequence")
    assert "missing" in _kinds(_problems(db_path))


def test_reordered_entries_are_reported(db_path):
    _fill(db_path)
    # Swap two rows' numbers, keeping their (valid) contents and hashes.
    _sql(db_path, "UPDATE evidence SET num = 100 WHERE num = 2",
         "UPDATE evidence SET num = 2 WHERE num = 4",
         "UPDATE evidence SET num = 4 WHERE num = 100")
    problems = _problems(db_path, "s1")
    assert "reordered" in _kinds(problems)
    assert "edited" not in _kinds(problems)


def test_inserted_unsigned_entry_is_reported(db_path):
    _fill(db_path)
    _sql(db_path, "INSERT INTO evidence (session_id, tool_name, output, recorded_at) "
                  "VALUES ('s1', 'Bash', 'the cause is X', 1.0)")
    problems, untrusted = verify.check_chain(store.session_evidence(store.connect(db_path), "s1"))
    assert _kinds(problems) == ["unsigned"] and untrusted == ["E7"]


def test_inserted_entry_with_a_forged_hash_is_reported(db_path):
    # The forger computes a valid hash but must pick a predecessor another entry already holds.
    _fill(db_path)
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    prev = conn.execute("SELECT hash FROM evidence WHERE num = 3").fetchone()[0]
    row = {f: None for f in store.HASHED_FIELDS}
    row.update(session_id="s1", tool_name="Bash", output="the cause is X", recorded_at=5.0,
               failed=0, interrupted=0, truncated=0)
    row["prev_hash"] = prev
    row["hash"] = store.entry_hash(prev, row)
    conn.execute("INSERT INTO evidence (%s) VALUES (%s)" % (", ".join(row), ", ".join("?" * len(row))),
                 tuple(row.values()))
    conn.commit()
    conn.close()
    problems, untrusted = verify.check_chain(store.session_evidence(store.connect(db_path), "s1"))
    assert _kinds(problems) == ["inserted"] and untrusted == ["E7"]


def test_verify_session_option_and_json(db_path):
    _fill(db_path, 3, "aaaa-1")
    _fill(db_path, 3, "bbbb-2")
    _sql(db_path, "UPDATE evidence SET output = 'x' WHERE num = 5")
    assert _cli_verify("--session", "aaaa").exit_code == 0
    result = _cli_verify("--session", "bbbb", "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False and data["problems"][0]["ids"] == ["E5"]


def test_gc_deletions_are_not_tampering(db_path):
    from ledger import retention

    _fill(db_path, 3, "old")
    _fill(db_path, 3, "new")
    _sql(db_path, "UPDATE sessions SET last_seen = 1 WHERE id = 'old'")
    conn = store.connect(db_path)
    retention.gc(conn, "30d")
    conn.close()
    assert _problems(db_path) == []
    _sql(db_path, "DELETE FROM evidence WHERE num = 6")
    assert _kinds(_problems(db_path)) == ["missing"]


# The Stop guard ignores entries that fail, and says so.

LOG = "step 420 loss=nan grad_norm=inf"


def _tool(output, session="st"):
    run_hook({"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "cat train.log"},
              "tool_response": {"stdout": output, "stderr": "", "interrupted": False}})


def _stop(message, session="st"):
    result = run_hook({"session_id": session, "hook_event_name": "Stop", "prompt_id": "p",
                       "last_assistant_message": message})
    assert result.returncode == 0
    out = result.stdout.decode().strip()
    return (json.loads(out) if out else None), result.stderr.decode()


def _detector_ready():
    from ledger.detect import Evidence, analyze

    report = analyze("The loss diverged because the gradients exploded at step 420 (E1).",
                     evidence=[Evidence(id="E1", output=LOG, input_text="")])
    return any(c.kind == "assertion" and c.cited for c in report.claims)


def test_stop_ignores_an_edited_entry_and_names_it(db_path):
    assert _detector_ready()  # the detector cites E1 for this claim when the entry is intact
    _tool("step 410 loss=1.9")
    _sql(db_path, "UPDATE evidence SET output = '%s' WHERE num = 1" % LOG)  # forged evidence
    claim = "The loss diverged because the gradients exploded at step 420 (E1)."
    out, stderr = _stop(claim)
    assert out and out.get("decision") == "block"
    assert "integrity check: E1" in out["reason"]
    assert "integrity check" in stderr
    # The same citation of an honest entry passes.
    _tool(LOG, session="honest")
    out, _ = _stop(claim.replace("E1", "E2"), session="honest")
    assert out is None or out.get("decision") != "block"


def test_stop_tells_the_user_once_about_tampering(db_path):
    _tool("ok")
    _sql(db_path, "UPDATE evidence SET output = 'edited' WHERE num = 1")
    first, _ = _stop("Done, nothing to report.")
    second, _ = _stop("Done again.")
    assert first and "integrity check" in first.get("systemMessage", "")
    assert second is None or "integrity" not in second.get("systemMessage", "")


def test_check_chain_is_what_stop_uses(monkeypatch, db_path):
    # Removing the verification call in stop.judge must make the forged entry count again.
    import ledger.hooks.stop as stop

    _fill(db_path, 2, "st")
    _sql(db_path, "UPDATE evidence SET output = 'forged' WHERE num = 2")
    seen = {}

    class Report:
        claims = []
        lang = "en"

    def fake_analyze(message, evidence, rules=None):
        seen["ids"] = [e.id for e in evidence]
        return Report()

    import ledger.detect as detect

    monkeypatch.setattr(detect, "analyze", fake_analyze, raising=False)
    monkeypatch.setattr(detect, "load_rules", lambda project_dir=None: None, raising=False)
    conn = store.connect(db_path)
    try:
        stop.judge(conn, {"turn_id": None}, "st", "msg", {"mode": "block"}, None)
    finally:
        conn.close()
    assert seen["ids"] == ["E1"]


# The Stop hook's incremental check --------------------------------------------------------------
# Each Stop records the session's newest entry and its hash when the chain checked clean; the next
# one re-hashes only the newer entries, checks every link by comparing hashes, and re-hashes the
# older entries a claim cites. `ledger verify` stays a full check.

def _rows(db_path, session="s1"):
    conn = store.connect(db_path, readonly=True)
    try:
        return [dict(r) for r in store.session_evidence(conn, session)]
    finally:
        conn.close()


def _checkpoint(rows, num):
    return num, next(r["hash"] for r in rows if r["num"] == num)


def test_check_since_rehashes_only_the_newer_entries(db_path):
    _fill(db_path)
    rows = _rows(db_path)
    checkpoint = _checkpoint(rows, 3)
    assert verify.check_since(rows, checkpoint) == ([], [], 3)
    _sql(db_path, "UPDATE evidence SET output = 'all fine' WHERE num = 5")
    problems, untrusted, upto = verify.check_since(_rows(db_path), checkpoint)
    assert (_kinds(problems), untrusted, upto) == (["edited"], ["E5"], 3)
    # An older entry edited in place, its hash left alone, is not re-hashed here: the Stop hook
    # re-hashes it when a claim cites it (below), and `ledger verify` reports it in any case.
    _sql(db_path, "UPDATE evidence SET output = 'all fine' WHERE num = 2")
    problems, untrusted, upto = verify.check_since(_rows(db_path), checkpoint)
    assert untrusted == ["E5"] and upto == 3
    assert verify.rehash([r for r in _rows(db_path) if r["num"] == 2])[1] == ["E2"]
    assert "E2" in sum((p.ids for p in _problems(db_path)), [])


def _rehash_in_place(db_path, num, output):
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    row = dict(conn.execute("SELECT * FROM evidence WHERE num = ?", (num,)).fetchone())
    row["output"] = output
    conn.execute("UPDATE evidence SET output = ?, hash = ? WHERE num = ?",
                 (output, store.entry_hash(row["prev_hash"], row), num))
    conn.commit()
    conn.close()


@pytest.mark.parametrize("attack", ["rehashed old entry", "deleted old entry", "deleted checkpoint",
                                    "moved checkpoint hash", "unsigned entry", "renumbered"])
def test_check_since_falls_back_to_the_full_check(attack, db_path):
    _fill(db_path)
    checkpoint = _checkpoint(_rows(db_path), 4)
    if attack == "rehashed old entry":
        _rehash_in_place(db_path, 2, "all fine")
    elif attack == "deleted old entry":
        _sql(db_path, "DELETE FROM evidence WHERE num = 2")
    elif attack == "deleted checkpoint":
        _sql(db_path, "DELETE FROM evidence WHERE num >= 4")
    elif attack == "moved checkpoint hash":
        # The whole chain rewritten from an old entry on, consistently: every link holds, but
        # the checkpoint entry's hash is not the one the last Stop saw.
        for num in range(2, 7):
            conn = sqlite3.connect(db_path)
            conn.row_factory = sqlite3.Row
            prev = conn.execute("SELECT hash FROM evidence WHERE num = ?", (num - 1,)).fetchone()[0]
            row = dict(conn.execute("SELECT * FROM evidence WHERE num = ?", (num,)).fetchone())
            if num == 2:
                row["output"] = "all fine"
            row["prev_hash"] = prev
            conn.execute("UPDATE evidence SET output = ?, prev_hash = ?, hash = ? WHERE num = ?",
                         (row["output"], prev, store.entry_hash(prev, row), num))
            conn.commit()
            conn.close()
    elif attack == "unsigned entry":
        _sql(db_path, "INSERT INTO evidence (session_id, tool_name, output, recorded_at) "
                      "VALUES ('s1', 'Bash', 'forged', 1.0)")
    elif attack == "renumbered":
        _sql(db_path, "UPDATE evidence SET num = 100 WHERE num = 2",
             "UPDATE evidence SET num = 2 WHERE num = 3", "UPDATE evidence SET num = 3 WHERE num = 100")
    rows = _rows(db_path)
    problems, untrusted, upto = verify.check_since(rows, checkpoint)
    assert upto is None  # a full check ran
    full = verify.check_chain(rows)
    assert ([p.as_dict() for p in problems], untrusted) == ([p.as_dict() for p in full[0]], full[1])
    if attack == "deleted checkpoint":  # entries cut off the end: ids missing, ledger-wide
        assert _kinds(_problems(db_path)) == ["missing"]
    elif attack != "moved checkpoint hash":  # a consistent rewrite is beyond any keyless check
        assert problems


def test_check_since_without_a_checkpoint_is_the_full_check(db_path):
    _fill(db_path)
    _sql(db_path, "UPDATE evidence SET output = 'all fine' WHERE num = 2")
    rows = _rows(db_path)
    problems, untrusted, upto = verify.check_since(rows, None)
    assert upto is None and untrusted == verify.check_chain(rows)[1] == ["E2"]
    assert [p.as_dict() for p in problems] == [p.as_dict() for p in verify.check_chain(rows)[0]]
    assert verify.check_since([], None) == ([], [], None)


def _verified(db_path, session="st"):
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT verified_num, verified_hash FROM decisions WHERE session_id = ? "
                            "ORDER BY num DESC LIMIT 1", (session,)).fetchone()
    finally:
        conn.close()


def test_stop_records_where_the_chain_checked_clean(db_path):
    _tool("step 410 loss=1.9")
    _tool("step 411 loss=1.8")
    _stop("Done, nothing to report.")
    num, digest = _verified(db_path)
    assert num == 2 and digest == _rows(db_path, "st")[-1]["hash"]
    _tool("step 412 loss=1.7")
    _stop("Done again.")
    assert _verified(db_path)[0] == 3
    # A deletion breaks a link: the next Stop checks the whole chain, finds it, and records no
    # checkpoint, so the one after checks everything again.
    _sql(db_path, "DELETE FROM evidence WHERE num = 2")
    _stop("Done a third time.")
    assert _verified(db_path) == (None, None)


def test_stop_rehashes_an_older_entry_a_claim_cites(db_path):
    assert _detector_ready()  # the detector cites E1 for this claim when the entry is intact
    _tool("step 410 loss=1.9")
    _stop("Done, nothing to report.")
    assert _verified(db_path)[0] == 1  # E1 is now behind the checkpoint
    _sql(db_path, "UPDATE evidence SET output = '%s' WHERE num = 1" % LOG)  # forged, hash left alone
    claim = "The loss diverged because the gradients exploded at step 420 (E1)."
    out, stderr = _stop(claim)
    assert out and out.get("decision") == "block"
    assert "integrity check: E1" in out["reason"]
    assert "integrity check" in stderr
    assert _verified(db_path) == (None, None)
    # Quoting the forged output instead of naming the id is caught the same way.
    out, _ = _stop("The loss diverged because the gradients exploded: `%s`." % LOG)
    assert out and out.get("decision") == "block" and "integrity check: E1" in out["reason"]


def test_stop_in_a_fresh_session_checks_the_whole_chain(db_path):
    _tool("ok", session="other")
    _stop("Done.", session="other")
    _tool("step 410 loss=1.9")
    _sql(db_path, "UPDATE evidence SET output = 'edited' WHERE session_id = 'st'")
    first, stderr = _stop("Done, nothing to report.")
    assert "integrity check" in stderr
    assert _verified(db_path) == (None, None)
