"""Crash safety: SIGKILL a recording hook at random points while it writes.

Guards: store.record writing the entry, its FTS row and the session row in one BEGIN IMMEDIATE
transaction, on a WAL database. Were any of those written outside the transaction (or the
journal turned off), some kills would leave an entry without its index row, a half-updated
chain, or a file that fails `PRAGMA integrity_check`.

Kills land anywhere from process start to exit; the delays are spread over a measured
uninterrupted run, so a good share of them fall inside the write. LEDGER_CRASH_KILLS sets the
count (bench/reliability.py raises it).
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import REPO, hook_env
from ledger import store, verify
from reliability_figures import report, size

KILLS = size("LEDGER_CRASH_KILLS", 30)


def _payload(tmp_path, i):
    # Big enough that redaction, capping and the insert take a while: more kills land mid-write.
    body = {"session_id": "crash-%d" % (i % 3), "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "cat big-%d.log" % i},
            "tool_response": {"stdout": ("run %d " % i) + "x" * 600_000, "stderr": ""}}
    path = tmp_path / ("p%d.json" % (i % 4))
    path.write_text(json.dumps(body))
    return path


def _start(path, env):
    with open(path, "rb") as stdin:
        return subprocess.Popen([sys.executable, "-m", "ledger.hooks", "claude"], stdin=stdin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)


def _check(db_path):
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # The full-text index must hold exactly the entries: no entry without its row, or back.
        conn.execute("INSERT INTO evidence_fts (evidence_fts) VALUES ('integrity-check')")
        fts = conn.execute("SELECT COUNT(*) FROM evidence_fts").fetchone()[0]
        count = conn.execute("SELECT COUNT(*) FROM evidence").fetchone()[0]
        assert fts == count
        partial = conn.execute("SELECT COUNT(*) FROM evidence WHERE hash IS NULL OR output_sha256 IS NULL"
                               " OR output NOT LIKE 'run %'").fetchone()[0]
        assert partial == 0
    finally:
        conn.close()
    reader = store.connect(db_path, readonly=True)
    try:
        problems, checked = verify.verify(reader)
    finally:
        reader.close()
    assert problems == [], problems
    return checked


def test_sigkill_while_recording_never_leaves_a_partial_entry(tmp_path, db_path):
    env = hook_env()
    rng = random.Random(int(os.environ.get("LEDGER_CRASH_SEED", "5")))
    paths = [_payload(tmp_path, i) for i in range(4)]
    # How long one recording takes, from warm runs: the first one of a fresh checkout compiles
    # and caches, and calibrating on it put most kills after the process had already exited.
    spans = []
    for i in range(4):
        started = time.monotonic()
        proc = _start(paths[i], env)
        proc.communicate(timeout=60)
        assert proc.returncode == 0
        spans.append(time.monotonic() - started)
    span = min(spans[1:])
    killed = completed = 0
    for i in range(KILLS):
        proc = _start(paths[i % 4], env)
        time.sleep(rng.uniform(0.2, 0.8) * span)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        if proc.returncode == -signal.SIGKILL:
            killed += 1
        else:
            assert proc.returncode == 0
            completed += 1
        if i % 10 == 9:
            _check(db_path)
    entries = _check(db_path)
    # After all that, the hook still records normally.
    proc = _start(paths[0], env)
    proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert _check(db_path) == entries + 1
    assert killed > KILLS // 2, "most kills should land before the process exits"
    report("crash", kills=KILLS, killed_mid_run=killed, finished_first=completed, entries=entries + 1)
