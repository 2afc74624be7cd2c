"""A scripted stand-in for the Anthropic Messages API, for driving the real client offline.

Standard library only, so it runs inside the test's network namespace with nothing installed.

The script is a list of turns. Each *agent-loop* request (one that offers the model tools)
consumes the next turn; the client's small side requests (titles, summaries, quota probes)
carry no tools and get a short canned answer without consuming anything, so a run is the same
every time whatever side traffic a client version sends. A turn is one of:

    {"bash": "cat logs/train.log"}                  # call the Bash tool with this command
    {"bash": "...", "text": "Let me look."}          # some text, then the tool call
    {"tool": "Skill", "input": {"skill": "debug"}}   # any other tool
    {"text": "The loss turns NaN at step 420: ..."}  # a final answer (end_turn)
    {"quote": "nan", "text": "The log shows `{quote}`."}
        # a final answer quoting what the client just sent back: {quote} becomes the first
        # line of the latest tool result that matches the regex (so the script can cite output
        # it cannot know in advance, as a model does)

When the script runs out, the server answers every further agent-loop request with the
`exhausted` text (default below), and the request log says so: a test that expected the
client to stop sees the extra requests.

Every request is appended to a JSON-lines log as it arrives (flushed, so a killed run
still leaves it): method, path, selected headers, the parsed body, whether it consumed a
turn, and which.

Run standalone: python3 fake_anthropic.py SCRIPT.json LOG.jsonl [--port N] [--port-file F]
"""

import argparse
import itertools
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_FALLBACK = "claude-sonnet-4-5"
EXHAUSTED = "(fake model: script exhausted)"
SIDE_TEXT = "Debugging session"


def is_agent_request(body):
    """Agent-loop requests offer tools; side requests (title, summary, quota) do not."""
    return isinstance(body, dict) and bool(body.get("tools"))


def last_tool_result(body):
    """The text of the newest tool_result block the client sent, or ""."""
    for message in reversed(body.get("messages") or []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in reversed(content):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = "\n".join(b.get("text", "") for b in inner if isinstance(b, dict))
                return inner or ""
    return ""


def fill_quote(turn, body):
    """Resolve a turn's {quote}; a pattern that matches nothing leaves a visible marker."""
    pattern = turn.get("quote")
    if not pattern:
        return turn
    found = next((line.strip() for line in last_tool_result(body).splitlines()
                  if re.search(pattern, line)), "(fake model: no line matched %r)" % pattern)
    return dict(turn, text=turn["text"].replace("{quote}", found), quoted=found)


def message_for(turn, model, msg_id, tool_id):
    """The complete assistant message one turn produces."""
    content = []
    if turn.get("text"):
        content.append({"type": "text", "text": turn["text"]})
    tool = "Bash" if "bash" in turn else turn.get("tool")
    if tool:
        tool_input = turn.get("input")
        if tool_input is None:
            tool_input = {"command": turn["bash"], "description": turn.get("description", "run")}
        content.append({"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input})
    if not content:
        content.append({"type": "text", "text": ""})
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }


def sse_events(message):
    """The stream a real server sends for `message`, text and JSON split into a few deltas."""
    start = dict(message, content=[], stop_reason=None, stop_sequence=None,
                 usage=dict(message["usage"], output_tokens=1))
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            for piece in chunks(block["text"]):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "text_delta", "text": piece}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": dict(block, input={})}
            for piece in chunks(json.dumps(block["input"], ensure_ascii=False)):
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta",
                                                        "partial_json": piece}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                            "usage": {"output_tokens": message["usage"]["output_tokens"]}}
    yield "message_stop", {"type": "message_stop"}


def chunks(text, size=40):
    # Several deltas, not one: the client must reassemble them, as it does with a real model.
    if not text:
        return [""]
    return [text[i:i + size] for i in range(0, len(text), size)]


class Script:
    def __init__(self, turns, log_path, exhausted=EXHAUSTED):
        self.turns = list(turns)
        self.exhausted = exhausted
        self.next_turn = 0
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.log = open(log_path, "a", encoding="utf-8")

    def take(self, body):
        """(turn, index) for an agent-loop request, or (None, None) for a side request."""
        with self.lock:
            if not is_agent_request(body):
                return None, None
            index = self.next_turn
            self.next_turn += 1
        if index < len(self.turns):
            return self.turns[index], index
        return {"text": self.exhausted, "exhausted": True}, index

    def new_ids(self):
        n = next(self.ids)
        return "msg_fake_%04d" % n, "toolu_fake_%04d" % n

    def write(self, entry):
        with self.lock:
            self.log.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self.log.flush()


KEPT_HEADERS = ("user-agent", "anthropic-version", "anthropic-beta", "x-app", "accept",
                "content-type", "x-api-key", "authorization")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script = None  # set on the subclass by make_server

    def log_message(self, fmt, *args):  # the request log is the record; keep stderr quiet
        pass

    def _record(self, body, **extra):
        entry = {"method": self.command, "path": self.path,
                 "headers": {k: v for k, v in self.headers.items() if k.lower() in KEPT_HEADERS},
                 "body": body}
        entry.update(extra)
        self.script.write(entry)

    def _send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _read_body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")[:2000]}

    def do_HEAD(self):
        self._record(None)
        self._send_json(200, {})

    def do_GET(self):
        self._record(None)
        path = self.path.split("?")[0]
        if path.rstrip("/").endswith("/v1/models"):
            self._send_json(200, {"data": [{"type": "model", "id": MODEL_FALLBACK,
                                            "display_name": "Fake", "created_at": "2025-01-01T00:00:00Z"}],
                                  "has_more": False, "first_id": MODEL_FALLBACK, "last_id": MODEL_FALLBACK})
        else:
            self._send_json(200, {})

    def do_POST(self):
        body = self._read_body()
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self._record(body, kind="count_tokens")
            return self._send_json(200, {"input_tokens": 100})
        if not path.endswith("/v1/messages"):
            self._record(body, kind="other")
            return self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                   "message": "fake: " + path}})
        body = body if isinstance(body, dict) else {}
        turn, index = self.script.take(body)
        msg_id, tool_id = self.script.new_ids()
        model = body.get("model") or MODEL_FALLBACK
        if turn is None:
            message = message_for({"text": SIDE_TEXT}, model, msg_id, tool_id)
            self._record(body, kind="side")
        else:
            turn = fill_quote(turn, body)
            message = message_for(turn, model, msg_id, tool_id)
            self._record(body, kind="turn", turn=index, exhausted=bool(turn.get("exhausted")),
                         reply=message["content"])
        if body.get("stream"):
            self._stream(message)
        else:
            self._send_json(200, message)

    def _stream(self, message):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", "req_fake")
        self.send_header("connection", "close")
        self.end_headers()
        for name, data in sse_events(message):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data, ensure_ascii=False)))
                             .encode("utf-8"))
            self.wfile.flush()
        self.close_connection = True


def make_server(turns, log_path, host="127.0.0.1", port=0, exhausted=EXHAUSTED):
    """A ready ThreadingHTTPServer; call serve_forever() (in a thread) and shutdown()."""
    handler = type("ScriptedHandler", (Handler,), {"script": Script(turns, log_path, exhausted)})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def load_script(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return data["turns"] if isinstance(data, dict) else data


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script")
    parser.add_argument("log")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    args = parser.parse_args(argv)
    server = make_server(load_script(args.script), args.log, port=args.port)
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file, "w") as f:
            f.write(str(port))
    print("fake anthropic on 127.0.0.1:%d" % port, file=sys.stderr)
    server.serve_forever()


if __name__ == "__main__":
    main()
