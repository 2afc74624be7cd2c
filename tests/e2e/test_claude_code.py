"""The real Claude Code client, offline, with the guard installed exactly as a user would.

Each test is one user session: a temp HOME and project, `python -m ledger install --scope
project`, then `claude -p` against a fake model that plays a fixed script (fake_anthropic.py).
What is asserted comes from three places that the code under test does not control: the
client's own JSON result, the requests the client sent to the model (a Stop block's reason comes
back as the next request's last user message), and the SQLite ledger read with plain sqlite3.
"""

import json
import os
import re
import subprocess
import sys

import pytest

import harness

pytestmark = pytest.mark.e2e

LOG = "step 410 loss=1.975 grad_norm=1.02\nstep 420 loss=nan grad_norm=inf\n"
LOG_LINE = "step 420 loss=nan grad_norm=inf"
READ_LOG = {"bash": "cat logs/train.log", "text": "Let me look at the training log."}

UNCITED = "The root cause is the learning rate: it is too high, so the loss diverges."
# Both phrased as plain causal assertions, so that what decides is the citation alone.
CITED = ("The loss turns NaN at step 420 because the gradients exploded first: "
         "the log shows `step 420 loss=nan grad_norm=inf`.")
HYPOTHESIS = ("Hypothesis: the learning rate is too high, which would make the loss diverge. "
              "I have not tested this yet; the next probe is a run with half the learning rate.")
FABRICATED = ("The root cause is memory corruption in a CUDA kernel: the log shows "
              "`CUDA error: an illegal memory access was encountered`.")
ENGINEERING = ("I moved the config loading into its own module because the training script had "
               "grown past 800 lines. Nothing else changed, and the public functions keep their names.")

TRAIN_PY = 'batch = {"input_ids": [1, 2, 3]}\nprint("loading batch 0", flush=True)\nlabels = batch["labels"]\n'
CRASH_CITED = ("The job crashes because the batch has no labels: the traceback ends with "
               "`KeyError: 'labels'`, raised where train.py reads the labels.")

JA_PROMPT = "学習の損失が NaN になるのはなぜ？"
JA_UNCITED = "損失が NaN になる原因は学習率が高すぎることです。"
JA_CITED = ("ステップ 420 で損失が NaN になりました。ログに「step 420 loss=nan grad_norm=inf」とあるので、"
            "NaN の前に勾配が発散しています。")

FEEDBACK = "Stop hook feedback:"
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


# Helpers -----------------------------------------------------------------------------------

def ok(run):
    """The client finished by itself, successfully; otherwise fail with everything we know."""
    assert not run.timed_out and run.rc == 0 and run.result, run.diagnosis()
    assert run.result.get("is_error") is False, run.diagnosis()
    assert not [t for t in run.turns if t.get("exhausted")], (
        "the client asked the model for more turns than the script has\n" + run.diagnosis())
    return run.result


def feedback(run, index):
    """The last user message of agent-loop request `index`: where a Stop block's reason lands."""
    return harness.last_user_text(run.turns[index]["body"])


def decisions(session, run):
    """The Stop decisions of this run; an internal error in the guard fails the test here,
    with the error, rather than later as a puzzling "allow"."""
    rows = session.decisions(run.result["session_id"])
    errors = [d["error"] for d in rows if d.get("error")]
    assert not errors, "the Stop guard failed open: %s\n%s" % (errors, run.diagnosis())
    return rows


def installed(session):
    """`ledger install --scope project` in the project folder, as the README says."""
    proc = session.ledger("install", "--scope", "project")
    settings_file = os.path.join(session.project, ".claude", "settings.json")
    assert os.path.exists(settings_file), proc.stdout + proc.stderr
    with open(settings_file, encoding="utf-8") as f:
        hooks = json.load(f).get("hooks", {})
    for event in ("PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop"):
        commands = [h.get("command", "") for group in hooks.get(event, []) for h in group.get("hooks", [])]
        ours = [c for c in commands if c.endswith(os.path.join("ledger", "hooks", "entry.py") + " claude")]
        assert ours and all(os.path.isabs(c.split()[0].strip("'\"")) for c in ours), (event, hooks)
    return session


@pytest.fixture
def user(session):
    """A project with a diverging training log and the guard installed."""
    session.write("logs/train.log", LOG)
    return installed(session)


# The client contract the adapters rely on, proven with a hand-written hook -----------------

