"""The recording hook, fired as a real process with real JSON, checked by reading the SQLite file.

The Claude Code 2.1.328 captures are exact stdin of a live client; the synthetic payloads below
cover the other tool shapes the hook must render (hooks-spec.md section 2.3).
"""

import hashlib
import json
import os
import subprocess
import sys

import pytest

import ledger.hooks
from hookrun import REPO, fixture_path, hook_env, payload, rows, run_hook

CC = fixture_path("cc-2.1.328", "hook-payloads")


def _jsonl(name):
    path = os.path.join(CC, name)
    if not os.path.exists(path):
        pytest.skip("capture not present: %s" % path)
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _fire(body, **env):
    result = run_hook(body, env=env)
    assert result.returncode == 0, result.stderr
    # A recording hook never says anything to the agent.
    assert result.stdout == b""
    return result


def _one(db):
    found = rows(db)
    assert len(found) == 1, found
    return found[0]


# The real captures ---------------------------------------------------------------------------

@pytest.mark.parametrize("index", range(1))
def test_cc_post_tool_use_capture(db_path, index):
    body = _jsonl("PostToolUse.jsonl")[index]
    result = _fire(body)
    assert result.stderr == b""
    row = _one(db_path)
    response = body["tool_response"]
    assert row["session_id"] == body["session_id"]
    assert row["agent"] == "claude"
    assert row["event"] == "PostToolUse"
    assert row["tool_name"] == body["tool_name"] == "Bash"
    assert row["tool_use_id"] == body["tool_use_id"]
    assert row["turn_id"] == body["prompt_id"]
    assert row["command"] == body["tool_input"]["command"]
    assert json.loads(row["tool_input"]) == body["tool_input"]
    expected = "\n".join(p for p in (response["stdout"], response["stderr"]) if p)
    assert row["output"] == expected
    assert "loss=nan" in row["output"]
    assert row["failed"] == 0
    assert row["exit_code"] == 0
    assert row["interrupted"] == 0
    assert row["duration_ms"] == body["duration_ms"]
    assert row["cwd"] == body["cwd"]
    assert row["output_sha256"] == hashlib.sha256(expected.encode()).hexdigest()
    assert row["output_length"] == len(expected.encode())
    assert row["truncated"] == 0
    session = rows(db_path, "SELECT * FROM sessions")[0]
    assert session["id"] == body["session_id"]
    assert session["agent"] == "claude"
    assert session["transcript_path"] == body["transcript_path"]


def test_cc_post_tool_use_failure_capture(db_path):
    body = _jsonl("PostToolUseFailure.jsonl")[0]
    assert "tool_response" not in body  # the shape this test is about
    _fire(body)
    row = _one(db_path)
    assert row["event"] == "PostToolUseFailure"
    assert row["failed"] == 1
    assert row["exit_code"] == int(body["error"].split("\n")[0].split()[-1]) == 1
    assert row["output"] == body["error"]
    assert "KeyError: labels" in row["output"]
    assert row["interrupted"] == int(bool(body["is_interrupt"]))
    assert row["command"] == body["tool_input"]["command"]


def test_cc_captures_in_order_share_one_session_chain(db_path):
    success = _jsonl("PostToolUse.jsonl")[0]
    failure = _jsonl("PostToolUseFailure.jsonl")[0]
    _fire(success)
    _fire(failure)
    found = rows(db_path)
    assert [r["event"] for r in found] == ["PostToolUse", "PostToolUseFailure"]
    assert found[0]["prev_hash"] is None
    assert found[1]["prev_hash"] == found[0]["hash"]
    assert len(rows(db_path, "SELECT * FROM sessions")) == 1


def test_non_tool_captures_record_nothing(db_path):
    for name in ("SessionStart.jsonl", "UserPromptSubmit.jsonl"):
        for body in _jsonl(name):
            result = run_hook(body)
            assert result.returncode == 0
            assert result.stdout == b""
    if os.path.exists(db_path):
        assert rows(db_path) == []


# Every tool shape ----------------------------------------------------------------------------

def test_bash_joins_stdout_and_stderr(db_path):
    _fire(payload("Bash", {"command": "python train.py"},
                  {"stdout": "epoch 1 loss=2.3", "stderr": "UserWarning: lr high",
                   "interrupted": False, "isImage": False}))
    row = _one(db_path)
    assert row["output"] == "epoch 1 loss=2.3\nUserWarning: lr high"
    assert row["command"] == "python train.py"
    assert row["exit_code"] == 0


def test_bash_interrupted_flag(db_path):
    _fire(payload("Bash", {"command": "sleep 100"},
                  {"stdout": "", "stderr": "", "interrupted": True}))
    row = _one(db_path)
    assert row["interrupted"] == 1
    assert row["output"] == ""


