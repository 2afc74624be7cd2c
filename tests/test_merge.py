"""The search index merge a Stop starts in the background (ledger/merge.py).

What matters: merging changes how many segments the index holds, never what a lookup finds;
a Stop on a deep index leaves a merge behind it and still answers as before; the merge runs one
at a time per ledger, and not at all when turned off.
"""

import fcntl
import os
import time

from hookrun import run_hook
from ledger import merge, store

STOP = ("The loss became NaN because the learning rate was too high from the first step.\n\n"
        "The job crashed because the dataloader ran out of memory.")


def build(path, entries=60):
    """A ledger written the way the recorder writes it: one transaction per entry, so each
    entry adds a segment (FTS5's automerge folds them a few at a time)."""
    conn = store.connect(path)
    try:
        for i in range(entries):
            store.record(conn, {
                "agent": "claude", "session_id": "sess", "tool_name": "Bash",
                "command": "python train.py --step %d" % i,
                "output": "step %d loss=%.3f lr=3.0e-03\n%s" % (
                    i, i / 7, "CUDA out of memory" if i % 7 == 0 else "learning rate warmup done"),
                "failed": i % 7 == 0, "exit_code": 1 if i % 7 == 0 else 0,
            })
    finally:
        conn.close()


TERMS = ["the", "learning", "rate", "memory", "CUDA", "step", "loss=nan", "warmup", "train.py", "zzz"]


def lookups(path):
    conn = store.connect(path)
    try:
        found = store.term_matches(conn, [t.lower() for t in TERMS], 0, 10 ** 9)
        searched = [r["id"] for r in store.search(conn, "CUDA out of memory", limit=10)]
        return found, searched, merge.segments(conn)
    finally:
        conn.close()


def due(path):
    conn = store.connect(path)
    try:
        return merge.due(conn)
    finally:
        conn.close()


def test_merge_keeps_every_lookup_and_leaves_few_segments(tmp_path, monkeypatch):
    monkeypatch.setenv("LEDGER_INDEX_MERGE", "1")
    path = str(tmp_path / "l.db")
    build(path)
    found, searched, before = lookups(path)
    assert before > merge.MAX_SEGMENTS and due(path)
    assert merge.run(path) > 0
    # Every level holds one segment at most: nothing more to merge, so no Stop starts a merge.
    assert not due(path)
    found_after, searched_after, after = lookups(path)
    assert after < before and after <= merge.MAX_SEGMENTS
    assert found_after == found and searched_after == searched
    assert any(found.values())
    conn = store.connect(path)
    try:
        conn.execute("INSERT INTO evidence_fts(evidence_fts) VALUES('integrity-check')")
    finally:
        conn.close()
    # Nothing left to merge: the next run does no work.
    assert merge.run(path) == 0


def test_segments_reads_the_structure_record(tmp_path):
    path = str(tmp_path / "l.db")
    conn = store.connect(path)
    try:
        assert merge.segments(conn) == 0
        store.record(conn, {"session_id": "s", "tool_name": "Bash", "command": "ls", "output": "a.txt"})
        assert merge.segments(conn) == 1
        assert merge.due(conn) is False
    finally:
        conn.close()


def test_one_merge_at_a_time(tmp_path):
    path = str(tmp_path / "l.db")
    build(path, entries=30)
    fd = os.open(path + "-merge", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert merge.run(path) is None
    finally:
        os.close(fd)
    assert merge.run(path) > 0


def _stop(db, session="sess", **env):
    body = {"session_id": session, "hook_event_name": "Stop", "cwd": "/home/dev/proj",
            "prompt_id": "p1", "last_assistant_message": STOP, "stop_hook_active": False}
    return run_hook(body, env=dict(env, LEDGER_DB=db))


def test_a_stop_on_a_deep_index_merges_it_in_the_background(tmp_path):
    path = str(tmp_path / "l.db")
    build(path)
    _, _, before = lookups(path)
    reference = str(tmp_path / "ref.db")
    build(reference)
    # The same verdict with the merge on and off.
    on = _stop(path, LEDGER_INDEX_MERGE=None)
    off = _stop(reference, LEDGER_INDEX_MERGE="0")
    assert on.returncode == 0 and on.stderr == b"", on.stderr
    assert on.stdout == off.stdout and b'"block"' in on.stdout
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        _, _, now = lookups(path)
        if now <= merge.MAX_SEGMENTS:
            break
        time.sleep(0.05)
    assert now < before and now <= merge.MAX_SEGMENTS
    # Turned off: the index is left as it was.
    _, _, untouched = lookups(reference)
    assert untouched == before
