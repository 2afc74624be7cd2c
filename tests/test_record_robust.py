"""Whatever arrives on stdin, the hook exits 0, prints nothing on stdout and records what it can.

A recording hook that crashes or prints a decision breaks the agent's tool call; that is worse
than losing one entry.
"""

import hashlib
import json
import os

import pytest

from hookrun import payload, rows, run_hook


def _quiet_exit(result):
    assert result.returncode == 0
    assert result.stdout == b""
    lines = result.stderr.decode("utf-8", "replace").splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("evidence-ledger: ")
    return lines[0]


def _nothing_recorded(db):
    return not os.path.exists(db) or rows(db) == []


@pytest.mark.parametrize(
    "stdin, says",
    [
        (b"", "empty stdin"),
        (b"   \n", "empty stdin"),
        (b"hello, not json", "not JSON"),
        (b'{"session_id": "s", "hook_event_name": "PostToolUse"', "not JSON"),
        (b"[1, 2, 3]", "not an object"),
        (b'"just a string"', "not an object"),
        (b"null", "not an object"),
        (b"[" * 100000 + b"]" * 100000, "not JSON"),
        (b"\xff\xfe\x00\x01binary\x00", "not JSON"),
    ],
    ids=["empty", "blank", "text", "truncated", "array", "string", "null", "deep", "binary"],
)
def test_bad_stdin_exits_zero_with_one_note(stdin, says, db_path):
    line = _quiet_exit(run_hook(stdin))
    assert says in line
    assert _nothing_recorded(db_path)


def test_unknown_event_is_ignored(db_path):
    line = _quiet_exit(run_hook({"session_id": "s", "hook_event_name": "Teleport"}))
    assert "Teleport" in line
    assert _nothing_recorded(db_path)


def test_missing_event_name_is_ignored(db_path):
    _quiet_exit(run_hook({"session_id": "s", "tool_name": "Bash"}))
    assert _nothing_recorded(db_path)


def test_unknown_agent(db_path):
    line = _quiet_exit(run_hook(payload(tool_response={"stdout": "x"}), agent="cursor"))
    assert "unknown agent" in line
    assert _nothing_recorded(db_path)


def test_no_agent_argument_prints_usage_and_exits_zero():
    import subprocess
    import sys

    from hookrun import REPO, hook_env

    result = subprocess.run([sys.executable, "-m", "ledger.hooks"], input=b"{}",
                            capture_output=True, env=hook_env(), cwd=REPO)
    assert result.returncode == 0
    assert result.stdout == b""
    assert b"usage: ledger-hook" in result.stderr


def test_wrong_types_are_recorded_as_far_as_possible(db_path):
    body = {
        "session_id": 12345,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": "echo not-a-dict",
        "tool_response": 42,
        "duration_ms": "fast",
        "cwd": ["/a", "/b"],
        "prompt_id": {"x": 1},
    }
    result = run_hook(body)
    assert result.returncode == 0 and result.stdout == b""
    row = rows(db_path)[0]
    assert row["session_id"] == "12345"
    assert row["tool_name"] == "Bash"
    assert row["output"] == "42"
    assert row["tool_input"] == "echo not-a-dict"
    assert row["command"] is None
    assert row["duration_ms"] is None


def test_response_fields_of_wrong_types(db_path):
    run_hook(payload("Bash", {"command": ["python", "-c", "1"]},
                     {"stdout": None, "stderr": 7, "interrupted": "yes"}))
    run_hook(payload("Read", {"file_path": 3}, {"file": {"content": None}}))
    run_hook(payload("Grep", {"pattern": "x"}, {"content": "", "filenames": "not a list"}))
    bash, read, grep = rows(db_path)
    assert bash["command"] == "python -c 1"
    assert bash["output"] == ""
    assert json.loads(read["output"]) == {"content": None}
    assert json.loads(grep["output"]) == {"content": "", "filenames": "not a list"}


def test_missing_session_id_recorded_under_unknown(db_path):
    body = payload(tool_response={"stdout": "x", "stderr": ""})
    del body["session_id"]
    del body["tool_use_id"]
    line = _quiet_exit(run_hook(body))
    assert "session_id" in line
    row = rows(db_path)[0]
    assert row["session_id"] == "unknown"
    assert row["tool_use_id"] is None
    assert row["output"] == "x"


def test_binary_and_nul_in_output(db_path):
    # Invalid UTF-8 inside a JSON string, and a NUL escape: stored, not fatal.
    raw = b'{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash",' \
          b'"tool_input":{"command":"cat blob"},"tool_response":{"stdout":"ab\xff\xfecd\\u0000ef","stderr":""}}'
    result = run_hook(raw)
    assert result.returncode == 0 and result.stdout == b""
    row = rows(db_path)[0]
    assert row["output"] == "ab\ufffd\ufffdcd\x00ef"


