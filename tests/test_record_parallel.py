"""Parallel writers and secrets: the two promises about the ledger file itself.

Claude Code runs the hooks of parallel tool calls at the same time, so several processes write
one SQLite file at once. No entry may be lost and none may fail with "database is locked".
"""

import json
import os
import sqlite3
import subprocess
import sys

from hookrun import REPO, hook_env, payload, rows, run_hook


def _spawn_hook(body):
    return subprocess.Popen(
        [sys.executable, "-m", "ledger.hooks", "claude"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=hook_env(), cwd=REPO,
    )


def test_eight_parallel_hooks_lose_nothing(db_path):
    bodies = [payload(tool_input={"command": "echo %d" % i},
                      tool_response={"stdout": "out-%d" % i, "stderr": ""},
                      tool_use_id="toolu_%d" % i)
              for i in range(8)]
    # Start all eight before feeding any, so they race on creating the file and its schema.
    procs = [_spawn_hook(b) for b in bodies]
    outs = [p.communicate(json.dumps(b).encode(), timeout=120) for p, b in zip(procs, bodies)]
    for proc, (out, err) in zip(procs, outs):
        assert proc.returncode == 0
        assert out == b""
        assert err == b"", err
    found = rows(db_path)
    assert sorted(r["output"] for r in found) == sorted("out-%d" % i for i in range(8))
    assert sorted(r["num"] for r in found) == list(range(1, 9))
    # One chain: each entry but the first links to another entry of the session, none twice.
    links = [r["prev_hash"] for r in found]
    assert links.count(None) == 1
    assert len(set(links)) == 8
    assert set(links) - {None} <= {r["hash"] for r in found}


_WRITER = r"""
import sys
from ledger import store
worker, count = int(sys.argv[1]), int(sys.argv[2])
for i in range(count):
    # A fresh connection per entry, as each hook process has.
    conn = store.connect()
    store.record(conn, {"session_id": "s%d" % (worker % 3), "agent": "claude",
                        "tool_name": "Bash", "command": "step %d %d" % (worker, i),
                        "output": "w%d-i%d" % (worker, i)})
    conn.close()
"""


def test_stress_eight_writers_fifty_entries_each(db_path):
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(w), "50"], env=hook_env(), cwd=REPO,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for w in range(8)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    found = rows(db_path)
    assert len(found) == 400
    assert sorted(r["output"] for r in found) == sorted(
        "w%d-i%d" % (w, i) for w in range(8) for i in range(50))
    # Per session, the chain is a single unbroken line: no two entries claim the same parent.
    for session in ("s0", "s1", "s2"):
        chain = [r for r in found if r["session_id"] == session]
        parents = [r["prev_hash"] for r in chain]
        assert len(parents) == len(set(parents))
        assert parents[0] is None
        for prev, row in zip(chain, chain[1:]):
            assert row["prev_hash"] == prev["hash"]
    counts = rows(db_path, "SELECT COUNT(*) AS n FROM evidence_fts")[0]["n"]
    assert counts == 400


# Secrets --------------------------------------------------------------------------------------

AWS_KEY = "AKIA" + "ZQ3XW7RTB2MN5KLP"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "SECRETKEYX9"
PEM_BODY = [
    "MIIEowIBAAKCAQEAx8kQ2pHY3VnZzHfXrN0f5Ldy6Y1B0oA7cT9hGqW2sL4mVn8e",
    "Zr3TqJ5uBq1Kx8wH0sD9fP2gL6kM7nB4vC1xZ0aQ2wE3rT5yU6iO8pA9sD1fG2hJ",
    "kL3zX4cV5bN6mQ7wE8rT9yU0iO1pA2sD3fG4hJ5kL6zX7cV8bN9mQ0wE1rT2yU3i",
]
PEM = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY)
       + "\n-----END RSA PRIVATE KEY-----\n")


def _raw_ledger_bytes(db):
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = db + suffix
        if os.path.exists(path):
            with open(path, "rb") as f:
                data += f.read()
    return data


def _assert_no_secret(data):
    for secret in [AWS_KEY, AWS_SECRET] + PEM_BODY:
        assert secret.encode() not in data, secret
        # Fragments too: a partial key is still a leak.
        assert secret[4:20].encode() not in data, secret


def test_planted_secrets_never_reach_the_file(db_path):
    output = (
        "loading credentials\n"
        "aws_access_key_id = %s\n"
        "aws_secret_access_key = %s\n"
        "%s"
        "step 1 loss=2.31\n" % (AWS_KEY, AWS_SECRET, PEM)
    )
    # Hold a reader open so the WAL and shared-memory files stay on disk to be inspected
    # (the last connection to close would checkpoint and delete them).
    run_hook(payload(tool_response={"stdout": "warm-up", "stderr": ""}))
    reader = sqlite3.connect(db_path)
    reader.execute("SELECT COUNT(*) FROM evidence").fetchone()
    try:
        results = [
            run_hook(payload(tool_input={"command": "cat ~/.aws/credentials"},
                             tool_response={"stdout": output, "stderr": ""})),
            run_hook(payload("Read", {"file_path": "/home/dev/.ssh/id_rsa"},
                             {"type": "text", "file": {"filePath": "/x", "content": PEM}})),
            run_hook(payload(tool_input={"command": "export AWS_ACCESS_KEY_ID=%s" % AWS_KEY},
                             event="PostToolUseFailure",
                             error="Exit code 1\nbad key %s\n%s" % (AWS_KEY, PEM))),
        ]
        for result in results:
            assert result.returncode == 0 and result.stdout == b""
        assert os.path.exists(db_path + "-wal")
        assert os.path.getsize(db_path + "-wal") > 0
        _assert_no_secret(_raw_ledger_bytes(db_path))
    finally:
        reader.close()
    # After the last connection checkpoints the WAL into the main file.
    _assert_no_secret(_raw_ledger_bytes(db_path))
    found = rows(db_path)
    assert len(found) == 4
    assert "[REDACTED:aws-access-key]" in found[1]["output"]
    assert "[REDACTED:private-key]" in found[1]["output"]
    assert "step 1 loss=2.31" in found[1]["output"]  # the useful part survives
    assert found[2]["output"] == "[REDACTED:private-key]\n"
    assert "[REDACTED:aws-access-key]" in found[3]["command"]
    assert "[REDACTED:aws-access-key]" in json.loads(found[3]["tool_input"])["command"]
    # Search cannot dig the key out of the full-text index either.
    conn = sqlite3.connect(db_path)
    hits = conn.execute("SELECT rowid FROM evidence_fts WHERE evidence_fts MATCH ?",
                        ('"%s"' % AWS_KEY[4:16],)).fetchall()
    conn.close()
    assert hits == []
