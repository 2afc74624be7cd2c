"""The Stop guard as a real process: payload on stdin, verdict on stdout, judgement in the ledger."""

import json
import os

import pytest

from hookrun import fixture_path, rows, run_hook

SESSION = "sess-stop-1"
LOG = "step 410 loss=1.975 grad_norm=1.02\nstep 420 loss=nan grad_norm=inf"


def tool(command, stdout, session=SESSION, prompt="p1", **extra):
    payload = {
        "session_id": session, "hook_event_name": "PostToolUse", "prompt_id": prompt,
        "tool_name": "Bash", "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }
    payload.update(extra)
    result = run_hook(payload)
    assert result.returncode == 0 and result.stdout == b""
    return result


def failure(command, error, session=SESSION, prompt="p1"):
    result = run_hook({
        "session_id": session, "hook_event_name": "PostToolUseFailure", "prompt_id": prompt,
        "tool_name": "Bash", "tool_input": {"command": command}, "error": error,
    })
    assert result.returncode == 0


def stop(message, session=SESSION, prompt="p1", env=None, **extra):
    payload = {"session_id": session, "hook_event_name": "Stop", "prompt_id": prompt,
               "stop_hook_active": False, "last_assistant_message": message}
    payload.update(extra)
    result = run_hook(payload, env=env)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode().strip()
    return (json.loads(out) if out else None), result


def test_uncited_root_cause_is_blocked_with_a_useful_reason(db_path):
    tool("cat logs/train.log", LOG)
    verdict, _ = stop("The root cause is the learning rate: it is too high, so the loss diverges.")
    assert verdict["decision"] == "block"
    reason = verdict["reason"]
    assert "learning rate" in reason          # names the claim
    assert "debug" in reason                  # routes to the skill
    assert "E1" in reason                     # points at evidence it could cite
    assert len(reason) < 10000


def test_quoting_recorded_output_is_allowed(db_path):
    tool("cat logs/train.log", LOG)
    verdict, _ = stop(
        "The loss turns NaN at step 420: the log shows `step 420 loss=nan grad_norm=inf`, "
        "so the gradients exploded before the NaN.")
    assert verdict is None
    decisions = rows(db_path, "SELECT * FROM decisions")
    assert [d["decision"] for d in decisions] == ["allow"]
    claims = rows(db_path, "SELECT * FROM claims")
    assert claims and all(c["cited"] for c in claims if c["kind"] == "assertion")
    assert "E1" in claims[0]["evidence"]


def test_citing_an_evidence_id_is_allowed(db_path):
    tool("cat logs/train.log", LOG)
    verdict, _ = stop("The loss diverged because the gradients exploded at step 420 (E1).")
    assert verdict is None


def test_an_id_from_another_session_does_not_count(db_path):
    tool("cat logs/train.log", LOG, session="other-session")
    verdict, _ = stop("The loss diverged because the gradients exploded at step 420 (E1).")
    assert verdict["decision"] == "block"


def test_a_quote_no_tool_printed_is_blocked(db_path):
    tool("cat logs/train.log", LOG)
    verdict, _ = stop("The crash is caused by `RuntimeError: CUDA out of memory` in the data loader.")
    assert verdict["decision"] == "block"


def test_echoed_text_is_not_evidence(db_path):
    tool('echo "RuntimeError: CUDA out of memory"', "RuntimeError: CUDA out of memory")
    verdict, _ = stop("The job crashed because of `RuntimeError: CUDA out of memory` in step 3.")
    assert verdict["decision"] == "block"


def test_output_of_a_failing_command_is_evidence(db_path):
    failure("python train.py --steps 1",
            "Exit code 1\nTraceback (most recent call last):\nKeyError: 'labels'")
    verdict, _ = stop("The run fails because the batch has no labels column: `KeyError: 'labels'`.")
    assert verdict is None
    entry = rows(db_path)[0]
    assert entry["failed"] == 1 and entry["exit_code"] == 1


def test_labelled_hypothesis_is_allowed(db_path):
    verdict, _ = stop("Hypothesis: the learning rate may be too high, which could make the loss diverge. "
                      "Next I will rerun with lr=0 to check.")
    assert verdict is None


def test_plain_engineering_text_with_because_is_not_blocked(db_path):
    verdict, _ = stop("I renamed the helper to load_config because the old name was unclear, "
                      "and updated the two call sites.")
    assert verdict is None
    assert rows(db_path, "SELECT * FROM claims") == []


def test_japanese_claim_gets_a_japanese_reason(db_path):
    verdict, _ = stop("損失が NaN になる原因は学習率が高すぎることです。")
    assert verdict["decision"] == "block"
    assert "証拠" in verdict["reason"] and "debug" in verdict["reason"]


def test_blocks_are_capped_per_turn_then_the_user_is_told(db_path):
    message = "The root cause is the learning rate: it is too high, so the loss diverges."
    first, _ = stop(message, stop_hook_active=False)
    second, _ = stop(message, stop_hook_active=True)
    third, _ = stop(message, stop_hook_active=True)
    assert first["decision"] == "block" and second["decision"] == "block"
    assert "decision" not in third and "systemMessage" in third
    # A new user turn starts a new count.
    fourth, _ = stop(message, prompt="p2")
    assert fourth["decision"] == "block"
    counts = [d["block_count"] for d in rows(db_path, "SELECT * FROM decisions ORDER BY num")]
    assert counts == [1, 2, 2, 1]


def test_cap_without_turn_ids_counts_consecutive_blocks(db_path):
    message = "The root cause is the learning rate: it is too high, so the loss diverges."
    verdicts = [stop(message, prompt=None)[0] for _ in range(3)]
    assert [v.get("decision") for v in verdicts] == ["block", "block", None]


def test_max_blocks_from_the_environment(db_path):
    message = "The root cause is the learning rate: it is too high, so the loss diverges."
    verdict, _ = stop(message, env={"LEDGER_MAX_BLOCKS": "0"})
    assert "decision" not in verdict and "systemMessage" in verdict


def test_monitor_mode_records_but_never_blocks(db_path):
    verdict, _ = stop("The root cause is the learning rate: it is too high, so the loss diverges.",
                      env={"LEDGER_MODE": "monitor"})
    assert verdict is None or "decision" not in verdict
    decision = rows(db_path, "SELECT * FROM decisions")[0]
    assert decision["mode"] == "monitor" and decision["decision"] == "warn"
    assert "learning rate" in decision["reason"]


def test_disabled_guard_does_nothing(db_path):
    verdict, result = stop("The root cause is the learning rate, so the loss diverges.",
                           env={"LEDGER_DISABLE": "1"})
    assert verdict is None and not os.path.exists(db_path)


def test_broken_config_allows_and_tells_the_user(db_path, tmp_path):
    cfg = tmp_path / "config" / "evidence-ledger" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("max_blocks = -1\n")
    verdict, result = stop("The root cause is the learning rate, so the loss diverges.")
    assert "decision" not in verdict
    assert "broken config" in verdict["systemMessage"]
    assert b"config" in result.stderr


def test_project_config_can_make_negated_claims_block(db_path, tmp_path):
    project = tmp_path / "proj"
    (project / ".evidence-ledger").mkdir(parents=True)
    (project / ".evidence-ledger" / "config.toml").write_text('block_kinds = ["assertion", "negated"]\n')
    message = "The crash is not caused by the data loader."
    default, _ = stop(message, cwd=str(tmp_path / "elsewhere"), prompt="a")
    os.makedirs(project / "sub", exist_ok=True)
    strict, _ = stop(message, cwd=str(project / "sub"), prompt="b")
    assert default is None or default.get("decision") != "block"
    assert strict["decision"] == "block"


def test_the_hook_runs_without_site_and_a_rule_that_needs_regex_still_works(db_path, tmp_path):
    """`ledger install` writes `python -S .../entry.py` (no site: its .pth files cost every
    tool call), so site-packages is not on sys.path in a hook run from a checkout. A project rule
    that needs the `regex` module (\\p{...}) must still change the decision: the detector loads
    site the first time it needs `regex` and cannot find it."""
    import subprocess
    import sys

    import ledger.hooks
    from hookrun import hook_env

    assert ledger.hooks.command("claude")[1] == "-S"
    project = tmp_path / "proj"
    (project / ".evidence-ledger" / "rules").mkdir(parents=True)
    (project / ".evidence-ledger" / "rules" / "team.toml").write_text(
        "[pack]\nname = \"en\"\n[cues]\ncause_verb = ['\\bzap\\p{L}*']\n", encoding="utf-8")
    message = "The sync job zapped the checkpoint and resume failed."
    default, _ = stop(message, cwd=str(tmp_path / "elsewhere"), prompt="a")
    assert default is None or default.get("decision") != "block"
    verdict, result = stop(message, cwd=str(project), prompt="b")
    assert verdict["decision"] == "block", result.stderr
    assert result.stderr == b""
    # And it went through the fallback: from this checkout, `regex` is reachable only through
    # site (it sits in the virtualenv's site-packages, not on PYTHONPATH).
    bare = subprocess.run([sys.executable, "-S", "-c", "import regex"], env=hook_env(), capture_output=True)
    assert bare.returncode != 0


def test_transcript_fallback_when_the_payload_has_no_message(db_path, tmp_path):
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "why is the loss NaN?"}, "uuid": "u1"},
        {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "The root cause is the learning rate: "}]}},
        {"type": "assistant", "uuid": "a2", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "it is too high, so the loss diverges."}]}},
        {"type": "system", "subtype": "stop_hook_summary", "uuid": "s1"},
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    payload = {"session_id": SESSION, "hook_event_name": "Stop", "stop_hook_active": False,
               "transcript_path": str(transcript)}
    result = run_hook(payload)
    verdict = json.loads(result.stdout)
    assert verdict["decision"] == "block"
    assert "learning rate" in verdict["reason"]


