"""A scripted OpenAI Responses API server for driving the real Codex CLI offline.

Run it inside a loopback-only network namespace (tests/e2e/offline.py does). It answers
`POST /v1/responses` over SSE, in the event shapes Codex 0.171.0 was seen to accept
(../shared/research/other-agents-e2e.md section 1.3), and plays one small script:

1. no tool result in the input yet: call `exec_command` with the scenario's command;
2. otherwise answer with text. Each `<hook_prompt>` user message in the input is one Stop
   hook block fed back to the model; once there have been `cite_after` of them the model
   gives the `cited` answer, before that (or forever, when `cite_after` is null) `uncited`.

Every request body is appended to --log as one JSON line, so a test can read what the model
was told (the block reason arrives as a user message).
"""

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "gpt-5.5"


def feedback_count(body):
    """How many Stop-hook reasons have reached the model in this conversation."""
    count = 0
    for item in body.get("input") or []:
        if item.get("type") == "message" and item.get("role") == "user":
            text = " ".join(part.get("text") or "" for part in item.get("content") or []
                            if isinstance(part, dict))
            if "<hook_prompt" in text:
                count += 1
    return count


def has_tool_result(body):
    return any(item.get("type") == "function_call_output" for item in body.get("input") or [])


def sse(event, data):
    data = dict(data, type=event)
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode("utf-8")


def response_frames(n, item):
    """The SSE frames for one response whose only output item is `item`."""
    rid = "resp_%d" % n
    frames = [sse("response.created", {"response": {"id": rid, "object": "response",
                                                    "status": "in_progress", "model": MODEL}})]
    if item["type"] == "function_call":
        frames.append(sse("response.output_item.added", {
            "output_index": 0, "item": dict(item, arguments="", status="in_progress")}))
        frames.append(sse("response.function_call_arguments.delta", {
            "output_index": 0, "item_id": item["id"], "delta": item["arguments"]}))
        frames.append(sse("response.function_call_arguments.done", {
            "output_index": 0, "item_id": item["id"], "arguments": item["arguments"]}))
    else:
        text = item["content"][0]["text"]
        frames.append(sse("response.output_item.added", {
            "output_index": 0, "item": dict(item, content=[], status="in_progress")}))
        frames.append(sse("response.content_part.added", {
            "output_index": 0, "item_id": item["id"], "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}))
        frames.append(sse("response.output_text.delta", {
            "output_index": 0, "item_id": item["id"], "content_index": 0, "delta": text}))
        frames.append(sse("response.output_text.done", {
            "output_index": 0, "item_id": item["id"], "content_index": 0, "text": text}))
    frames.append(sse("response.output_item.done", {"output_index": 0, "item": item}))
    frames.append(sse("response.completed", {"response": {
        "id": rid, "object": "response", "status": "completed", "model": MODEL,
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 20}}}))
    return frames


def next_item(n, body, scenario):
    if not has_tool_result(body):
        args = json.dumps({"cmd": scenario["command"], "yield_time_ms": 2000})
        return {"type": "function_call", "id": "fc_call_%d" % n, "call_id": "call_%d" % n,
                "name": "exec_command", "arguments": args, "status": "completed"}
    cite_after = scenario.get("cite_after")
    cited = cite_after is not None and feedback_count(body) >= cite_after
    text = scenario["cited"] if cited else scenario["uncited"]
    return {"type": "message", "id": "msg_%d" % n, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def make_handler(scenario, log_path):
    lock = threading.Lock()
    counter = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet: the test reads --log instead
            pass

        def do_GET(self):
            self._json(404, {"error": {"message": "not found: %s" % self.path}})

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            with lock:
                counter[0] += 1
                n = counter[0]
                with open(log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"n": n, "path": self.path, "body": body}) + "\n")
            if not self.path.rstrip("/").endswith("/responses"):
                self._json(404, {"error": {"message": "not found: %s" % self.path}})
                return
            frames = response_frames(n, next_item(n, body, scenario))
            payload = b"".join(frames)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status, obj):
            data = json.dumps(obj).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def make_server(scenario, log_path, port=0):
    """A server on 127.0.0.1 (port 0: any free one); the caller runs serve_forever()."""
    return ThreadingHTTPServer(("127.0.0.1", port), make_handler(scenario, log_path))


def main(argv=None):
    """Manual use: serve on --port until interrupted (inside a loopback-only namespace)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--scenario", required=True, help="JSON file: command, uncited, cited, cite_after")
    parser.add_argument("--log", required=True)
    args = parser.parse_args(argv)
    with open(args.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    server = make_server(scenario, args.log, args.port)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
