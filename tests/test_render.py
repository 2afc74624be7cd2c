"""render: a tool response -> the text the model saw; the command or target of a call."""

import json

import pytest

from ledger import render


@pytest.mark.parametrize(
    "tool, response, expected",
    [
        ("Bash", {"stdout": "out", "stderr": "err"}, "out\nerr"),
        ("Bash", {"stdout": "", "stderr": "only err"}, "only err"),
        ("Bash", {"stdout": "only out"}, "only out"),
        ("PowerShell", {"stdout": "ps", "stderr": ""}, "ps"),
        ("Read", {"type": "text", "file": {"content": "x = 1\n"}}, "x = 1\n"),
        ("Grep", {"mode": "content", "content": "a:1:hit", "filenames": []}, "a:1:hit"),
        ("Grep", {"mode": "files_with_matches", "content": "", "filenames": ["a", "b"]}, "a\nb"),
        ("Glob", {"filenames": ["x.py"], "numFiles": 1}, "x.py"),
        ("WebFetch", {"result": "page text", "code": 200}, "page text"),
        ("Task", {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "a\nb"),
        ("mcp__s__t", [{"type": "text", "text": "one"}, "two", 3], "one\ntwo\n3"),
        ("mcp__s__t", [{"type": "image", "data": "AAAA"}], "[image]"),
        ("mcp__s__t", [{"type": "resource", "uri": "file:///a"}], '{"type":"resource","uri":"file:///a"}'),
        ("LS", "plain", "plain"),
        ("Anything", None, ""),
        ("Anything", 12, "12"),
        ("Anything", {"a": [1, 2], "b": "é"}, '{"a":[1,2],"b":"é"}'),
        ("Write", {"type": "create", "filePath": "/p/a.py", "content": "SECRET PLAN"}, "create /p/a.py"),
        ("Edit", {"filePath": "/p/a.py", "oldString": "a", "newString": "b"}, "wrote /p/a.py"),
        ("write_file", {"llmContent": "Successfully wrote /p/a", "returnDisplay": "..."},
         "Successfully wrote /p/a"),
        # Codex / Gemini shapes.
        ("exec_command", {"output": "codex out"}, "codex out"),
        ("run_shell_command", {"llmContent": "gemini out", "returnDisplay": "x"}, "gemini out"),
    ],
)
def test_response_text(tool, response, expected):
    assert render.response_text(tool, response) == expected


def test_unknown_dict_is_compact_json_that_round_trips():
    response = {"newTodos": [{"content": "x", "status": "done"}], "n": None}
    text = render.response_text("TodoWrite", response)
    assert json.loads(text) == response
    assert ": " not in text


@pytest.mark.parametrize(
    "tool_input, expected",
    [
        ({"command": "ls -la"}, "ls -la"),
        ({"command": ["bash", "-lc", "pytest -x"]}, "bash -lc pytest -x"),
        ({"cmd": "make"}, "make"),
        ({"file_path": "/a/b.py", "limit": 10}, "/a/b.py"),
        ({"pattern": "loss=nan", "path": "/logs"}, "loss=nan"),
        ({"url": "https://x.org", "prompt": "summarise"}, "https://x.org"),
        ({"description": "probe GPU", "prompt": "run nvidia-smi"}, "probe GPU"),
        ({"query": "nan loss"}, "nan loss"),
        ({"todos": []}, None),
        ("not a dict", None),
        (None, None),
    ],
)
def test_command_of(tool_input, expected):
    assert render.command_of("Tool", tool_input) == expected


@pytest.mark.parametrize(
    "error, code",
    [
        ("Exit code 1\nTraceback", 1),
        ("Exit code 137", 137),
        ("Exit code 2\n", 2),
        ("Exit code -1\nkilled", -1),
        ("Exit code abc\n", None),
        ("File does not exist.", None),
        ("exit code 1", None),
        (None, None),
        ({"error": "x"}, None),
    ],
)
def test_exit_code_of_error(error, code):
    assert render.exit_code_of_error(error) == code
