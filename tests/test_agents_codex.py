"""The Codex CLI adapter, fed the payloads codex-cli 0.171.0 sent its hooks.

The payloads are the observed stdin of a live client (../shared/research/other-agents-e2e.md
sections 1.5 and 1.7), with paths shortened. The recorder runs as a real `ledger-hook codex`
process and is checked by reading the SQLite file.
"""

import json
import os

import pytest

from hookrun import rows, run_hook
from ledger.agents import codex
from ledger.guard import Verdict

SESSION = "01a236cd-5765-7ef0-996a-b89405e970a2"
TURN = "01a236cd-577d-78d3-a586-ca7a7b1b5996"
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"


def post_tool_use(command='echo "%s"' % OOM, response=OOM + "\n", **extra):
    body = {
        "session_id": SESSION,
        "turn_id": TURN,
        "transcript_path": "/home/dev/.codex/sessions/2026/12/02/rollout-2026-12-02T12-49-16-%s.jsonl" % SESSION,
        "cwd": "/home/dev/train",
        "hook_event_name": "PostToolUse",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": response,
        "tool_use_id": "call_fake_1",
    }
    body.update(extra)
    return body


def stop(message="The root cause is a dataloader deadlock.", active=False, **extra):
    body = {
        "session_id": SESSION,
        "turn_id": TURN,
        "transcript_path": "/home/dev/.codex/sessions/rollout.jsonl",
        "cwd": "/home/dev/train",
        "hook_event_name": "Stop",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "stop_hook_active": active,
        "last_assistant_message": message,
    }
    body.update(extra)
    return body


def fire(body):
    result = run_hook(body, agent="codex")
    assert result.returncode == 0, result.stderr
    return result


def test_post_tool_use_is_recorded_with_codex_fields(db_path):
    result = fire(post_tool_use())
    # A PostToolUse "block" would replace the output the model sees: the recorder prints nothing.
    assert result.stdout == b""
    [row] = rows(db_path)
    assert row["agent"] == "codex"
    assert row["session_id"] == SESSION
    assert row["turn_id"] == TURN
    assert row["tool_use_id"] == "call_fake_1"
    assert row["tool_name"] == "Bash"
    assert row["command"] == 'echo "%s"' % OOM
    assert row["output"] == OOM + "\n"
    assert row["cwd"] == "/home/dev/train"
    [session] = rows(db_path, "SELECT * FROM sessions")
    assert session["agent"] == "codex"


def test_failing_command_output_is_recorded_without_a_guessed_exit_code(db_path):
    # Codex fires PostToolUse for `exit 1` too, with only the output string: the exit code is
    # not in the payload, so it must be stored as unknown, not as success.
    body = post_tool_use(command='echo "%s" >&2; exit 1' % OOM)
    result = fire(body)
    assert result.stdout == b""
    [row] = rows(db_path)
    assert row["output"] == OOM + "\n"
    assert row["exit_code"] is None
    assert row["failed"] == 0


def test_structured_tool_response_is_rendered_to_text(db_path):
    body = post_tool_use(command=None, response={"content": [{"type": "text", "text": "loss=nan at step 812"}]},
                         tool_name="mcp__metrics__query", tool_input={"query": "loss"})
    fire(body)
    [row] = rows(db_path)
    assert row["tool_name"] == "mcp__metrics__query"
    assert row["output"] == "loss=nan at step 812"
    assert row["command"] == "loss"


def test_stop_payload_becomes_a_stop_event():
    event = codex.parse(stop(active=True, message="Root cause: OOM."))
    assert event["kind"] == "stop"
    assert event["agent"] == "codex"
    assert event["session_id"] == SESSION
    # The loop cap counts blocks per turn; the continuation keeps the turn_id.
    assert event["turn_id"] == TURN
    assert event["message"] == "Root cause: OOM."
    assert event["stop_hook_active"] is True
    assert event["subagent"] is False


def test_null_last_message_is_nothing_to_judge_not_a_transcript_lookup():
    # None would send the Stop guard to Claude's transcript parser with a Codex rollout file.
    event = codex.parse(stop(message=None))
    assert event["message"] == ""


def test_subagent_stop_is_judged_too():
    event = codex.parse(stop(hook_event_name="SubagentStop", agent_id="agent-7", turn_id=None))
    assert event["kind"] == "stop"
    assert event["subagent"] is True
    assert event["turn_id"] == "agent-7"


def test_block_verdict_is_codex_block_json():
    out = codex.stop_output(Verdict("block", reason="cite the line"))
    assert out == {"decision": "block", "reason": "cite the line"}


def test_block_without_reason_is_not_sent():
    # Codex treats a block with an empty reason as a hook error.
    assert codex.stop_output(Verdict("block", reason="")) is None


def test_allow_prints_nothing_and_warn_is_a_system_message():
    assert codex.stop_output(Verdict("allow")) is None
    assert codex.stop_output(Verdict("warn", system_message="2 uncited")) == {"systemMessage": "2 uncited"}


def test_pretool_deny_shape():
    event = codex.parse({"hook_event_name": "PreToolUse", "session_id": SESSION, "tool_name": "Bash",
                         "tool_input": {"command": "rm ledger.db"}, "turn_id": TURN})
    assert event["kind"] == "pretool"
    assert event["tool_input"] == {"command": "rm ledger.db"}
    out = codex.pretool_output("no")
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["permissionDecisionReason"] == "no"
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "PreCompact", None])
def test_other_events_are_ignored_and_silent(db_path, event):
    body = {"session_id": SESSION, "hook_event_name": event, "turn_id": TURN}
    assert codex.parse(body)["kind"] == "ignore"
    result = fire(body)
    assert result.stdout == b""
    assert not os.path.exists(db_path) or rows(db_path) == []


def test_hook_protects_the_ledger_on_codex(db_path):
    body = {"session_id": SESSION, "turn_id": TURN, "hook_event_name": "PreToolUse", "cwd": "/tmp",
            "tool_name": "Bash", "tool_input": {"command": "sqlite3 %s 'DELETE FROM evidence'" % db_path}}
    result = fire(body)
    out = json.loads(result.stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
