"""Faults of the guard's own: the agent keeps working, the user is told once, doctor explains.

Guards, per case: fail-open recording (hooks/__init__.py dispatch -> fault()), the fault file
and the Stop hook's one-time systemMessage (ledger/faults.py, stop._output), the corrupt-file
quarantine in store.connect / store.quarantine (moved aside, never overwritten), the
LEDGER_BUSY_TIMEOUT_MS override, the transcript checks in stop.read_transcript, and the fault
lines in `ledger doctor` (install.ledger_health).

Read-only and full disks need a private mount namespace (root + unshare); without one those
cases skip.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO, hook_env, rows, run_hook

TOOL = {"session_id": "sf", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "nvidia-smi"}, "tool_response": {"stdout": "GPU 0: ok", "stderr": ""}}


def stop(session="sf", env=None, **extra):
    body = {"session_id": session, "hook_event_name": "Stop", "last_assistant_message": "Done."}
    body.update(extra)
    result = run_hook(body, env=env)
    assert result.returncode == 0
    out = result.stdout.decode().strip()
    return (json.loads(out) if out else None), result.stderr.decode()


def fails_open(result):
    """The agent's view: exit 0, nothing on stdout, one note on stderr."""
    assert result.returncode == 0
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert lines and all(line.startswith("evidence-ledger: ") for line in lines), lines
    return lines[-1]


def told_once(kind_words, env=None):
    first, _ = stop(env=env)
    assert first and "systemMessage" in first, first
    assert any(w in first["systemMessage"] for w in kind_words), first["systemMessage"]
    assert "ledger doctor" in first["systemMessage"]
    second, _ = stop(env=env)
    assert second is None or not any(w in second.get("systemMessage", "") for w in kind_words)
    return first["systemMessage"]


def doctor_says(*words, env=None):
    from ledger import install

    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        checks = install.ledger_health(os.environ["LEDGER_DB"])
    finally:
        os.environ.clear()
        os.environ.update(old)
    text = "\n".join(m for _, m in checks)
    for word in words:
        assert word in text, text
    return text


def test_missing_folder_is_created(tmp_path):
    db = tmp_path / "a" / "b" / "c" / "ledger.db"
    result = run_hook(TOOL, env={"LEDGER_DB": db})
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    assert rows(str(db))[0]["output"] == "GPU 0: ok"
    assert oct(os.stat(db.parent).st_mode & 0o777) == "0o700"


def test_folder_that_cannot_be_created(tmp_path):
    # A file where the folder should be: not even root can create the ledger there.
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    env = {"LEDGER_DB": blocker / "ledger.db"}
    line = fails_open(run_hook(TOOL, env=env))
    assert "not recorded" in line and "cannot create the ledger" in line
    message = told_once(["folder cannot be written"], env=env)
    assert "blocker" in message
    doctor_says("fault: unwritable", "LEDGER_DB", env={"LEDGER_DB": str(blocker / "ledger.db")})


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores folder permissions")
def test_unwritable_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    env = {"LEDGER_DB": folder / "ledger.db"}
    try:
        fails_open(run_hook(TOOL, env=env))
        told_once(["cannot be written"], env=env)
    finally:
        folder.chmod(0o700)


def test_corrupted_file_is_moved_aside_and_a_new_ledger_started(db_path):
    os.makedirs(os.path.dirname(db_path), exist_ok=True)
    garbage = b"this is not sqlite\x00" * 500
    with open(db_path, "wb") as f:
        f.write(garbage)
    result = run_hook(TOOL)
    assert result.returncode == 0 and result.stdout == b""
    assert "damaged" in result.stderr.decode()
    kept = [n for n in os.listdir(os.path.dirname(db_path)) if ".corrupt-" in n]
    assert len(kept) == 1
    with open(os.path.join(os.path.dirname(db_path), kept[0]), "rb") as f:
        assert f.read() == garbage  # never overwritten
    assert rows(db_path)[0]["output"] == "GPU 0: ok"
    # A second call records into the new ledger; nothing else is moved.
    run_hook(TOOL)
    assert len(rows(db_path)) == 2
    assert len([n for n in os.listdir(os.path.dirname(db_path)) if ".corrupt-" in n]) == 1
    told_once(["damaged"])
    doctor_says("damaged ledger kept at", ".recover")


def test_damage_past_the_header_is_found_on_write(db_path):
    from ledger import store

    conn = store.connect(db_path)
    for i in range(300):
        store.record(conn, {"session_id": "fill", "output": "x" * 3000 + str(i)})
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = os.path.getsize(db_path)
    with open(db_path, "r+b") as f:  # keep page 1 (a valid header), scribble over the b-trees
        f.seek(4096)
        f.write(os.urandom(size - 4096))
    result = run_hook(TOOL)
    assert result.returncode == 0 and result.stdout == b""
    folder = os.path.dirname(db_path)
    assert any(".corrupt-" in n for n in os.listdir(folder))
    assert [r["output"] for r in rows(db_path)] == ["GPU 0: ok"]


LOCKER = textwrap.dedent("""
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    sys.stdin.read()
""")


def test_database_locked_longer_than_the_timeout(db_path):
    run_hook(TOOL)  # create it
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, db_path], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        assert locker.stdout.readline().strip() == b"locked"
        env = {"LEDGER_BUSY_TIMEOUT_MS": "200"}
        line = fails_open(run_hook(TOOL, env=env))
        assert "(locked)" in line
        # The Stop hook cannot write its decision either, and still lets the agent stop.
        out, err = stop(env=env)
        assert out is None or out.get("decision") != "block"
    finally:
        locker.stdin.close()
        locker.wait(timeout=10)
    assert len(rows(db_path)) == 1  # the locked call was lost, and only that one
    told_once(["locked"])
    doctor_says("fault: locked", "fuser")


