"""OpenAI Codex CLI: PostToolUse, Stop, SubagentStop, PreToolUse.

Payload facts, observed with codex-cli 0.171.0: ../shared/research/other-agents-e2e.md sections
1.5-1.7 (and hooks-spec.md section 8.1 for the schema). The shell tool reaches the hook as
`Bash` with `tool_input.command`, whatever the model called it (`exec_command`), and
`tool_response` is the raw combined output as one string, with no exit code. PostToolUse fires
for failing commands too; there is no separate failure event.

The recorder must never print anything for PostToolUse: a `decision: block` there replaces the
tool output the model sees. This module has no output for tool events at all, and the hook
entry point prints only what stop_output and pretool_output return.
"""

from ledger import render
from ledger.agents import claude, pretool_event

AGENT = "codex"

TOOL_EVENTS = ("PostToolUse",)
STOP_EVENTS = ("Stop", "SubagentStop")


def parse(payload):
    event = payload.get("hook_event_name")
    if event in TOOL_EVENTS:
        return {"kind": "tool", "ev": tool_event(payload)}
    if event in STOP_EVENTS:
        message = payload.get("last_assistant_message")
        return {
            "kind": "stop",
            "agent": AGENT,
            "event": event,
            "session_id": payload.get("session_id"),
            # The continuation after a block stays in the same turn (same turn_id), so this is
            # the key the loop cap counts blocks under.
            "turn_id": payload.get("turn_id") or payload.get("agent_id"),
            # Null when the turn ended without a message. The rollout file is not Claude's
            # transcript format, so "" (nothing to judge) rather than None (go and read it).
            "message": message if isinstance(message, str) else "",
            "transcript_path": payload.get("transcript_path"),
            "stop_hook_active": bool(payload.get("stop_hook_active")),
            "cwd": payload.get("cwd"),
            "subagent": event == "SubagentStop",
        }
    if event == "PreToolUse":
        return pretool_event(AGENT, payload)
    return {"kind": "ignore", "event": event}


def tool_event(payload):
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    return {
        "agent": AGENT,
        "event": payload.get("hook_event_name"),
        "session_id": payload.get("session_id"),
        "turn_id": payload.get("turn_id"),
        "tool_use_id": payload.get("tool_use_id"),
        "agent_id": payload.get("agent_id"),
        "tool_name": tool_name,
        "tool_input": tool_input,
        "command": render.command_of(tool_name, tool_input),
        "output": render.response_text(tool_name, response),
        # Codex does not tell the hook whether the command failed or how it exited; "unknown"
        # is stored as unknown rather than guessed as success.
        "failed": False,
        "exit_code": None,
        "interrupted": False,
        "cwd": payload.get("cwd"),
        # There is no CODEX_PROJECT_DIR; the session's cwd is the project as Codex sees it.
        "project_dir": payload.get("cwd"),
        "transcript_path": payload.get("transcript_path"),
    }


def stop_output(verdict):
    # Codex's Stop output schema rejects unknown keys, so only documented fields go out.
    if verdict.decision == "block" and verdict.reason:
        return {"decision": "block", "reason": verdict.reason}
    if verdict.system_message:
        return {"systemMessage": verdict.system_message}
    return None


# Codex reads the same PreToolUse denial as Claude Code.
pretool_output = claude.pretool_output