def test_captured_session_blocks_then_allows_the_hypothesis(db_path):
    base = fixture_path("cc-2.1.328", "hook-payloads")
    if not os.path.isdir(base):
        pytest.skip("../shared/fixtures is not present")
    for name in ("PostToolUse.jsonl", "PostToolUseFailure.jsonl"):
        with open(os.path.join(base, name)) as f:
            for line in f:
                assert run_hook(line.encode()).returncode == 0
    with open(os.path.join(base, "Stop.jsonl")) as f:
        stops = [line.encode() for line in f if line.strip()]
    first = run_hook(stops[0])
    second = run_hook(stops[1])
    assert json.loads(first.stdout)["decision"] == "block"
    assert second.stdout.strip() == b""
    decisions = rows(db_path, "SELECT decision, lang FROM decisions ORDER BY num")
    assert decisions == [{"decision": "block", "lang": "ja"}, {"decision": "allow", "lang": "ja"}]


def test_show_lists_the_judgement_beside_the_evidence(db_path):
    from click.testing import CliRunner

    from ledger.cli import cli

    tool("cat logs/train.log", LOG)
    stop("The root cause is the learning rate: it is too high, so the loss diverges.")
    result = CliRunner().invoke(cli, ["show", SESSION, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    text = json.dumps(data)
    assert "E1" in text and "block" in text and "learning rate" in text
