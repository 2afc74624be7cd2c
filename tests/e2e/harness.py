"""Run a real agent client against the fake model, offline, the way a user's session runs.

    client = find_client("claude")                   # None if the pinned client is not installed
    session = Session(tmp_path, client)              # temp HOME, project dir and LEDGER_DB
    session.ledger("install", "--scope", "project")  # exactly what a user types
    run = session.claude("why does the loss turn NaN?", turns=[{"bash": "..."}, {"text": "..."}])
    run.result          # the client's --output-format json object
    run.requests        # every request the fake model received (agent-loop ones: run.turns)

Each run is one `unshare -n` subprocess (loopback only) that hosts the fake server and the
client together; see sealed.py. Nothing here reaches the network.
"""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import sealed

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
INSTALLER = os.path.join(REPO, "scripts", "install-agent-clients.sh")

# Seconds. A client run is a few seconds; these only bound a stuck one.
CLIENT_TIMEOUT = 90
OUTER_TIMEOUT = CLIENT_TIMEOUT + 30


def pins():
    """{name: (package, version, bin)} from the installer's table, the one place pins live."""
    with open(INSTALLER, encoding="utf-8") as f:
        text = f.read()
    table = re.search(r"^CLIENTS='\n(.*?)^'", text, re.S | re.M).group(1)
    out = {}
    for line in table.splitlines():
        parts = line.split()
        if len(parts) == 4:
            out[parts[0]] = tuple(parts[1:])
    return out


# Read at import, before any fixture points HOME at a temp folder: the cache is the real user's.
CACHE_ROOT = os.environ.get("LEDGER_E2E_CACHE") or os.path.join(
    os.path.expanduser("~"), ".cache", "evidence-ledger", "agents")


def cache_root():
    return CACHE_ROOT


def client_path(name):
    package, version, binary = pins()[name]
    return os.path.join(cache_root(), "%s@%s" % (package, version), "node_modules", ".bin", binary)


def find_client(name):
    path = client_path(name)
    complete = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(path))), ".complete")
    return path if os.access(path, os.X_OK) and os.path.exists(complete) else None


def install_client(name, timeout=600):
    """Run the installer (needs the npm registry). Returns (ok, output)."""
    try:
        proc = subprocess.run(["sh", INSTALLER, name], capture_output=True, text=True,
                              timeout=timeout, env=dict(os.environ, LEDGER_E2E_CACHE=CACHE_ROOT))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    return proc.returncode == 0, proc.stdout + proc.stderr