def test_read_stores_file_content(db_path):
    content = "lr: 3e-4\nbatch_size: 64\n"
    _fire(payload("Read", {"file_path": "/p/config.yaml"},
                  {"type": "text", "file": {"filePath": "/p/config.yaml", "content": content,
                                            "numLines": 2, "startLine": 1, "totalLines": 2}}))
    row = _one(db_path)
    assert row["output"] == content
    assert row["command"] == "/p/config.yaml"
    assert row["exit_code"] is None


def test_grep_content_mode(db_path):
    _fire(payload("Grep", {"pattern": "nan", "path": "/p/logs", "output_mode": "content"},
                  {"mode": "content", "content": "logs/a.log:3:loss=nan", "filenames": [],
                   "numLines": 1}))
    row = _one(db_path)
    assert row["output"] == "logs/a.log:3:loss=nan"
    assert row["command"] == "nan"  # the pattern is the target a reader wants, not the folder


def test_grep_files_mode_and_glob(db_path):
    _fire(payload("Grep", {"pattern": "import torch"},
                  {"mode": "files_with_matches", "filenames": ["a.py", "b.py"], "numFiles": 2}))
    _fire(payload("Glob", {"pattern": "**/*.log"},
                  {"filenames": ["/p/x.log", "/p/y.log"], "durationMs": 3, "numFiles": 2,
                   "truncated": False}))
    grep, glob = rows(db_path)
    assert grep["output"] == "a.py\nb.py"
    assert glob["output"] == "/p/x.log\n/p/y.log"
    assert glob["command"] == "**/*.log"


def test_webfetch_result(db_path):
    _fire(payload("WebFetch", {"url": "https://example.org/a", "prompt": "summarise"},
                  {"bytes": 1234, "code": 200, "codeText": "OK", "result": "The page says hi.",
                   "durationMs": 50, "url": "https://example.org/a"}))
    row = _one(db_path)
    assert row["output"] == "The page says hi."
    assert row["command"] == "https://example.org/a"