DUMP_HOOK = r'''
import json, os, sys
data = sys.stdin.read()
payload = json.loads(data)
with open(os.path.join(os.environ["DUMP_DIR"], payload["hook_event_name"] + ".jsonl"), "a") as f:
    f.write(json.dumps(payload) + "\n")
if sys.argv[1] == "stop" and not payload.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "DUMP-HOOK: quote the output you saw."}))
elif sys.argv[1] == "stop":
    print(json.dumps({"systemMessage": "DUMP-HOOK: allowed on the second try."}))
'''


def test_client_fires_hooks_offline_and_feeds_a_stop_reason_back(session):
    """Independent of the ledger: the payload shapes and the block route of this client version."""
    hook = session.write(".claude/hooks/dump.py", DUMP_HOOK)
    dump = os.path.join(session.root, "dump")
    os.makedirs(dump)
    command = "%s %s" % (sys.executable, hook)

    def group(mode):
        return [{"hooks": [{"type": "command", "command": "%s %s" % (command, mode)}]}]

    session.write(".claude/settings.json", json.dumps({"hooks": {
        "PostToolUse": group("record"), "PostToolUseFailure": group("record"), "Stop": group("stop")}}))
    session.write("logs/train.log", LOG)
    run = session.claude("why does the loss turn NaN?", [
        READ_LOG, {"bash": "echo 'Traceback: boom' >&2; exit 3"}, {"text": UNCITED}, {"text": CITED}],
        env={"DUMP_DIR": dump})
    result = ok(run)
    assert result["result"] == CITED

    def payloads(event):
        path = os.path.join(dump, event + ".jsonl")
        assert os.path.exists(path), "no %s hook ran\n%s" % (event, run.diagnosis())
        with open(path) as f:
            return [json.loads(line) for line in f]

    (post,) = payloads("PostToolUse")
    assert post["tool_name"] == "Bash" and post["tool_input"]["command"] == "cat logs/train.log"
    assert LOG_LINE in post["tool_response"]["stdout"]
    assert post["session_id"] == result["session_id"]
    (failure,) = payloads("PostToolUseFailure")
    assert failure["error"].splitlines()[0] == "Exit code 3" and "Traceback: boom" in failure["error"]
    assert "tool_response" not in failure
    first, second = payloads("Stop")
    assert (first["last_assistant_message"], first["stop_hook_active"]) == (UNCITED, False)
    assert (second["last_assistant_message"], second["stop_hook_active"]) == (CITED, True)
    assert first["prompt_id"] == second["prompt_id"] == post["prompt_id"]
    # The reason reaches the model as the newest user message of the next request.
    assert feedback(run, 3) == FEEDBACK + "\nDUMP-HOOK: quote the output you saw."
    assert len(run.turns) == 4
    # A systemMessage on an allowed stop is shown to the user, not sent to the model.
    assert session.shown_to_user(result["session_id"]) == ["DUMP-HOOK: allowed on the second try."]


# The guard, installed by `ledger install` ---------------------------------------------------

def test_uncited_claim_is_blocked_then_the_cited_answer_is_allowed(user):
    # A bare PATH without this Python's scripts: the installed hooks must not depend on it.
    run = user.claude("why does the loss turn NaN?", [READ_LOG, {"text": UNCITED}, {"text": CITED}],
                      env={"PATH": "/usr/bin:/bin"})
    result = ok(run)
    assert result["result"] == CITED
    assert len(run.turns) == 3, run.diagnosis()

    reason = feedback(run, 2)
    assert reason.startswith(FEEDBACK), run.diagnosis()
    assert "learning rate" in reason  # it names the uncited sentence
    assert "debug" in reason  # and routes the agent to the skill
    assert re.search(r"\bE\d+\b", reason), "the reason suggests no evidence id:\n" + reason
    assert len(reason) < 10000

    rows = decisions(user, run)
    assert [d["decision"] for d in rows] == ["block", "allow"], rows
    blocked, allowed = rows
    assert blocked["message"] == UNCITED and allowed["message"] == CITED
    assert [(c["kind"], c["cited"]) for c in blocked["claims"]] == [("assertion", 0)]
    assert [(c["kind"], c["cited"]) for c in allowed["claims"]] == [("assertion", 1)]

    (entry,) = user.evidence(result["session_id"])
    assert entry["command"] == "cat logs/train.log" and LOG_LINE in entry["output"]
    cited_ids = json.loads(allowed["claims"][0]["evidence"])
    assert "E%d" % entry["num"] in cited_ids


