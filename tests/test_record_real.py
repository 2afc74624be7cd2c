"""Every PostToolUse payload captured from real projects (../shared/fixtures/real), one hook process
each, checked against an expectation written here from the payload itself (not from render.py).
"""

import concurrent.futures
import glob
import json
import os

import pytest

from hookrun import fixture_path, rows, run_hook
from ledger.redact import redact

CAPTURES = sorted(glob.glob(fixture_path("real", "hook-payloads", "*", "post_tool_use.json")))

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")


def _blocks_text(blocks):
    out = []
    for b in blocks:
        if isinstance(b, dict) and isinstance(b.get("text"), str):
            out.append(b["text"])
        elif isinstance(b, dict) and b.get("type") == "image":
            out.append("[image]")
        else:
            out.append(json.dumps(b, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(out)


def expected_output(body):
    """What the model saw, by tool; None where the check is structural (JSON, Write)."""
    name, r = body["tool_name"], body.get("tool_response")
    if isinstance(r, str):
        return r
    if isinstance(r, list):
        return _blocks_text(r)
    if name == "Bash":
        return "\n".join(p for p in (r.get("stdout"), r.get("stderr")) if p)
    if name == "Read" and "content" in r["file"]:
        return r["file"]["content"]
    if name == "Read":  # {"type": "file_unchanged", "file": {"filePath": ...}} on a re-read
        return json.dumps(r["file"], separators=(",", ":"), ensure_ascii=False)
    if name in ("Grep", "Glob"):
        return r.get("content") or "\n".join(r.get("filenames") or [])
    if name == "WebFetch":
        return r["result"]
    if name in ("Task", "Agent") and isinstance(r.get("content"), list):
        return _blocks_text(r["content"])
    return None


def _load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert isinstance(data, list) and data
    return data


@pytest.mark.skipif(not CAPTURES, reason="../shared/fixtures/real is not beside the repo")
@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_real_capture(path, db_path):
    payloads = [p for p in _load(path) if p.get("hook_event_name") == "PostToolUse"]
    for index, body in enumerate(payloads):
        # Clients before 2.0.43 sent no tool_use_id; give those one so rows can be matched
        # to payloads after parallel writes (the missing-id case is covered in test_record.py).
        body.setdefault("tool_use_id", "capture-%d" % index)
    # Four at a time: the machine is shared, and parallel writers are part of the point.
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run_hook, payloads))
    for body, result in zip(payloads, results):
        assert result.returncode == 0, result.stderr
        assert result.stdout == b"", body["tool_name"]
    stored = {r["tool_use_id"]: r for r in rows(db_path)}
    assert len(stored) == len({p["tool_use_id"] for p in payloads})

    seen_tools = set()
    for body in payloads:
        row = stored[body["tool_use_id"]]
        name = body["tool_name"]
        seen_tools.add(name)
        assert row["tool_name"] == name
        assert row["session_id"] == body["session_id"]
        assert row["failed"] == 0
        # The store redacts each string of the input before encoding it (see store._redact_tree).
        assert json.loads(row["tool_input"]) == _redact_strings(body["tool_input"])
        if name == "Bash":
            assert row["command"] == redact(body["tool_input"]["command"])
            assert row["exit_code"] == 0
        expected = expected_output(body)
        response = body.get("tool_response")
        if expected is not None:
            assert row["output"] == redact(expected), name
        elif name in WRITE_TOOLS:
            written = body["tool_input"].get("content") or body["tool_input"].get("new_string")
            if written and len(written) > 40:
                assert written not in row["output"], name
            assert response["filePath"] in row["output"]
        else:
            # Unknown shapes (TodoWrite, WebSearch, ExitPlanMode, TaskList...) as compact JSON.
            assert json.loads(row["output"]) == json.loads(redact(json.dumps(response, ensure_ascii=False))), name
            assert "\n" not in row["output"] or "\\n" in json.dumps(response)
    assert seen_tools  # the capture held something to check


def _redact_strings(value):
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k): _redact_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_strings(v) for v in value]
    return value
