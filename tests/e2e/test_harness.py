"""The harness itself: the fake model's stream, and the bounds on a client that hangs.

The stream tests need nothing but Python; the runner tests start the fake server, so they run
it inside a loopback-only namespace like every other e2e run.
"""

import json
import os
import sys

import pytest

import fake_anthropic
import harness

pytestmark = pytest.mark.e2e


def reassemble(events):
    """What a client rebuilds from the stream: the final content blocks and stop reason."""
    blocks, stop = {}, None
    for name, data in events:
        assert data["type"] == name
        if name == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"], _json="")
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[data["index"]]["text"] += delta["text"]
            else:
                blocks[data["index"]]["_json"] += delta["partial_json"]
        elif name == "message_delta":
            stop = data["delta"]["stop_reason"]
    out = []
    for index in sorted(blocks):
        block = blocks[index]
        raw = block.pop("_json")
        if block["type"] == "tool_use":
            block["input"] = json.loads(raw)
        out.append(block)
    return out, stop


def test_stream_of_a_tool_call_rebuilds_the_same_message():
    command = "python3 -c \"print('step 420 loss=nan grad_norm=inf' * 3)\""
    message = fake_anthropic.message_for({"bash": command, "text": "Let me look."}, "m", "msg_1", "toolu_1")
    events = list(fake_anthropic.sse_events(message))
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == names.count("content_block_stop") == 2
    content, stop = reassemble(events)
    assert content == message["content"] and stop == "tool_use"
    assert content[1]["input"]["command"] == command


def test_stream_of_a_japanese_answer_rebuilds_the_text():
    text = "損失が NaN になる原因は学習率が高すぎることです。" * 4
    message = fake_anthropic.message_for({"text": text}, "m", "msg_1", "toolu_1")
    content, stop = reassemble(fake_anthropic.sse_events(message))
    assert content == [{"type": "text", "text": text}] and stop == "end_turn"


def test_quote_turn_cites_the_latest_tool_result():
    body = {"messages": [
        {"role": "user", "content": [{"type": "tool_result", "content": "old nan line"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "again"}]},
        {"role": "user", "content": [{"type": "tool_result",
                                      "content": [{"type": "text", "text": "ok\n  step 420 loss=nan\n"}]}]}]}
    turn = fake_anthropic.fill_quote({"quote": "nan", "text": "it says `{quote}`"}, body)
    assert turn["text"] == "it says `step 420 loss=nan`"
    missing = fake_anthropic.fill_quote({"quote": "oom", "text": "`{quote}`"}, body)
    assert "no line matched" in missing["text"]


def test_only_requests_with_tools_consume_turns(tmp_path):
    script = fake_anthropic.Script([{"text": "one"}], str(tmp_path / "log.jsonl"))
    assert script.take({"messages": [], "max_tokens": 50}) == (None, None)
    assert script.take({"tools": [{"name": "Bash"}]}) == ({"text": "one"}, 0)
    turn, index = script.take({"tools": [{"name": "Bash"}]})
    assert index == 1 and turn["exhausted"]


def test_a_hanging_client_is_killed_and_reported(tmp_path, sealed_namespace):
    session = harness.Session(tmp_path, client=None)
    run = session.run_sealed(["sh", "-c", "echo started >&2; sleep 120"], [], timeout=3)
    assert run.timed_out and run.rc != 0
    assert "started" in run.stderr


def test_the_client_side_sees_only_loopback(tmp_path, sealed_namespace):
    session = harness.Session(tmp_path, client=None)
    probe = ("import os, urllib.request\n"
             "print(open('/proc/net/dev').read())\n"
             "print(urllib.request.urlopen(os.environ['ANTHROPIC_BASE_URL'] + '/', timeout=5).status)\n")
    run = session.run_sealed([sys.executable, "-c", probe], [], timeout=30)
    assert run.rc == 0, run.diagnosis()
    names = [l.split(":")[0].strip() for l in run.stdout.splitlines() if ":" in l and "|" not in l]
    assert names == ["lo"], run.stdout
    assert run.stdout.strip().splitlines()[-1] == "200"  # the fake server answered on 127.0.0.1
    assert [r["method"] for r in run.requests] == ["GET"]
