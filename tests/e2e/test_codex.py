"""The real OpenAI Codex CLI, offline, with the guard installed the way a user installs it.

Each test is one user: a temp HOME with a Codex config that points at a scripted fake
Responses API (fake_openai_responses.py), `ledger install --agent codex`, then one `codex exec`.
Both run inside a loopback-only network namespace (sealed.py): the installer talks to
`codex app-server` to register hook trust, and the run passes no bypass flag, so the hooks
only fire if that trust took. Assertions come from what the code under test does not control:
Codex's own stdout and stderr, the requests it sent the model (a Stop block's reason arrives
as a `<hook_prompt>` user message), and the ledger read with plain sqlite3.
"""

import html
import json
import os
import re
import sys

import pytest

import harness
from sealed import pinned_client, run_sealed

pytestmark = pytest.mark.e2e

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
PROMPT = "Why did the training job crash?"
UNCITED = "The root cause is a deadlock in the dataloader workers."
CITED = ("The job crashed because the GPU ran out of memory: the run printed `%s`." % OOM)
NAN = "ValueError: loss is nan at step 812"
CITED_NAN = "The run fails because the loss diverged: the smoke test printed `%s`." % NAN
# What the model quotes must be tool output, not text it wrote into the command itself (the
# guard rejects an echoed quote), so the tools read files and run a script.
LOG = "step 811 loss=2.31\n%s\n" % OOM
SMOKE = 'loss = float("nan")\nraise ValueError("loss is %s at step %d" % (loss, 812))\n'
READ_LOG = "cat logs/train.log"
RUN_SMOKE = "python3 smoke.py"

CONFIG = """# the user's own Codex config: install must leave all of it alone
model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake local Responses API"
base_url = "http://127.0.0.1:1/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
"""


@pytest.fixture(scope="module")
def codex_client():
    return pinned_client("codex")


class CodexUser:
    def __init__(self, root, client):
        self.s = harness.Session(root, client)
        self.client = client
        self.codex_home = os.path.join(self.s.home, ".codex")
        os.makedirs(self.codex_home)
        with open(os.path.join(self.codex_home, "config.toml"), "w") as f:
            f.write(CONFIG)
        self.env = dict(self.s.env, CODEX_HOME=self.codex_home, FAKE_OPENAI_KEY="dummy")
        self.env["PATH"] = os.path.dirname(client) + os.pathsep + self.env["PATH"]
        self.runs = 0
        self.s.write("logs/train.log", LOG)
        self.s.write("smoke.py", SMOKE)

    def sealed(self, argv, scenario=None, timeout=90):
        self.runs += 1
        scenario = scenario or {"command": "true", "uncited": "", "cited": "", "cite_after": 0}
        return run_sealed("fake_openai_responses", scenario, argv, self.env, self.s.project,
                          self.s.root, timeout=timeout, tag="run%d" % self.runs)

    def install(self, *args):
        run = self.sealed([sys.executable, "-m", "ledger", "install", "--agent", "codex", *args])
        assert run.rc == 0 and not run.timed_out, run.diagnosis()
        return run

    def codex(self, scenario, timeout=90):
        argv = [self.client, "exec", "--disable", "plugins", "--disable", "remote_plugin",
                "--disable", "apps", "--skip-git-repo-check",
                "-c", 'model_providers.fake.base_url="http://127.0.0.1:{port}/v1"', PROMPT]
        run = self.sealed(argv, scenario, timeout)
        # A stuck client is killed by the runner; fail with its stderr rather than hang.
        assert not run.timed_out and run.rc == 0, run.diagnosis()
        match = re.search(r"session id: (\S+)", run.stderr)
        assert match, run.diagnosis()
        run.session_id = match.group(1)
        return run

    def decisions(self, run):
        rows = self.s.decisions(run.session_id)
        errors = [d["error"] for d in rows if d.get("error")]
        assert not errors, "the Stop guard failed open: %s\n%s" % (errors, run.diagnosis())
        return rows


@pytest.fixture
def user(tmp_path, codex_client):
    u = CodexUser(tmp_path / "e2e", codex_client)
    out = u.install().stdout
    assert "trusted 4 hooks" in out, out
    return u


def hook_prompts(request):
    """The Stop-hook reasons Codex fed back to the model in one request."""
    found = []
    for item in request["body"].get("input") or []:
        if item.get("type") == "message" and item.get("role") == "user":
            for part in item.get("content") or []:
                m = re.search(r"<hook_prompt[^>]*>(.*)</hook_prompt>", part.get("text") or "", re.S)
                if m:
                    # Codex escapes the reason as XML text inside the tag (-> arrives as -&gt;).
                    found.append(html.unescape(m.group(1)))
    return found


