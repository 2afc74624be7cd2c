"""Claude Code: PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreToolUse.

Payload facts: ../shared/research/hooks-spec.md sections 2-4. Every field but session_id is
optional, because older clients lack many of them.
"""

import os

from ledger.agents import pretool_event

AGENT = "claude"

TOOL_EVENTS = ("PostToolUse", "PostToolUseFailure")
STOP_EVENTS = ("Stop", "SubagentStop")


def parse(payload):
    event = payload.get("hook_event_name")
    if event in TOOL_EVENTS:
        return {"kind": "tool", "ev": tool_event(payload)}
    if event in STOP_EVENTS:
        subagent = event == "SubagentStop"
        transcript = payload.get("agent_transcript_path") if subagent else None
        return {
            "kind": "stop",
            "agent": AGENT,
            "event": event,
            "session_id": payload.get("session_id"),
            "turn_id": payload.get("prompt_id") or (payload.get("agent_id") if subagent else None),
            "message": payload.get("last_assistant_message"),
            "transcript_path": transcript or payload.get("transcript_path"),
            "stop_hook_active": bool(payload.get("stop_hook_active")),
            "cwd": payload.get("cwd"),
            "subagent": subagent,
        }
    if event == "PreToolUse":
        return pretool_event(AGENT, payload)
    return {"kind": "ignore", "event": event}


def tool_event(payload):
    from ledger import render  # a Stop does not need it
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    failed = payload.get("hook_event_name") == "PostToolUseFailure"
    response = payload.get("tool_response")
    if failed:
        error = payload.get("error")
        output = error if isinstance(error, str) else render.response_text(tool_name, error)
        exit_code = render.exit_code_of_error(error)
        interrupted = bool(payload.get("is_interrupt"))
    else:
        output = render.response_text(tool_name, response)
        exit_code = 0 if tool_name in render.SHELL_TOOLS else None
        interrupted = isinstance(response, dict) and bool(response.get("interrupted"))
    return {
        "agent": AGENT,
        "event": payload.get("hook_event_name"),
        "session_id": payload.get("session_id"),
        "turn_id": payload.get("prompt_id"),
        "tool_use_id": payload.get("tool_use_id"),
        "agent_id": payload.get("agent_id"),
        "tool_name": tool_name,
        "tool_input": tool_input,
        "command": render.command_of(tool_name, tool_input),
        "output": output,
        "failed": failed,
        "exit_code": exit_code,
        "interrupted": interrupted,
        "duration_ms": payload.get("duration_ms"),
        "cwd": payload.get("cwd"),
        "project_dir": _project_dir(payload),
        "transcript_path": payload.get("transcript_path"),
    }


def _project_dir(payload):
    return os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd")


def stop_output(verdict):
    if verdict.decision == "block":
        return {"decision": "block", "reason": verdict.reason}
    if verdict.system_message:
        return {"systemMessage": verdict.system_message}
    return None


def pretool_output(reason):
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }
