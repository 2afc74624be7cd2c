"""The Gemini CLI adapter, fed the payloads gemini-cli 0.61.0 sent its hooks.

The payloads and the chat-file lines are the observed output of a live client
(../shared/research/other-agents-e2e.md sections 2.5-2.6, and our own offline runs), with
paths shortened. The recorder runs as a real `ledger-hook gemini` process.
"""

import json
import os

import pytest

from hookrun import rows, run_hook
from ledger.agents import gemini
from ledger.guard import Verdict

SESSION = "e6cf9221-389d-4d72-a9bf-28c9f57f8e63"
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
PROMPT = "Find the root cause of the training crash."
UNCITED = "The root cause is a dataloader deadlock."
CITED = "Root cause: CUDA OOM. Evidence: `%s`." % OOM


def after_tool(llm, command='echo "%s"' % OOM, display=OOM, **extra):
    body = {
        "session_id": SESSION,
        "transcript_path": "/home/dev/.gemini/tmp/train/chats/session-2026-12-02T12-52-e6cf9221.jsonl",
        "cwd": "/home/dev/train",
        "hook_event_name": "AfterTool",
        "timestamp": "2026-12-02T12:52:40.968Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "probe the crash"},
        "tool_response": {"llmContent": llm, "returnDisplay": display},
    }
    body.update(extra)
    return body


def after_agent(response, active=False, transcript="/nonexistent/chat.jsonl", prompt=PROMPT, **extra):
    body = {
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": "/home/dev/train",
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-12-02T12:52:41.088Z",
        "prompt": prompt,
        "prompt_response": response,
        "stop_hook_active": active,
    }
    body.update(extra)
    return body


def fire(body):
    result = run_hook(body, agent="gemini")
    assert result.returncode == 0, result.stderr
    return result


# AfterTool -----------------------------------------------------------------------------------

def test_after_tool_records_what_the_model_saw(db_path):
    llm = "<untrusted_context>\nOutput: %s\nProcess Group PGID: 15455\n</untrusted_context>" % OOM
    result = fire(after_tool(llm))
    # Gemini parses stdout as JSON and a deny would replace the tool result: print nothing.
    assert result.stdout == b""
    [row] = rows(db_path)
    assert row["agent"] == "gemini"
    assert row["session_id"] == SESSION
    assert row["tool_name"] == "run_shell_command"
    assert row["command"] == 'echo "%s"' % OOM
    assert row["output"] == "Output: %s\nProcess Group PGID: 15455" % OOM
    assert row["exit_code"] == 0
    assert row["failed"] == 0
    [session] = rows(db_path, "SELECT * FROM sessions")
    assert session["agent"] == "gemini"


def test_failing_command_keeps_its_output_and_exit_code(db_path):
    # Observed: AfterTool fires for `exit 1`; only llmContent says so, with an Exit Code line.
    llm = ("<untrusted_context>\nOutput: RuntimeError: CUDA out of memory\nExit Code: 1\n"
           "Process Group PGID: 14074\n</untrusted_context>")
    fire(after_tool(llm, command='echo "RuntimeError: CUDA out of memory" >&2; exit 1',
                    display="RuntimeError: CUDA out of memory"))
    [row] = rows(db_path)
    assert "RuntimeError: CUDA out of memory" in row["output"]
    assert row["exit_code"] == 1
    assert row["failed"] == 1


def test_tool_error_is_a_failure_with_its_message():
    body = after_tool("", tool_name="read_file", tool_input={"file_path": "/data/missing.log"})
    body["tool_response"] = {"llmContent": "", "returnDisplay": "File not found.",
                             "error": {"message": "File not found: /data/missing.log", "type": "file_not_found"}}
    ev = gemini.parse(body)["ev"]
    assert ev["failed"] is True
    assert ev["exit_code"] is None
    assert ev["output"] == "File not found: /data/missing.log"
    assert ev["command"] == "/data/missing.log"


def test_signal_marks_the_command_interrupted():
    llm = "<untrusted_context>\nOutput: step 40\nSignal: SIGTERM\n</untrusted_context>"
    ev = gemini.parse(after_tool(llm))["ev"]
    assert ev["interrupted"] is True
    assert ev["failed"] is True
    assert ev["exit_code"] is None


def test_parts_list_content_is_rendered():
    body = after_tool([{"text": "line one"}, {"text": "line two"}], tool_name="read_file",
                      tool_input={"file_path": "train.log"})
    ev = gemini.parse(body)["ev"]
    assert ev["output"] == "line one\nline two"
    assert ev["exit_code"] is None


# AfterAgent ----------------------------------------------------------------------------------

