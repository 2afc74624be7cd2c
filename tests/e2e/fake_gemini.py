"""A scripted Gemini API server for driving the real Gemini CLI offline.

Run it inside a loopback-only network namespace (tests/e2e/offline.py does), with
GOOGLE_GEMINI_BASE_URL pointing at it. It answers
`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` in the shape Gemini CLI 0.61.0 was
seen to accept (../shared/research/other-agents-e2e.md section 2.3), and plays one script:

1. no functionResponse in the conversation yet: call `run_shell_command` with the command;
2. otherwise answer with text. Each user text part after the tool result is one AfterAgent
   deny fed back to the model; once there have been `cite_after` of them the model gives the
   `cited` answer, before that (or forever, when `cite_after` is null) `uncited`.

JSON-mode `generateContent` calls (the model router, and any other side question the CLI asks)
get an object built from their response schema. Every request is appended to --log.
"""

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_VERSION = "gemini-2.5-pro"
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20}


def feedback_count(body):
    """How many AfterAgent deny reasons have reached the model in this conversation."""
    count = 0
    after_tool = False
    for content in body.get("contents") or []:
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        if any("functionResponse" in p for p in parts):
            after_tool = True
            continue
        if after_tool and content.get("role") == "user" and any("text" in p for p in parts):
            count += 1
    return count


def has_tool_result(body):
    return any("functionResponse" in p for c in body.get("contents") or []
               for p in c.get("parts") or [] if isinstance(p, dict))


def from_schema(schema):
    """A valid value for a JSON-mode request's schema (router scores must be 1-100)."""
    kind = str(schema.get("type") or "OBJECT").upper()
    if schema.get("enum"):
        # Next-speaker style questions: "user" hands the turn back instead of looping.
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if kind == "OBJECT":
        return {k: from_schema(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "ARRAY":
        return [from_schema(schema.get("items") or {"type": "STRING"})]
    if kind in ("INTEGER", "NUMBER"):
        return 50
    if kind == "BOOLEAN":
        return False
    return "user"


def candidate(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": USAGE, "modelVersion": MODEL_VERSION}


def next_parts(body, scenario):
    if not has_tool_result(body):
        return [{"functionCall": {"name": "run_shell_command",
                                  "args": {"command": scenario["command"],
                                           "description": "probe the crash"}}}]
    cite_after = scenario.get("cite_after")
    cited = cite_after is not None and feedback_count(body) >= cite_after
    return [{"text": scenario["cited"] if cited else scenario["uncited"]}]


def make_handler(scenario, log_path):
    lock = threading.Lock()
    counter = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            if "/models" in self.path:
                self._json(200, {"models": []})
            else:
                self._json(404, {"error": {"code": 404, "message": "not found"}})

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            with lock:
                counter[0] += 1
                with open(log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"n": counter[0], "path": self.path, "body": body}) + "\n")
            path = self.path.split("?", 1)[0]
            if path.endswith(":countTokens"):
                self._json(200, {"totalTokens": 10})
            elif path.endswith(":streamGenerateContent"):
                data = b"data: " + json.dumps(candidate(next_parts(body, scenario))).encode() + b"\r\n\r\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif path.endswith(":generateContent"):
                config = body.get("generationConfig") or {}
                schema = config.get("responseJsonSchema") or config.get("responseSchema")
                if schema:
                    text = json.dumps(from_schema(schema))
                    self._json(200, candidate([{"text": text}]))
                else:
                    self._json(200, candidate(next_parts(body, scenario)))
            else:
                self._json(404, {"error": {"code": 404, "message": "not found: %s" % path}})

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
