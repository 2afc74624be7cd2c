"""Fuzzing every hook: whatever arrives on stdin, the agent is never blocked by our failure.

Guards: the fail-open dispatcher in ledger/hooks/__init__.py (read everything, catch
everything, exit 0, one JSON object at most) and each adapter's tolerance of missing and
mistyped fields. The invariant checked for every case, for every agent present:

- exit status 0;
- stdout empty or exactly one JSON object;
- nothing blocked or denied (the fuzzed payloads hold no causal claim and no ledger write);
- stderr only ever carries `evidence-ledger: ...` lines, and malformed input leaves one.

Most cases run in-process through `ledger.hooks.main` (fast enough for hundreds of examples
on two cores); a smaller set, plus the 50 MB and deeply nested inputs, runs as real
`python -m ledger.hooks AGENT` processes. LEDGER_FUZZ_EXAMPLES scales the in-process count
(bench/reliability.py raises it); LEDGER_FUZZ_COUNT_FILE, when set, receives one line per case.
"""

import contextlib
import io
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookrun import run_hook
from ledger import agents
from ledger import hooks as hooks_mod

EXAMPLES = int(os.environ.get("LEDGER_FUZZ_EXAMPLES", "150"))
PROCESS_EXAMPLES = max(10, EXAMPLES // 10)

EVENTS = {
    "claude": ["PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreToolUse"],
    "codex": ["PostToolUse", "Stop", "SubagentStop", "PreToolUse"],
    "gemini": ["AfterTool", "AfterAgent", "BeforeTool"],
}


def _present():
    found = []
    for name in agents.AGENTS:
        try:
            agents.adapter(name)
        except ImportError:
            continue
        found.append(name)
    return found


AGENTS = _present()
ALL_EVENTS = sorted({e for name in AGENTS for e in EVENTS.get(name, [])})
FIELDS = ["session_id", "hook_event_name", "tool_name", "tool_input", "tool_response", "error",
          "is_interrupt", "prompt_id", "turn_id", "agent_id", "tool_use_id", "cwd", "duration_ms",
          "transcript_path", "agent_transcript_path", "last_assistant_message", "stop_hook_active",
          "prompt", "prompt_response", "permission_mode"]
TOOLS = ["Bash", "Read", "Write", "Edit", "Grep", "Glob", "Task", "WebFetch", "mcp__x__y",
         "run_shell_command", "read_file", "write_file", "replace", "apply_patch", "exec_command"]

# Text with NULs, lone surrogates replaced (json.dumps cannot carry them), control characters.
text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | text
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(text, inner, max_size=4), max_leaves=12)


def _count():
    path = os.environ.get("LEDGER_FUZZ_COUNT_FILE")
    if path:
        with open(path, "a") as f:
            f.write("1\n")


@st.composite
def payloads(draw):
    """A dict shaped like a hook payload: known fields with any type, plus noise."""
    body = {}
    for field in draw(st.lists(st.sampled_from(FIELDS), unique=True, max_size=len(FIELDS))):
        if field == "hook_event_name":
            body[field] = draw(st.sampled_from(ALL_EVENTS) | json_values)
        elif field == "tool_name":
            body[field] = draw(st.sampled_from(TOOLS) | json_values)
        elif field in ("tool_input", "tool_response"):
            body[field] = draw(st.dictionaries(st.sampled_from(
                ["command", "stdout", "stderr", "file_path", "content", "interrupted", "output",
                 "llmContent", "returnDisplay", "exit_code", "file", "filenames", "pattern"]) | text,
                json_values, max_size=5) | json_values)
        elif field in ("transcript_path", "agent_transcript_path"):
            # Never a real file of this machine: nothing but paths that cannot exist.
            body[field] = draw(st.sampled_from(["", "/nonexistent/t.jsonl", "relative/t.jsonl"]) | st.integers())
        else:
            body[field] = draw(json_values)
    body["hook_event_name"] = body.get("hook_event_name", draw(st.sampled_from(ALL_EVENTS + ["Teleport", None])))
    return body


def stdin_bytes():
    return st.one_of(
        st.binary(max_size=300),                                          # not JSON at all
        json_values.map(lambda v: json.dumps(v).encode()),                # JSON of the wrong shape
        payloads().map(lambda p: json.dumps(p).encode()),                 # mistyped / missing fields
        payloads().map(lambda p: json.dumps(p).encode()[:-1]),            # cut off
        st.tuples(payloads(), st.binary(min_size=1, max_size=20)).map(    # invalid UTF-8 inside
            lambda t: json.dumps(dict(t[0], tool_response={"stdout": "X"})).encode().replace(b"X", t[1].replace(b'"', b"").replace(b"\\", b""))),
        payloads().map(lambda p: json.dumps(p).encode() + b"\x00"),       # trailing NUL
    )


def _malformed(data):
    try:
        value = json.loads(data.decode("utf-8", "replace"), strict=False)
    except (ValueError, RecursionError):
        return True
    return not isinstance(value, dict)