def test_mcp_list_of_blocks(db_path):
    _fire(payload("mcp__github__get_issue", {"owner": "o", "repo": "r", "issue_number": 7},
                  [{"type": "text", "text": "Issue #7: NaN loss"},
                   {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                   {"type": "text", "text": "second block"}]))
    row = _one(db_path)
    assert row["output"] == "Issue #7: NaN loss\n[image]\nsecond block"
    assert "iVBORw0KGgo" not in row["output"]
    assert row["tool_name"] == "mcp__github__get_issue"


def test_task_and_agent_results(db_path):
    _fire(payload("Task", {"description": "find the bug", "prompt": "look",
                           "subagent_type": "general-purpose"},
                  {"status": "completed", "agentId": "a1",
                   "content": [{"type": "text", "text": "The bug is in collate."}],
                   "totalTokens": 10, "totalDurationMs": 5, "totalToolUseCount": 1}))
    _fire(payload("Agent", {"description": "probe", "prompt": "run it"},
                  {"status": "completed", "content": "plain string result"}))
    task, agent = rows(db_path)
    assert task["output"] == "The bug is in collate."
    assert task["command"] == "find the bug"
    assert agent["output"] == "plain string result"


def test_unknown_tool_is_compact_json(db_path):
    response = {"newTodos": [{"content": "check lr", "status": "pending"}], "oldTodos": []}
    _fire(payload("TodoWrite", {"todos": []}, response))
    row = _one(db_path)
    assert json.loads(row["output"]) == response
    assert ", " not in row["output"] and ": " not in row["output"]


def test_plain_string_response(db_path):
    _fire(payload("LS", {"path": "/p"}, "- /p/\n  - a.py\n"))
    assert _one(db_path)["output"] == "- /p/\n  - a.py\n"


def test_write_does_not_store_the_written_content(db_path):
    # The agent's own words are not evidence: quoting them back must not count as a citation.
    written = "root cause: the learning rate is too high"
    _fire(payload("Write", {"file_path": "/p/notes.md", "content": written},
                  {"type": "create", "filePath": "/p/notes.md", "content": written,
                   "structuredPatch": []}))
    row = _one(db_path)
    assert written not in row["output"]
    assert "/p/notes.md" in row["output"]


def test_failure_exit_codes(db_path):
    _fire(payload("Bash", {"command": "pytest"}, event="PostToolUseFailure",
                  error="Exit code 2\n2 failed, 3 passed", is_interrupt=False))
    _fire(payload("Bash", {"command": "sleep 9"}, event="PostToolUseFailure",
                  error="Exit code 137\n", is_interrupt=True))
    _fire(payload("Read", {"file_path": "/nope"}, event="PostToolUseFailure",
                  error="File does not exist."))
    _fire(payload("WebFetch", {"url": "https://x"}, event="PostToolUseFailure",
                  error={"message": "timeout"}))
    pytest_row, killed, read, fetch = rows(db_path)
    assert (pytest_row["failed"], pytest_row["exit_code"]) == (1, 2)
    assert pytest_row["output"] == "Exit code 2\n2 failed, 3 passed"
    assert (killed["exit_code"], killed["interrupted"]) == (137, 1)
    assert (read["failed"], read["exit_code"]) == (1, None)
    assert read["output"] == "File does not exist."
    assert fetch["failed"] == 1 and json.loads(fetch["output"]) == {"message": "timeout"}


def test_subagent_fields_and_project_dir(db_path):
    _fire(payload("Bash", {"command": "ls"}, {"stdout": "a", "stderr": ""},
                  agent_id="sub-9", agent_type="Explore", prompt_id="turn-3"),
          CLAUDE_PROJECT_DIR="/home/dev/repo")
    row = _one(db_path)
    assert row["agent_id"] == "sub-9"
    assert row["turn_id"] == "turn-3"
    session = rows(db_path, "SELECT * FROM sessions")[0]
    assert session["project_dir"] == "/home/dev/repo"
    assert session["cwd"] == "/home/dev/project"


def test_evidence_ids_are_global_across_sessions(db_path):
    _fire(payload(session_id="a", tool_response={"stdout": "1", "stderr": ""}))
    _fire(payload(session_id="b", tool_response={"stdout": "2", "stderr": ""}))
    _fire(payload(session_id="a", tool_response={"stdout": "3", "stderr": ""}))
    found = rows(db_path)
    assert [(r["num"], r["session_id"]) for r in found] == [(1, "a"), (2, "b"), (3, "a")]
    # The chain links within a session, skipping the other session's entry.
    assert found[2]["prev_hash"] == found[0]["hash"]
    assert found[1]["prev_hash"] is None


def test_disabled_records_nothing(db_path):
    _fire(payload(tool_response={"stdout": "x", "stderr": ""}), LEDGER_DISABLE="1")
    assert not os.path.exists(db_path)


# How the hook is started ---------------------------------------------------------------------

def _bash_payload(session):
    return payload("Bash", session_id=session,
                   tool_input={"command": "echo started"},
                   tool_response={"stdout": "started %s" % session, "stderr": ""})


def test_entry_file_needs_neither_site_packages_nor_pythonpath(db_path, tmp_path):
    """`ledger install` writes `PYTHON .../ledger/hooks/entry.py AGENT`: the file finds its own
    package, from any working directory, even with site-packages switched off (-S)."""
    env = hook_env(LEDGER_DB=db_path)
    env.pop("PYTHONPATH")
    result = subprocess.run([sys.executable, "-S", ledger.hooks.ENTRY, "claude"], cwd=str(tmp_path),
                            input=json.dumps(_bash_payload("s-entry")).encode(), env=env,
                            capture_output=True, timeout=60)
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b"", result.stderr
    assert "started s-entry" in _one(db_path)["output"]


def test_plugin_wrapper_runs_the_entry_file(db_path, tmp_path):
    env = hook_env(LEDGER_DB=db_path, LEDGER_PYTHON=sys.executable, CLAUDE_PLUGIN_ROOT=REPO)
    env.pop("PYTHONPATH")
    result = subprocess.run([os.path.join(REPO, "hooks", "run"), "claude"], cwd=str(tmp_path),
                            input=json.dumps(_bash_payload("s-plugin")).encode(), env=env,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "started s-plugin" in _one(db_path)["output"]


@pytest.mark.parametrize("form", ["-m", "script"])
def test_commands_written_by_earlier_installs_still_record(db_path, form):
    """Settings written before the entry file (`python -m ledger.hooks`, pip's `ledger-hook`
    script) keep working until the user reinstalls."""
    if form == "-m":
        argv = [sys.executable, "-m", "ledger.hooks", "claude"]
    else:
        script = os.path.join(os.path.dirname(sys.executable), "ledger-hook")
        if not os.path.isfile(script):
            pytest.skip("no ledger-hook console script beside this interpreter")
        argv = [script, "claude"]
    result = subprocess.run(argv, cwd=REPO, input=json.dumps(_bash_payload("s-old")).encode(),
                            env=hook_env(LEDGER_DB=db_path), capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "started s-old" in _one(db_path)["output"]