def test_labelled_hypothesis_is_allowed(user):
    run = user.claude("why does the loss turn NaN?", [READ_LOG, {"text": HYPOTHESIS}])
    result = ok(run)
    assert result["result"] == HYPOTHESIS
    assert len(run.turns) == 2, run.diagnosis()  # no block, so no extra request
    (only,) = decisions(user, run)
    assert only["decision"] == "allow"
    assert "hypothesis" in [c["kind"] for c in only["claims"]]
    assert not [c for c in only["claims"] if c["kind"] == "assertion"]


def test_quote_that_no_tool_printed_is_blocked(user):
    run = user.claude("why does the loss turn NaN?", [READ_LOG, {"text": FABRICATED}, {"text": CITED}])
    result = ok(run)
    assert result["result"] == CITED
    assert len(run.turns) == 3, run.diagnosis()
    assert feedback(run, 2).startswith(FEEDBACK)
    rows = decisions(user, run)
    assert [d["decision"] for d in rows] == ["block", "allow"]
    assert [(c["kind"], c["cited"]) for c in rows[0]["claims"]] == [("assertion", 0)]
    assert [(c["kind"], c["cited"]) for c in rows[1]["claims"]] == [("assertion", 1)]


def test_evidence_from_a_command_that_exits_nonzero_is_accepted(user):
    user.write("train.py", TRAIN_PY)
    run = user.claude("why does train.py crash?", [{"bash": "python3 train.py"}, {"text": CRASH_CITED}])
    result = ok(run)
    assert result["result"] == CRASH_CITED
    assert len(run.turns) == 2, run.diagnosis()
    assert run.turns[1]["body"]["messages"][-1]["content"][0].get("is_error") is True

    (entry,) = user.evidence(result["session_id"])
    assert entry["failed"] == 1 and entry["exit_code"] == 1
    assert "KeyError: 'labels'" in entry["output"]
    (only,) = decisions(user, run)
    assert only["decision"] == "allow"
    assert any(c["cited"] and "E%d" % entry["num"] in json.loads(c["evidence"]) for c in only["claims"])


def test_japanese_session_is_blocked_in_japanese_then_allowed(user):
    run = user.claude(JA_PROMPT, [READ_LOG, {"text": JA_UNCITED}, {"text": JA_CITED}])
    result = ok(run)
    assert result["result"] == JA_CITED
    assert len(run.turns) == 3, run.diagnosis()
    reason = feedback(run, 2)[len(FEEDBACK):]
    assert len(JAPANESE.findall(reason)) > 20, "the reason is not in Japanese:\n" + reason
    assert "debug" in reason
    rows = decisions(user, run)
    assert [d["decision"] for d in rows] == ["block", "allow"]
    assert rows[0]["lang"] == "ja"


def test_model_that_never_cites_is_let_go_after_max_blocks(user):
    # Default max_blocks is 2: two blocks, then the third stop goes through with a warning.
    run = user.claude("why does the loss turn NaN?", [READ_LOG] + [{"text": UNCITED}] * 3)
    result = ok(run)
    assert result["result"] == UNCITED
    assert len(run.turns) == 4, run.diagnosis()
    assert feedback(run, 2).startswith(FEEDBACK) and feedback(run, 3).startswith(FEEDBACK)
    rows = decisions(user, run)
    assert [d["decision"] for d in rows][:2] == ["block", "block"]
    assert len(rows) == 3 and rows[2]["decision"] != "block"
    assert rows[2]["system_message"], "the user was not told that uncited claims remain"
    # ... and the client did show it to the user.
    assert user.shown_to_user(result["session_id"]) == [rows[2]["system_message"]]


def test_ordinary_engineering_text_with_because_is_not_blocked(user):
    run = user.claude("tidy up the config loading", [{"text": ENGINEERING}])
    result = ok(run)
    assert result["result"] == ENGINEERING
    assert len(run.turns) == 1, run.diagnosis()
    (only,) = decisions(user, run)
    assert only["decision"] == "allow"
    assert not [c for c in only["claims"] if c["kind"] == "assertion" and not c["cited"]]