def chat_file(tmp_path, turns):
    """A chat JSONL in the shape Gemini 0.61.0 writes (one record per message, $set updates)."""
    lines = [{"sessionId": SESSION, "projectHash": "abc", "kind": "main"},
             {"$set": {"messages": [{"id": "ctx", "type": "user", "content": [{"text": "<session_context>..."}]}]}}]
    for kind, ident, content in turns:
        lines.append({"id": ident, "timestamp": "2026-12-02T17:30:12.383Z", "type": kind, "content": content})
        lines.append({"$set": {"lastUpdated": "2026-12-02T17:30:12.383Z"}})
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def test_first_after_agent_judges_the_answer():
    event = gemini.parse(after_agent(UNCITED))
    assert event["kind"] == "stop"
    assert event["agent"] == "gemini"
    assert event["message"] == UNCITED
    assert event["stop_hook_active"] is False
    assert event["turn_id"].startswith("gemini-")


def test_retry_judges_only_the_newest_answer(tmp_path):
    # prompt_response accumulates over retries; the rejected sentence must not be judged again.
    path = chat_file(tmp_path, [
        ("user", "u1", [{"text": PROMPT}]),
        ("gemini", "g1", ""),
        ("user", "u2", [{"functionResponse": {"name": "run_shell_command", "response": {"output": OOM}}}]),
        ("gemini", "g2", UNCITED),
        ("user", "u3", [{"text": "evidence-ledger: cite the line"}]),
        ("gemini", "g3", CITED),
    ])
    event = gemini.parse(after_agent(UNCITED + "\n" + CITED, active=True, transcript=path))
    assert event["message"] == CITED


def test_chat_file_that_disagrees_with_the_payload_is_not_trusted(tmp_path):
    path = chat_file(tmp_path, [("user", "u1", [{"text": PROMPT}]), ("gemini", "g1", "something else")])
    event = gemini.parse(after_agent(UNCITED, transcript=path))
    assert event["message"] == UNCITED


def test_turn_key_is_stable_across_retries_and_differs_between_turns(tmp_path):
    turn1 = [("user", "u1", [{"text": PROMPT}]), ("gemini", "g1", UNCITED)]
    first = gemini.parse(after_agent(UNCITED, transcript=chat_file(tmp_path, turn1)))
    retry = turn1 + [("user", "u2", [{"text": "cite it"}]), ("gemini", "g2", CITED)]
    second = gemini.parse(after_agent(UNCITED + "\n" + CITED, active=True,
                                      transcript=chat_file(tmp_path, retry)))
    assert first["turn_id"] == second["turn_id"]
    # The same words typed again later are a new turn: blocks of the old one must not count.
    again = retry + [("user", "u9", [{"text": PROMPT}]), ("gemini", "g9", UNCITED)]
    third = gemini.parse(after_agent(UNCITED, transcript=chat_file(tmp_path, again)))
    assert third["turn_id"] != first["turn_id"]


def test_turn_key_without_a_chat_file_hashes_session_and_prompt():
    a = gemini.parse(after_agent(UNCITED))["turn_id"]
    b = gemini.parse(after_agent(CITED, active=True))["turn_id"]
    c = gemini.parse(after_agent(UNCITED, prompt="Why is it slow?"))["turn_id"]
    assert a == b != c
    assert gemini.parse(after_agent(UNCITED, prompt=None))["turn_id"] is None


def test_missing_prompt_response_is_an_empty_message():
    event = gemini.parse(after_agent(None))
    assert event["message"] == ""


def test_deny_verdict_is_gemini_deny_json():
    assert gemini.stop_output(Verdict("block", reason="cite it")) == {"decision": "deny", "reason": "cite it"}
    assert gemini.stop_output(Verdict("allow")) is None
    assert gemini.stop_output(Verdict("warn", system_message="note")) == {"systemMessage": "note"}


def test_before_tool_protects_the_ledger(db_path):
    body = {"session_id": SESSION, "hook_event_name": "BeforeTool", "cwd": "/tmp",
            "tool_name": "write_file", "tool_input": {"file_path": db_path, "content": "x"}}
    assert gemini.parse(body)["kind"] == "pretool"
    out = json.loads(fire(body).stdout)
    assert out["decision"] == "deny"
    assert "ledger" in out["reason"]


@pytest.mark.parametrize("event", ["BeforeAgent", "SessionStart", "PreCompress", "Notification"])
def test_other_events_are_ignored_and_silent(db_path, event):
    body = {"session_id": SESSION, "hook_event_name": event}
    assert gemini.parse(body)["kind"] == "ignore"
    assert fire(body).stdout == b""
    assert not os.path.exists(db_path) or rows(db_path) == []
