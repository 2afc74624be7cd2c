"""The real Google Gemini CLI, offline, with the guard installed the way a user installs it.

Each test is one user: a temp HOME whose ~/.gemini/settings.json already holds their own
settings, `ledger install --agent gemini`, then one headless `gemini -p` against a scripted
fake Gemini API (fake_gemini.py) inside a loopback-only network namespace (sealed.py).
Assertions come from the CLI's own JSON output, the requests it sent the model (an AfterAgent
deny's reason arrives as the next plain user text), and the ledger read with plain sqlite3.
"""

import json
import os

import pytest

import harness
from sealed import pinned_client, run_sealed

pytestmark = pytest.mark.e2e

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
PROMPT = "Why did the training job crash?"
UNCITED = "The root cause is a deadlock in the dataloader workers."
CITED = "The job crashed because the GPU ran out of memory: the run printed `%s`." % OOM
NAN = "ValueError: loss is nan at step 812"
CITED_NAN = "The run fails because the loss diverged: the smoke test printed `%s`." % NAN
# Quotes must be tool output, not text the model wrote into its own command (the guard
# rejects an echoed quote), so the tools read a file and run a script.
LOG = "step 811 loss=2.31\n%s\n" % OOM
SMOKE = 'loss = float("nan")\nraise ValueError("loss is %s at step %d" % (loss, 812))\n'
READ_LOG = "cat logs/train.log"
RUN_SMOKE = "python3 smoke.py"

USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "tools": {"sandbox": False},
}
# Headless Gemini offers the shell tool only under a policy that allows it (or --yolo);
# redirections need their own permission.
POLICY = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 100\nallowRedirection = true\n'


@pytest.fixture(scope="module")
def gemini_client():
    return pinned_client("gemini")


class GeminiUser:
    def __init__(self, root, client):
        self.s = harness.Session(root, client)
        self.client = client
        self.settings = os.path.join(self.s.home, ".gemini", "settings.json")
        os.makedirs(os.path.dirname(self.settings))
        with open(self.settings, "w") as f:
            json.dump(USER_SETTINGS, f, indent=2)
        with open(self.settings, "rb") as f:
            self.original = f.read()
        self.policy = os.path.join(self.s.root, "allow-shell.toml")
        with open(self.policy, "w") as f:
            f.write(POLICY)
        self.s.env.update(GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:{port}",
                          GEMINI_CLI_TRUST_WORKSPACE="true", GEMINI_SANDBOX="false", NO_COLOR="1")
        self.s.write("logs/train.log", LOG)
        self.s.write("smoke.py", SMOKE)
        self.runs = 0

    def gemini(self, scenario, timeout=90):
        self.runs += 1
        argv = [self.client, "-p", PROMPT, "--policy", self.policy, "--output-format", "json"]
        run = run_sealed("fake_gemini", scenario, argv, self.s.env, self.s.project, self.s.root,
                         timeout=timeout, tag="run%d" % self.runs)
        # A stuck client is killed by the runner; fail with its stderr rather than hang.
        assert not run.timed_out and run.rc == 0, run.diagnosis()
        run.result = json.loads(run.stdout)
        run.session_id = run.result["session_id"]
        run.turns = [r for r in run.requests if ":streamGenerateContent" in r["path"]]
        return run

    def decisions(self, run):
        rows = self.s.decisions(run.session_id)
        errors = [d["error"] for d in rows if d.get("error")]
        assert not errors, "the Stop guard failed open: %s\n%s" % (errors, run.diagnosis())
        return rows


@pytest.fixture
def user(tmp_path, gemini_client):
    u = GeminiUser(tmp_path / "e2e", gemini_client)
    u.s.ledger("install", "--agent", "gemini")
    return u


def last_user_text(request):
    for content in reversed(request["body"].get("contents") or []):
        if content.get("role") == "user":
            return "".join(p.get("text", "") for p in content.get("parts") or [] if "text" in p)
    return ""


def test_install_keeps_the_users_settings_and_uses_milliseconds(user):
    with open(user.settings) as f:
        settings = json.load(f)
    hooks = settings.pop("hooks")
    assert settings == USER_SETTINGS
    assert sorted(hooks) == ["AfterAgent", "AfterTool", "BeforeTool"]
    timeouts = [h["timeout"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert min(timeouts) >= 1000
    user.s.ledger("uninstall", "--agent", "gemini")
    with open(user.settings, "rb") as f:
        assert f.read() == user.original
    assert not os.path.exists(os.path.join(user.s.home, ".gemini", "skills", "debug", "SKILL.md"))
    assert not os.path.exists(os.path.join(user.s.home, ".gemini", "GEMINI.md"))


def test_uncited_claim_is_denied_then_the_cited_one_allowed(user):
    run = user.gemini({"command": READ_LOG, "uncited": UNCITED, "cited": CITED, "cite_after": 1})
    assert len(run.turns) == 3, run.diagnosis()

    [entry] = user.s.evidence(run.session_id)
    assert entry["agent"] == "gemini"
    assert entry["tool_name"] == "run_shell_command"
    assert OOM in entry["output"] and entry["exit_code"] == 0
    [session] = user.s.rows("SELECT agent FROM sessions WHERE id = ?", (run.session_id,))
    assert session["agent"] == "gemini"

    first, second = user.decisions(run)
    assert (first["decision"], second["decision"]) == ("block", "allow"), run.diagnosis()
    # prompt_response accumulates the rejected answer; only the new one was judged.
    assert first["message"] == UNCITED and second["message"] == CITED
    assert first["turn_id"] and first["turn_id"] == second["turn_id"]
    assert last_user_text(run.turns[2]) == first["reason"]
    assert "debug" in first["reason"]
    assert run.result["warnings"] == ["Agent execution blocked: " + first["reason"]]
    # Gemini's own output joins the rejected and the accepted answer.
    assert run.result["response"] == UNCITED + CITED


def test_the_debug_skill_and_the_note_reach_the_model(user):
    run = user.gemini({"command": READ_LOG, "uncited": CITED, "cited": CITED, "cite_after": 0})
    text = json.dumps(run.turns[0]["body"])
    assert "Evidence-first debugging" in text, run.diagnosis()
    assert "Evidence before diagnosis (evidence-ledger)" in text


def test_a_failing_commands_output_is_accepted_as_evidence(user):
    run = user.gemini({"command": RUN_SMOKE, "uncited": CITED_NAN, "cited": CITED_NAN, "cite_after": 0})
    [entry] = user.s.evidence(run.session_id)
    assert NAN in entry["output"]
    assert entry["exit_code"] == 1 and entry["failed"] == 1
    [decision] = user.decisions(run)
    assert decision["decision"] == "allow", run.diagnosis()
    [claim] = [c for c in decision["claims"] if c["kind"] == "assertion"]
    assert claim["cited"] == 1
    assert len(run.turns) == 2
    assert run.result["response"] == CITED_NAN


def test_a_model_that_never_cites_is_let_go_after_max_blocks(user):
    run = user.gemini({"command": READ_LOG, "uncited": UNCITED, "cited": CITED, "cite_after": None})
    rows = user.decisions(run)
    assert [d["decision"] for d in rows][:2] == ["block", "block"], run.diagnosis()
    assert len([d for d in rows if d["decision"] == "block"]) == 2
    assert rows[-1]["decision"] != "block" and len(rows) == 3
    assert len({d["turn_id"] for d in rows}) == 1
    # One tool call, the first answer and two retries: the loop ended by itself.
    assert len(run.turns) == 4, run.diagnosis()
    assert len(run.result["warnings"]) == 2
