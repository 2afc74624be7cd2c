"""Load: many hook processes recording at once while a Stop check and `ledger show` run.

Guards: the busy timeout and BEGIN IMMEDIATE in store.connect/record (without them parallel
writers get "database is locked" and entries are lost), and the chain's prev_hash being read
inside the write transaction (outside it, two writers of one session would chain to the same
predecessor and `ledger verify` would report inserted entries).

Each writer is a separate OS process that runs the real hook entry point (`ledger.hooks.main`)
once per entry, so dispatch, the adapter and fault handling are all on the path; only the
interpreter start-up per entry is saved. A few real `python -m ledger.hooks` processes run
alongside. CI size: LEDGER_LOAD_WRITERS=16 x LEDGER_LOAD_ENTRIES=50 (800 entries);
bench/reliability.py runs 16 x 500 (8,000).
"""

import json
import os
import subprocess
import sys
import textwrap

from conftest import REPO, hook_env, run_hook
from ledger import store, verify
from reliability_figures import report, size

WRITERS = size("LEDGER_LOAD_WRITERS", 16)
ENTRIES = size("LEDGER_LOAD_ENTRIES", 50)
SESSIONS = 4

WORKER = textwrap.dedent("""
    import contextlib, io, json, sys
    from ledger import hooks

    class Stdin:
        def __init__(self, data):
            self.buffer = io.BytesIO(data)

    worker, entries, sessions = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    notes = []
    for i in range(entries):
        body = {"session_id": "load-%d" % ((worker + i) % sessions), "hook_event_name": "PostToolUse",
                "tool_name": "Bash", "tool_use_id": "w%d-%d" % (worker, i),
                "tool_input": {"command": "step %d %d" % (worker, i)},
                "tool_response": {"stdout": "worker %d entry %d loss=%d" % (worker, i, i), "stderr": ""}}
        sys.stdin = Stdin(json.dumps(body).encode())
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = hooks.main(["claude"])
        if code != 0 or out.getvalue() or err.getvalue():
            notes.append([code, out.getvalue(), err.getvalue()])
    print(json.dumps(notes))
""")


def test_concurrent_writers_with_stop_and_show(db_path):
    env = hook_env()
    run_hook({"session_id": "load-0", "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "warm"}, "tool_response": {"stdout": "warm", "stderr": ""}})
    writers = [subprocess.Popen([sys.executable, "-c", WORKER, str(w), str(ENTRIES), str(SESSIONS)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
               for w in range(WRITERS)]
    readers = 0
    stops = []
    real = 0
    # While they write: Stop checks, `ledger show`, `ledger verify` and real hook processes.
    while any(p.poll() is None for p in writers):
        stop = run_hook({"session_id": "load-1", "hook_event_name": "Stop", "prompt_id": "p%d" % readers,
                         "last_assistant_message": "Checked the run; the loss is finite so far."}, timeout=120)
        stops.append(stop)
        show = subprocess.run([sys.executable, "-m", "ledger", "show"], capture_output=True, env=env,
                              cwd=REPO, timeout=120)
        assert show.returncode == 0, show.stderr
        assert b"locked" not in show.stderr
        tool = run_hook({"session_id": "load-2", "hook_event_name": "PostToolUse", "tool_name": "Bash",
                         "tool_input": {"command": "real %d" % readers},
                         "tool_response": {"stdout": "real process %d" % readers, "stderr": ""}}, timeout=120)
        assert tool.returncode == 0 and tool.stdout == b"" and tool.stderr == b"", tool.stderr
        real += 1
        readers += 1
    for p in writers:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        assert json.loads(out) == [], out[:2000]  # nothing on stdout/stderr, exit 0, every time
    for stop in stops:
        assert stop.returncode == 0
        assert b"locked" not in stop.stdout + stop.stderr
        assert b'"block"' not in stop.stdout
    conn = store.connect(db_path, readonly=True)
    try:
        load = conn.execute("SELECT COUNT(*) FROM evidence WHERE tool_use_id LIKE 'w%'").fetchone()[0]
        distinct = conn.execute("SELECT COUNT(DISTINCT tool_use_id) FROM evidence WHERE tool_use_id LIKE 'w%'").fetchone()[0]
        problems, checked = verify.verify(conn)
    finally:
        conn.close()
    assert load == distinct == WRITERS * ENTRIES
    assert problems == [], problems[:5]
    assert checked == WRITERS * ENTRIES + 1 + real
    report("load", writers=WRITERS, entries_each=ENTRIES, recorded=load, stop_checks=len(stops),
           show_runs=readers, real_hook_processes=real, chain_problems=len(problems))