def test_monitor_mode_records_the_verdict_and_never_blocks(user):
    run = user.claude("why does the loss turn NaN?", [READ_LOG, {"text": UNCITED}],
                      env={"LEDGER_MODE": "monitor"})
    result = ok(run)
    assert result["result"] == UNCITED
    assert len(run.turns) == 2, run.diagnosis()
    (only,) = decisions(user, run)
    assert (only["decision"], only["mode"]) == ("warn", "monitor")
    assert "learning rate" in only["reason"]  # what it would have told the agent


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def skill_listing(body):
    """{name: description} from the skill list the client put in front of the model."""
    listed = {}
    for text in strings(body):
        if "skills are available" in text:
            for m in re.finditer(r"^- ([\w:.-]+): (.+)$", text, re.M):
                listed.setdefault(m.group(1), m.group(2))
    return listed


def skill_file(path):
    """(name, description, body) of a SKILL.md; the description may be a folded YAML block."""
    with open(path, encoding="utf-8") as f:
        _, head, body = f.read().split("---", 2)
    fields, key = {}, None
    for line in head.strip().splitlines():
        if line[:1].isspace() and key:
            fields[key] += " " + line.strip()
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.strip().lstrip(">|-").strip()
    return fields.get("name"), " ".join(fields.get("description", "").split()), body


def test_debug_skill_is_listed_to_the_model_and_loads(user):
    name, description, body = skill_file(os.path.join(user.project, ".claude", "skills", "debug", "SKILL.md"))
    assert name == "debug" and description
    run = user.claude("debug this: why does the loss turn NaN?", [
        {"tool": "Skill", "input": {"skill": "debug"}},
        {"text": "Following the debug skill, I will probe first; the cause is not known yet."}])
    ok(run)
    listed = skill_listing(run.turns[0]["body"])
    assert "debug" in listed, "skills the model was shown: %s" % sorted(listed)
    assert listed["debug"].startswith(description[:40]), (listed["debug"], description)
    # Calling the Skill tool loaded the installed file's body into the conversation.
    line = next(l.strip() for l in body.splitlines() if len(l.strip()) > 30 and not l.startswith("<!--"))
    shown = "\n".join(strings(run.turns[1]["body"]["messages"]))
    assert line in shown, "the skill body did not reach the model\n" + run.diagnosis()


def ledger_has(session, command):
    proc = session.ledger(command, "--help", check=False)
    return proc.returncode == 0


def test_ledger_probe_finding_quoted_verbatim_is_allowed(user):
    if not ledger_has(user, "probe"):
        pytest.skip("`ledger probe` is not available yet")
    run = user.claude("why does the loss turn NaN?", [
        {"bash": "ledger probe --log logs/train.log"},
        # The probe prints each finding's source line indented by four spaces: quote that one.
        {"quote": r"^    .*loss=nan", "text": "The loss turns NaN at step 420: the probe quotes "
                                               "`{quote}`, so the gradients blew up before the NaN."}])
    result = ok(run)
    quoted = run.turns[1].get("reply")
    assert "no line matched" not in json.dumps(quoted), "the probe printed nothing about nan\n" + run.diagnosis()
    assert len(run.turns) == 2, run.diagnosis()
    (only,) = decisions(user, run)
    assert only["decision"] == "allow", only
    entries = user.evidence(result["session_id"])
    assert any("ledger probe" in (e["command"] or "") for e in entries)


def test_show_and_check_audit_the_session_as_the_agent_saw_it(user):
    run = user.claude("why does the loss turn NaN?", [READ_LOG, {"text": UNCITED}, {"text": CITED}])
    result = ok(run)
    sid = result["session_id"]
    shown = json.loads(user.ledger("show", sid, "--json").stdout)
    timeline = [(item["id"][0], item.get("decision")) for item in shown["timeline"]]
    assert timeline == [("E", None), ("D", "block"), ("D", "allow")], timeline
    entry, blocked, allowed = shown["timeline"]
    assert entry["command"] == "cat logs/train.log" and LOG_LINE in entry["output"]
    # The person auditing reads exactly the reason the agent was given.
    assert FEEDBACK + "\n" + blocked["reason"] == feedback(run, 2)
    assert (blocked["message"], allowed["message"]) == (UNCITED, CITED)

    # `ledger check` on the same session agrees with what the hook decided.
    def check(text):
        proc = subprocess.run([sys.executable, "-m", "ledger", "check", "--session", sid, "--json", "-"],
                              input=text, capture_output=True, text=True, timeout=60,
                              cwd=user.project, env=dict(os.environ, **user.env))
        return proc.returncode, json.loads(proc.stdout)["decision"]

    assert check(UNCITED) == (1, "block")
    assert check(CITED) == (0, "allow")
