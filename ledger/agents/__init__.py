"""One adapter per agent: its hook payloads in, the guard's verdict out.

Each module has `parse(payload) -> event` (a dict with `kind`: "tool", "stop", "pretool" or
"ignore") and `stop_output(verdict)` / `pretool_output(reason)` returning the JSON to print, or
None. Nothing else in the package knows which agent it is serving.
"""

import sys

AGENTS = ("claude", "codex", "gemini")


def adapter(name):
    if name not in AGENTS:
        raise ValueError("unknown agent %r (expected one of %s)" % (name, ", ".join(AGENTS)))
    # __import__, not importlib.import_module: the importlib package imports warnings, ~0.5 ms
    # of every hook process.
    module = "ledger.agents." + name
    __import__(module)
    return sys.modules[module]


def pretool_event(agent, payload):
    """The pre-tool event, whatever the agent calls it: the same fields for all three."""
    return {"kind": "pretool", "agent": agent, "session_id": payload.get("session_id"),
            "tool_name": payload.get("tool_name"), "tool_input": payload.get("tool_input"),
            "cwd": payload.get("cwd")}