def namespace_problem():
    """None if we can run a loopback-only namespace here, else why not."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        return "unshare or ip (util-linux, iproute2) is not installed"
    try:
        proc = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up && cat /proc/net/dev"],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "unshare -n failed: %s" % exc
    if proc.returncode != 0:
        return "unshare -n is not permitted here: %s" % (proc.stderr.strip() or proc.returncode)
    names = [l.split(":")[0].strip() for l in proc.stdout.splitlines()[2:] if ":" in l]
    if names != ["lo"]:
        return "the new namespace is not loopback-only: %s" % names
    return None


def tool_dirs():
    """PATH entries the client and its hooks need: this Python's scripts (ledger, ledger-hook),
    node, and the usual system folders."""
    dirs = [os.path.dirname(sys.executable)]
    for exe in ("ledger-hook", "node"):
        found = shutil.which(exe)
        if found:
            dirs.append(os.path.dirname(found))
    dirs += ["/usr/local/bin", "/usr/bin", "/bin"]
    seen = []
    for d in dirs:
        if d not in seen:
            seen.append(d)
    return seen


class Run(sealed.SealedRun):
    """A Claude Code run: also its `--output-format json` result and its agent-loop turns."""

    def __init__(self, result, request_log, argv):
        super().__init__(result, request_log, argv)
        try:
            self.result = json.loads(self.stdout.strip().splitlines()[-1]) if self.stdout.strip() else None
        except ValueError:
            self.result = None

    @property
    def turns(self):
        """The agent-loop requests, in order: each one consumed a scripted turn."""
        return [r for r in self.requests if r.get("kind") == "turn"]

    def diagnosis(self):
        """What a failing test prints: enough to see why without rerunning."""
        lines = ["client rc=%s timed_out=%s" % (self.rc, self.timed_out),
                 "argv: %s" % " ".join(self.argv),
                 "--- client stdout (tail)", self.stdout[-1500:],
                 "--- client stderr (tail)", self.stderr[-3000:],
                 "--- fake model requests (%d)" % len(self.requests)]
        for r in self.requests:
            body = r.get("body") or {}
            last = last_user_text(body) if isinstance(body, dict) else ""
            lines.append("%s %s kind=%s turn=%s tools=%d last_user=%r reply=%s" % (
                r["method"], r["path"], r.get("kind"), r.get("turn"),
                len(body.get("tools") or []) if isinstance(body, dict) else 0,
                last[-300:], json.dumps(r.get("reply"), ensure_ascii=False)[:300]))
        return "\n".join(lines)


def message_text(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                parts.append(inner)
            else:
                parts += [b.get("text", "") for b in inner or [] if b.get("type") == "text"]
    return "\n".join(parts)


def last_user_text(body):
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return message_text(message)
    return ""


def all_text(body):
    """Every string the model was shown in one request: system prompt, messages, tools."""
    return json.dumps(body, ensure_ascii=False)


class Session:
    """One user's machine: a temp HOME, a project folder and a ledger file."""

    def __init__(self, root, client):
        self.root = str(root)
        self.client = client
        self.home = os.path.join(self.root, "home")
        self.project = os.path.join(self.root, "proj")
        self.db = os.path.join(self.root, "ledger.db")
        self.runs = 0
        for d in (self.home, self.project):
            os.makedirs(d, exist_ok=True)
        self.env = {
            "HOME": self.home,
            "PATH": os.pathsep.join(tool_dirs()),
            "LANG": "C.UTF-8",
            "LEDGER_DB": self.db,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
            # One fast attempt: a broken fake should fail the test, not retry for a minute.
            "CLAUDE_CODE_MAX_RETRIES": "0",
            "API_TIMEOUT_MS": "30000",
            "TMPDIR": os.path.join(self.root, "tmp"),
        }
        os.makedirs(self.env["TMPDIR"], exist_ok=True)
        # Keep the user's own config out: XDG folders under the temp HOME too.
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            self.env[var] = os.path.join(self.home, "." + var.split("_")[1].lower())

    def write(self, relpath, text):
        path = os.path.join(self.project, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def ledger(self, *args, check=True, cwd=None):
        """`python -m ledger ARGS` with this session's env, in the project folder."""
        env = dict(os.environ, **self.env)
        env["PATH"] = self.env["PATH"]
        proc = subprocess.run([sys.executable, "-m", "ledger", *args], cwd=cwd or self.project,
                              env=env, capture_output=True, text=True, timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError("ledger %s exited %d\nstdout: %s\nstderr: %s" % (
                " ".join(args), proc.returncode, proc.stdout, proc.stderr))
        return proc

    # The ledger, read with plain sqlite3 rather than through the code under test.
    def rows(self, sql, args=()):
        if not os.path.exists(self.db):
            return []
        conn = sqlite3.connect(self.db)
        conn.row_factory = sqlite3.Row
        try:
            return [dict(r) for r in conn.execute(sql, args).fetchall()]
        finally:
            conn.close()

    def evidence(self, session_id):
        return self.rows("SELECT * FROM evidence WHERE session_id = ? ORDER BY num", (session_id,))

    def decisions(self, session_id):
        """Stop decisions in order, each with its judged claims under "claims"."""
        out = self.rows("SELECT * FROM decisions WHERE session_id = ? ORDER BY num", (session_id,))
        for d in out:
            d["claims"] = self.rows("SELECT * FROM claims WHERE decision_num = ? ORDER BY num",
                                    (d["num"],))
        return out

    def transcript(self, session_id):
        """The client's own session transcript (under the temp HOME), one dict per line."""
        import glob

        paths = glob.glob(os.path.join(self.home, ".claude", "projects", "*", session_id + ".jsonl"))
        if not paths:
            return []
        with open(paths[0], encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def shown_to_user(self, session_id, event="Stop"):
        """The systemMessage texts a hook of `event` showed the user, from the transcript."""
        return [e["attachment"].get("content", "") for e in self.transcript(session_id)
                if isinstance(e.get("attachment"), dict)
                and e["attachment"].get("type") == "hook_system_message"
                and e["attachment"].get("hookEvent") == event]

    def claude(self, prompt, turns, extra_args=(), env=None, timeout=CLIENT_TIMEOUT):
        """Run `claude -p PROMPT` once against a fake model that plays `turns`."""
        argv = [self.client, "-p", prompt, "--allowedTools", "Bash", "--output-format", "json",
                *extra_args]
        return self.run_sealed(argv, turns, env=env, timeout=timeout)

    def run_sealed(self, argv, turns, env=None, timeout=CLIENT_TIMEOUT):
        """Run any command beside the fake model inside a fresh loopback-only namespace."""
        self.runs += 1
        # The port is only known inside the namespace; sealed.py fills in {port}.
        merged = dict(self.env, ANTHROPIC_BASE_URL="http://127.0.0.1:{port}")
        merged.update(env or {})
        return sealed.run_sealed("fake_anthropic", turns, argv, merged, self.project, self.root,
                                 timeout=timeout, tag="run%d" % self.runs, run_class=Run)

