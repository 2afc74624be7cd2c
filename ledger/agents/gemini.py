"""Google Gemini CLI: AfterTool, AfterAgent, BeforeTool.

Payload facts, observed with gemini-cli 0.61.0: ../shared/research/other-agents-e2e.md sections
2.5-2.6 (and hooks-spec.md section 8.2). Things that differ from Claude Code and Codex:

- Tool names are Gemini's own (`run_shell_command`, `read_file`, ...). The shell tool's
  `tool_response.llmContent` is what the model saw, wrapped in `<untrusted_context>`, with an
  `Exit Code: N` line only when the command failed. There is no tool call id.
- AfterAgent's `prompt_response` accumulates: after a deny it holds every model text since the
  user's prompt, the rejected answers included. Judging that would block the corrected answer
  for the sentence it replaced, so the newest answer is read from the chat file
  (`transcript_path`) when that file agrees with the payload.
- There is no turn id. The loop cap needs one that stays the same across the retries of one
  turn and differs between turns, even when the user types the same prompt twice: the chat
  file's id of the user message that started the turn, else a hash of session and prompt.
- Gemini parses all of stdout as JSON, and a deny on AfterTool replaces the tool result the
  model sees: the recorder prints nothing, ever.
"""

import hashlib
import json
import os
import re

from ledger import render
from ledger.agents import pretool_event

AGENT = "gemini"

SHELL_TOOL = "run_shell_command"
EXIT_LINE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)
SIGNAL_LINE = re.compile(r"^Signal: (\S+)", re.M)
WRAPPER = re.compile(r"^\s*<untrusted_context>\n?|\n?</untrusted_context>\s*$")
# How far back in the chat file to look for the turn's prompt; a turn with huge tool results
# can sit further back, and then the fallback key is used.
MAX_BACK = 4 * 1024 * 1024


def parse(payload):
    event = payload.get("hook_event_name")
    if event == "AfterTool":
        return {"kind": "tool", "ev": tool_event(payload)}
    if event == "AfterAgent":
        answer, prompt_id = read_turn(payload)
        return {
            "kind": "stop",
            "agent": AGENT,
            "event": event,
            "session_id": payload.get("session_id"),
            "turn_id": turn_key(payload, prompt_id),
            "message": answer,
            "transcript_path": payload.get("transcript_path"),
            "stop_hook_active": bool(payload.get("stop_hook_active")),
            "cwd": payload.get("cwd"),
            "subagent": False,
        }
    if event == "BeforeTool":
        return pretool_event(AGENT, payload)
    return {"kind": "ignore", "event": event}


def tool_event(payload):
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    output, failed, exit_code, interrupted = tool_result(tool_name, response)
    return {
        "agent": AGENT,
        "event": payload.get("hook_event_name"),
        "session_id": payload.get("session_id"),
        "turn_id": None,
        "tool_use_id": None,
        "tool_name": tool_name,
        "tool_input": tool_input,
        "command": render.command_of(tool_name, tool_input),
        "output": output,
        "failed": failed,
        "exit_code": exit_code,
        "interrupted": interrupted,
        "cwd": payload.get("cwd"),
        "project_dir": os.environ.get("GEMINI_PROJECT_DIR") or payload.get("cwd"),
        "transcript_path": payload.get("transcript_path"),
    }


def tool_result(tool_name, response):
    """(output text, failed, exit_code, interrupted) from an AfterTool `tool_response`."""
    if not isinstance(response, dict):
        return render.response_text(tool_name, response), False, None, False
    error = response.get("error")
    llm = response.get("llmContent")
    if isinstance(llm, str):
        output = WRAPPER.sub("", llm)
    elif llm is not None:
        output = render.response_text(tool_name, llm)
    else:
        output = render.response_text(tool_name, {k: v for k, v in response.items() if k != "error"})
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message not in output:
            output = (output + "\n" + message).strip("\n")
    failed = bool(error)
    exit_code = None
    interrupted = False
    if tool_name == SHELL_TOOL:
        found = EXIT_LINE.search(output)
        signal = SIGNAL_LINE.search(output)
        if found:
            exit_code = int(found.group(1))
        elif not error and not signal:
            exit_code = 0  # the line is only there when the code is not zero
        interrupted = bool(signal)
        failed = failed or bool(exit_code) or interrupted
    return output, failed, exit_code, interrupted


def read_turn(payload):
    """(the answer to judge, the chat file's id for the turn's prompt or None)."""
    accumulated = payload.get("prompt_response")
    accumulated = accumulated if isinstance(accumulated, str) else ""
    try:
        latest, prompt_id = _from_chat(payload.get("transcript_path"), payload.get("prompt"))
    except (OSError, ValueError):
        latest, prompt_id = None, None
    # Trust the chat file only where it agrees with what the CLI just sent us: its newest
    # answer must be how the accumulated text ends. Otherwise judge the whole text.
    if latest and accumulated.rstrip().endswith(latest.rstrip()):
        return latest, prompt_id
    return accumulated, prompt_id


def _from_chat(path, prompt):
    # isinstance first: os.path.isfile(3) stats file descriptor 3, and reading it would close it.
    if not isinstance(path, str) or not path or not os.path.isfile(path):
        return None, None
    from ledger.transcript import reversed_lines

    latest = None
    want = prompt.strip() if isinstance(prompt, str) else None
    for raw in reversed_lines(path, MAX_BACK):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind == "gemini" and latest is None:
            text = _text(entry.get("content"))
            if text.strip():
                latest = text
        elif kind == "user" and want is not None and _text(entry.get("content")).strip() == want:
            return latest, entry.get("id")
    return latest, None


def _text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text") for p in content
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def turn_key(payload, prompt_id):
    basis = prompt_id or payload.get("prompt")
    if not basis:
        return None  # the store then counts the blocks since the session's last allowed stop
    digest = hashlib.sha256(("%s\0%s" % (payload.get("session_id") or "", basis)).encode(
        "utf-8", "replace")).hexdigest()
    return "gemini-" + digest[:16]


def stop_output(verdict):
    if verdict.decision == "block" and verdict.reason:
        return {"decision": "deny", "reason": verdict.reason}
    if verdict.system_message:
        return {"systemMessage": verdict.system_message}
    return None


def pretool_output(reason):
    return {"decision": "deny", "reason": reason}