def check_outcome(data, code, out, err):
    assert code == 0
    out = out.strip()
    if out:
        lines = out.splitlines()
        assert len(lines) == 1, lines
        obj = json.loads(lines[0])
        assert isinstance(obj, dict)
        assert obj.get("decision") not in ("block", "deny"), obj
        spec = obj.get("hookSpecificOutput") or {}
        assert spec.get("permissionDecision") != "deny", obj
    for line in err.splitlines():
        assert line.startswith("evidence-ledger: ") or line.startswith("usage: "), line
    if _malformed(data):
        assert err.strip(), "malformed input must leave a note on stderr"


class _Stdin:
    def __init__(self, data):
        self.buffer = io.BytesIO(data)


def run_in_process(agent, data, monkeypatch):
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdin", _Stdin(data))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hooks_mod.main([agent])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("agent", AGENTS)
def test_fuzz_in_process(agent, monkeypatch):
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(data=stdin_bytes())
    def case(data):
        _count()
        code, out, err = run_in_process(agent, data, monkeypatch)
        check_outcome(data, code, out, err)

    case()


@pytest.mark.parametrize("agent", AGENTS)
def test_fuzz_real_processes(agent):
    @settings(max_examples=PROCESS_EXAMPLES, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=stdin_bytes())
    def case(data):
        _count()
        result = run_hook(data, agent=agent)
        check_outcome(data, result.returncode, result.stdout.decode("utf-8", "replace"),
                      result.stderr.decode("utf-8", "replace"))

    case()


def _event(agent, kind):
    return {"tool": {"claude": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"},
            "stop": {"claude": "Stop", "codex": "Stop", "gemini": "AfterAgent"},
            "pre": {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}}[kind][agent]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("depth", [1000, 200000])
def test_deeply_nested_json(agent, depth, db_path):
    for kind in ("tool", "stop", "pre"):
        head = '{"session_id":"s","hook_event_name":"%s","tool_name":"Bash","tool_input":' % _event(agent, kind)
        data = (head + "[" * depth + "]" * depth + "}").encode()
        result = run_hook(data, agent=agent)
        check_outcome(data, result.returncode, result.stdout.decode(), result.stderr.decode())


@pytest.mark.parametrize("agent", AGENTS)
def test_fifty_megabyte_output(agent, db_path):
    big = ("0123456789abcdef" * 64 + "\n") * (50 * 1024 * 1024 // 1025)
    body = {"session_id": "big", "hook_event_name": _event(agent, "tool"), "tool_name": "Bash",
            "tool_input": {"command": "cat huge.log"},
            "tool_response": {"stdout": big, "stderr": ""} if agent != "gemini" else {"llmContent": big}}
    if agent == "codex":
        body["tool_response"] = big
    data = json.dumps(body).encode()
    assert len(data) > 50 * 10**6
    result = run_hook(data, agent=agent, timeout=120)
    check_outcome(data, result.returncode, result.stdout.decode(), result.stderr.decode())
    from hookrun import rows

    stored = rows(db_path)
    assert len(stored) == 1 and stored[0]["truncated"] == 1
    assert stored[0]["output_length"] >= 50 * 10**6 - 10**6
    # A Stop over that session still answers, and a huge message does not break it.
    stop = {"session_id": "big", "hook_event_name": _event(agent, "stop"),
            "last_assistant_message": "Done. " * 2_000_000, "prompt_response": "Done. " * 10}
    data = json.dumps(stop).encode()
    result = run_hook(data, agent=agent, timeout=120)
    check_outcome(data, result.returncode, result.stdout.decode(), result.stderr.decode())


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("data", [
    b"", b"\x00", b"\x00" * 1000, b"\xff\xfe\xfd", b"{\x00}", b'{"hook_event_name": "Stop\x00"}',
    b'{"hook_event_name": "PostToolUse", "session_id": "\xc3\x28", "tool_response": "\xed\xa0\x80"}',
    b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "\\u0000rm"}}',
    b'{"hook_event_name": "Stop", "last_assistant_message": "\\ud800"}',
    b"[]", b"1e999999", b'"\\x"', b"{}" * 1000,
], ids=lambda d: repr(d[:20]))
def test_fixed_nasty_inputs(agent, data, db_path):
    result = run_hook(data, agent=agent)
    check_outcome(data, result.returncode, result.stdout.decode(), result.stderr.decode("utf-8", "replace"))


@pytest.mark.parametrize("agent,event", [("claude", "Stop"), ("codex", "Stop"), ("gemini", "AfterAgent")])
def test_a_number_for_transcript_path_never_touches_that_file_descriptor(agent, event, monkeypatch, tmp_path):
    """open(3) wraps file descriptor 3 and closes it when done: a payload's transcript_path of 3
    must not make the hook read, or close, a descriptor it does not own (in a hook process that
    could be its own stdout; in this test process it was pytest's capture file)."""
    held = open(tmp_path / "held.jsonl", "wb+")
    held.write(b'{"type": "assistant"}\n')
    held.flush()
    fd = held.fileno()
    try:
        data = json.dumps({"session_id": "s-fd", "hook_event_name": event, "transcript_path": fd,
                           "cwd": str(tmp_path), "prompt": "why?", "prompt_response": None}).encode()
        code, out, err = run_in_process(agent, data, monkeypatch)
        assert code == 0
        os.fstat(fd)  # still open: raises OSError (EBADF) if the hook closed it
        held.seek(0)
        assert held.read().startswith(b'{"type"')
    finally:
        held.close()