def test_control_characters_in_json_strings(db_path):
    # Claude Code has sent raw tabs/newlines inside strings; json.loads(strict=False) takes them.
    raw = b'{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash",' \
          b'"tool_input":{"command":"x"},"tool_response":{"stdout":"a\tb\nc","stderr":""}}'
    run_hook(raw)
    assert rows(db_path)[0]["output"] == "a\tb\nc"


def test_unwritable_ledger_fails_open(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run_hook(payload(tool_response={"stdout": "x"}),
                      env={"LEDGER_DB": str(blocker / "ledger.db")})
    line = _quiet_exit(result)
    assert "nothing blocked" in line


def test_corrupt_ledger_fails_open(db_path):
    os.makedirs(os.path.dirname(db_path), exist_ok=True)
    with open(db_path, "wb") as f:
        f.write(b"this is not a database" * 100)
    result = run_hook(payload(tool_response={"stdout": "x"}))
    # Either the damaged file is moved aside and recording goes on, or nothing is recorded;
    # both are fine as long as the agent sees exit 0, no decision and at most one note.
    assert result.returncode == 0
    assert result.stdout == b""
    assert len(result.stderr.splitlines()) <= 1


# Capping -------------------------------------------------------------------------------------

def _big(n_bytes):
    head = "HEAD-MARKER " + "a" * 100
    tail = "z" * 100 + " TAIL-MARKER"
    middle = "m" * (n_bytes - len(head) - len(tail))
    return head + middle + tail


def test_default_cap_is_one_mib_and_keeps_head_tail_and_full_hash(db_path):
    text = _big(3 * 1024 * 1024)
    result = run_hook(payload(tool_response={"stdout": text, "stderr": ""}))
    assert result.returncode == 0 and result.stdout == b""
    row = rows(db_path)[0]
    assert row["truncated"] == 1
    assert row["output"].startswith("HEAD-MARKER ")
    assert row["output"].endswith(" TAIL-MARKER")
    assert "bytes omitted by evidence-ledger" in row["output"]
    assert 1024 * 1024 <= len(row["output"].encode()) <= 1024 * 1024 + 200
    assert row["output_length"] == len(text.encode())
    assert row["output_sha256"] == hashlib.sha256(text.encode()).hexdigest()


def test_ledger_max_output_env(db_path):
    text = _big(10000)
    run_hook(payload(tool_response={"stdout": text, "stderr": ""}), env={"LEDGER_MAX_OUTPUT": "1000"})
    small = "short output"
    run_hook(payload(tool_response={"stdout": small, "stderr": ""}), env={"LEDGER_MAX_OUTPUT": "1000"})
    big_row, small_row = rows(db_path)
    assert big_row["truncated"] == 1
    assert len(big_row["output"].encode()) <= 1000 + 100
    assert big_row["output"].startswith("HEAD-MARKER") and big_row["output"].endswith("TAIL-MARKER")
    omitted = int(big_row["output"].split("[... ")[1].split(" bytes")[0])
    assert omitted == 10000 - 1000
    assert big_row["output_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert small_row["truncated"] == 0 and small_row["output"] == small


def test_bad_ledger_max_output_falls_back_to_default(db_path):
    text = _big(5000)
    run_hook(payload(tool_response={"stdout": text, "stderr": ""}), env={"LEDGER_MAX_OUTPUT": "lots"})
    row = rows(db_path)[0]
    assert row["truncated"] == 0 and row["output"] == text


def test_cap_keeps_multibyte_text_valid(db_path):
    text = "損失が発散しました。" * 2000  # 3 bytes a character: the cut lands mid-character
    run_hook(payload(tool_response={"stdout": text, "stderr": ""}), env={"LEDGER_MAX_OUTPUT": "1001"})
    row = rows(db_path)[0]
    assert row["truncated"] == 1
    assert row["output"].startswith("損失が発散")
    assert row["output"].endswith("発散しました。")
    assert "\ufffd" not in row["output"]


def test_secret_near_the_cut_of_a_huge_output_is_redacted(db_path):
    # The key straddles the head's cut: redacting after cutting would keep "AKIAQQQQQ" whole
    # enough to matter and unrecognisable to the redactor.
    key = "AKIA" + "Q" * 16
    text = "x" * (512 * 1024 - 10) + " " + key + " " + "y" * (5 * 1024 * 1024)
    run_hook(payload(tool_response={"stdout": text, "stderr": ""}))
    row = rows(db_path)[0]
    assert row["truncated"] == 1
    assert "AKIA" not in row["output"] and "QQQQ" not in row["output"]
    assert "[REDAC" in row["output"]