def test_busy_timeout_env_is_honoured(monkeypatch, db_path):
    from ledger import store

    monkeypatch.setenv("LEDGER_BUSY_TIMEOUT_MS", "1234")
    conn = store.connect(db_path)
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 1234
    conn.close()
    monkeypatch.setenv("LEDGER_BUSY_TIMEOUT_MS", "nonsense")
    conn = store.connect(db_path)
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == store.BUSY_TIMEOUT_MS
    conn.close()


# Transcripts (Stop payloads without last_assistant_message fall back to them).

CLAIM = "The root cause is the learning rate: it is too high, so the loss diverges."


def _line(kind, content, **extra):
    entry = {"type": kind, "message": {"role": kind, "content": content}, "uuid": extra.pop("uuid", kind)}
    entry.update(extra)
    return json.dumps(entry) + "\n"


def _stop_with_transcript(path, session="sf"):
    result = run_hook({"session_id": session, "hook_event_name": "Stop", "transcript_path": str(path)})
    assert result.returncode == 0
    out = result.stdout.decode().strip()
    return (json.loads(out) if out else None), result.stderr.decode()


def test_missing_transcript(tmp_path):
    out, err = _stop_with_transcript(tmp_path / "gone.jsonl")
    assert "does not exist" in err
    assert out and "transcript" in out["systemMessage"]
    again, _ = _stop_with_transcript(tmp_path / "gone.jsonl")
    assert again is None or "transcript" not in again.get("systemMessage", "")
    doctor_says("fault: transcript")


def test_transcript_truncated_mid_line_is_not_judged(tmp_path):
    # The complete older line holds an uncited claim; the newest line is cut off mid-write.
    # Judging the older one would block the agent for a message it may have replaced.
    path = tmp_path / "t.jsonl"
    with open(path, "w") as f:
        f.write(_line("user", "why does training diverge?", uuid="u1"))
        f.write(_line("assistant", [{"type": "text", "text": CLAIM}], uuid="a1"))
        f.write(_line("assistant", [{"type": "text", "text": "Hypothesis: the LR is too high."}], uuid="a2")[:40])
    out, err = _stop_with_transcript(path)
    assert out is None or out.get("decision") != "block"
    assert "partial line" in err
    assert out and "transcript" in out.get("systemMessage", "")


def test_enormous_transcript(tmp_path):
    path = tmp_path / "big.jsonl"
    with open(path, "w") as f:
        f.write(_line("user", "why?", uuid="u1"))
        f.write(_line("assistant", [{"type": "text", "text": CLAIM}], uuid="a1"))
        f.write(_line("user", [{"type": "tool_result", "tool_use_id": "t", "content": "y" * (10 * 2**20)}], uuid="u2"))
    out, err = _stop_with_transcript(path)
    assert out is None or out.get("decision") != "block"
    assert "MB" in err


# Read-only and full disks: a tmpfs in a private mount namespace.

def _can_mount():
    if not shutil.which("unshare") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True)
    return probe.returncode == 0


needs_mount = pytest.mark.skipif(not _can_mount(), reason="needs root and unshare -m to mount a tmpfs")


def _in_namespace(script, mountpoint, env):
    files = os.path.dirname(str(mountpoint))
    with open(os.path.join(files, "payload.json"), "w") as f:
        json.dump(TOOL, f)
    with open(os.path.join(files, "big.json"), "w") as f:
        json.dump(dict(TOOL, tool_response={"stdout": os.urandom(400000).hex(), "stderr": ""}), f)
    full = textwrap.dedent(script).format(mnt=mountpoint, py=sys.executable,
                                          payload=os.path.join(files, "payload.json"),
                                          big=os.path.join(files, "big.json"))
    return subprocess.run(["unshare", "-m", "sh", "-c", full], capture_output=True,
                          env=hook_env(**env), cwd=REPO, timeout=120)


@needs_mount
def test_read_only_disk(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    env = {"LEDGER_DB": mnt / "ledger.db"}
    result = _in_namespace("""
        mount -t tmpfs -o size=2m tmpfs {mnt} || exit 99
        {py} -m ledger.hooks claude < {payload} || exit 98
        mount -o remount,ro {mnt} || exit 97
        {py} -m ledger.hooks claude < {payload}
        echo "rc=$?"
    """, mnt, env)
    out = result.stdout.decode()
    assert "rc=0" in out, (out, result.stderr)
    assert "not recorded (readonly)" in result.stderr.decode()
    message = told_once(["read-only"], env=env)
    assert "read-only" in message
    doctor_says("fault: readonly", env={"LEDGER_DB": str(mnt / "ledger.db")})


@needs_mount
def test_full_disk(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    env = {"LEDGER_DB": mnt / "ledger.db"}
    result = _in_namespace("""
        mount -t tmpfs -o size=512k tmpfs {mnt} || exit 99
        {py} -m ledger.hooks claude < {payload} || exit 98
        dd if=/dev/zero of={mnt}/filler bs=4k 2>/dev/null
        {py} -m ledger.hooks claude < {big}
        echo "rc=$?"
        rm {mnt}/filler
        {py} -c "import sqlite3; print(sqlite3.connect('{mnt}/ledger.db').execute('pragma integrity_check').fetchone()[0])"
    """, mnt, env)
    out = result.stdout.decode()
    assert "rc=0" in out and out.strip().endswith("ok"), (out, result.stderr)
    assert "not recorded (full)" in result.stderr.decode()
    told_once(["disk holding the ledger is full"], env=env)
    doctor_says("fault: full", "ledger gc", env={"LEDGER_DB": str(mnt / "ledger.db")})