def test_install_merges_into_the_users_config_and_trusts_only_our_hooks(user):
    import tomllib

    with open(os.path.join(user.codex_home, "config.toml"), "rb") as f:
        config = tomllib.load(f)
    before = tomllib.loads(CONFIG)
    state = config["hooks"].pop("state")
    assert not config.pop("hooks")  # nothing but the trust table was added there
    assert config == before
    hooks_file = os.path.join(user.codex_home, "hooks.json")
    assert sorted(k.rsplit(":", 2)[0] for k in state) == sorted(
        "%s:%s" % (hooks_file, e) for e in ("post_tool_use", "pre_tool_use", "stop", "subagent_stop"))
    assert all(v["trusted_hash"].startswith("sha256:") for v in state.values())
    # Installing again is a no-op, trust included.
    assert "4 hooks already trusted" in user.install().stdout


def test_uncited_claim_is_blocked_then_the_cited_one_allowed(user):
    run = user.codex({"command": READ_LOG, "uncited": UNCITED, "cited": CITED, "cite_after": 1})
    assert run.stdout.strip() == CITED, run.diagnosis()
    assert "hook: Stop Blocked" in run.stderr, run.diagnosis()
    assert len(run.requests) == 3, run.diagnosis()

    [entry] = user.s.evidence(run.session_id)
    assert entry["agent"] == "codex"
    assert entry["tool_name"] == "Bash"
    assert entry["output"] == LOG
    [session] = user.s.rows("SELECT agent FROM sessions WHERE id = ?", (run.session_id,))
    assert session["agent"] == "codex"

    first, second = user.decisions(run)
    assert (first["decision"], second["decision"]) == ("block", "allow")
    assert first["message"] == UNCITED and second["message"] == CITED
    assert first["turn_id"] and first["turn_id"] == second["turn_id"]
    # The reason reached the model word for word, and points it at the protocol.
    assert hook_prompts(run.requests[2]) == [first["reason"]]
    assert "debug" in first["reason"]
    assert [c["cited"] for c in second["claims"] if c["kind"] == "assertion"] == [1]


def test_the_debug_skill_is_offered_to_the_model(user):
    run = user.codex({"command": READ_LOG, "uncited": CITED, "cited": CITED, "cite_after": 0})
    text = json.dumps(run.requests[0]["body"])
    skill = os.path.join(user.codex_home, "skills", "debug", "SKILL.md")
    assert os.path.exists(skill)
    # Codex lists skills in a developer message: name, description, and a path under a root.
    root = re.search(r"`(r\d+)` = `%s`" % re.escape(os.path.dirname(os.path.dirname(skill))), text)
    assert root, run.diagnosis()
    assert "- debug: Evidence-first debugging" in text
    assert "(file: %s/debug/SKILL.md)" % root.group(1) in text


def test_a_failing_commands_output_is_accepted_as_evidence(user):
    run = user.codex({"command": RUN_SMOKE, "uncited": CITED_NAN,
                      "cited": CITED_NAN, "cite_after": 0})
    assert "exited 1" in run.stderr, run.diagnosis()
    [entry] = user.s.evidence(run.session_id)
    assert NAN in entry["output"]
    [decision] = user.decisions(run)
    assert decision["decision"] == "allow", run.diagnosis()
    [claim] = [c for c in decision["claims"] if c["kind"] == "assertion"]
    assert claim["cited"] == 1
    assert len(run.requests) == 2
    assert run.stdout.strip() == CITED_NAN


def test_a_model_that_never_cites_is_let_go_after_max_blocks(user):
    run = user.codex({"command": READ_LOG, "uncited": UNCITED, "cited": CITED, "cite_after": None})
    rows = user.decisions(run)
    assert [d["decision"] for d in rows][:2] == ["block", "block"], run.diagnosis()
    assert len([d for d in rows if d["decision"] == "block"]) == 2
    assert rows[-1]["decision"] != "block" and len(rows) == 3
    # One tool call, the first answer and two retries: the loop ended by itself.
    assert len(run.requests) == 4, run.diagnosis()
    assert [len(hook_prompts(r)) for r in run.requests] == [0, 0, 1, 2]
    assert run.stdout.strip() == UNCITED


def test_uninstall_takes_out_hooks_skill_and_trust(user):
    run = user.sealed([sys.executable, "-m", "ledger", "uninstall", "--agent", "codex"])
    assert run.rc == 0, run.diagnosis()
    import tomllib

    with open(os.path.join(user.codex_home, "config.toml"), "rb") as f:
        config = tomllib.load(f)
    assert not (config.get("hooks") or {}).get("state")
    assert not os.path.exists(os.path.join(user.codex_home, "hooks.json"))
    assert not os.path.exists(os.path.join(user.codex_home, "skills", "debug", "SKILL.md"))
