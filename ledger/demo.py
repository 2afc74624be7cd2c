"""`ledger demo`: a recorded debugging session replayed through the real hook processes.

Every step is the same subprocess an agent would start, with the same JSON on stdin, against
a temporary ledger; what is printed is what the hooks printed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import click

from ledger import hooks

SESSION = "demo-0f3c2a"
PROMPT_ID = "demo-prompt-1"

LOG = """\
step 400 loss=2.013 grad_norm=0.98 lr=3.0e-04
step 410 loss=1.975 grad_norm=1.02 lr=3.0e-04
step 415 loss=7.412 grad_norm=184.6 lr=3.0e-04
step 420 loss=nan grad_norm=inf lr=3.0e-04
step 430 loss=nan grad_norm=nan lr=3.0e-04"""

SMOKE_ERROR = """\
Exit code 1
Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss = criterion(logits.float(), labels)
FloatingPointError: non-finite loss at step 3 with --fp16 (loss scale 65536.0)"""

UNCITED = (
    "The root cause is the learning rate: 3e-4 is too high for this model, so the loss diverges. "
    "I lowered it to 1e-4 in config.yaml."
)

CITED = (
    "Findings: the log shows the grad norm jumping before the NaN: `step 415 loss=7.412 grad_norm=184.6` "
    "and then `step 420 loss=nan grad_norm=inf`. The fp16 smoke run fails the same way "
    "(`FloatingPointError: non-finite loss at step 3 with --fp16`).\n\n"
    "Hypothesis: fp16 overflow in the loss, not the learning rate; the next control is the same "
    "smoke run with --fp16 off.\n\n"
    "Verdict: the divergence comes from non-finite values under fp16, as the smoke run shows "
    "(E2). The learning rate is not yet ruled in or out."
)


def payload(event, **fields):
    base = {
        "session_id": SESSION,
        "transcript_path": "/tmp/demo/%s.jsonl" % SESSION,
        "cwd": "/home/you/train-run",
        "prompt_id": PROMPT_ID,
        "hook_event_name": event,
    }
    base.update(fields)
    return base


def steps():
    yield "The agent reads the training log (PostToolUse)", payload(
        "PostToolUse", tool_name="Bash", tool_use_id="toolu_demo_1",
        tool_input={"command": "tail -n 5 logs/train.log"},
        tool_response={"stdout": LOG, "stderr": "", "interrupted": False, "isImage": False},
        duration_ms=31)
    yield "It runs a smoke test that fails (PostToolUseFailure)", payload(
        "PostToolUseFailure", tool_name="Bash", tool_use_id="toolu_demo_2",
        tool_input={"command": "python train.py --steps 3 --fp16"},
        error=SMOKE_ERROR, is_interrupt=False, duration_ms=5120)
    yield "It answers with a cause it never checked (Stop)", payload(
        "Stop", stop_hook_active=False, last_assistant_message=UNCITED)
    yield "It answers again, citing what the tools printed (Stop)", payload(
        "Stop", stop_hook_active=True, last_assistant_message=CITED)


def hook(data, env):
    return subprocess.run(
        hooks.command("claude"), input=json.dumps(data).encode(),
        env=env, capture_output=True, timeout=60,
    )


def run(keep=False):
    tmp = tempfile.mkdtemp(prefix="ledger-demo-")
    db = os.path.join(tmp, "ledger.db")
    env = dict(os.environ, LEDGER_DB=db)
    env.pop("LEDGER_DISABLE", None)
    env.pop("LEDGER_MODE", None)
    try:
        for number, (title, data) in enumerate(steps(), 1):
            click.secho("\n[%d] %s" % (number, title), bold=True)
            if data["hook_event_name"] == "Stop":
                click.echo(_indent("agent: " + data["last_assistant_message"]))
            else:
                click.echo(_indent("$ " + data["tool_input"]["command"]))
            result = hook(data, env)
            if result.returncode != 0:
                raise click.ClickException("the hook exited %d: %s" % (
                    result.returncode, result.stderr.decode(errors="replace")))
            out = result.stdout.decode().strip()
            if not out:
                verdict = "recorded" if data["hook_event_name"] != "Stop" else "allowed: the stop goes ahead"
                click.secho(_indent("-> " + verdict), fg="green")
                continue
            decision = json.loads(out)
            if decision.get("decision") == "block":
                click.secho(_indent("-> BLOCKED. The reason the agent reads:"), fg="red", bold=True)
                click.echo(_indent(decision["reason"], 7))
            else:
                click.secho(_indent("-> allowed, with a note for the user: %s" % decision.get("systemMessage")), fg="yellow")

        click.secho("\n[5] What a person auditing the session sees (ledger show %s)" % SESSION, bold=True)
        show = subprocess.run([sys.executable, "-m", "ledger", "show", SESSION], env=env,
                              capture_output=True, timeout=60)
        click.echo(show.stdout.decode(errors="replace") or show.stderr.decode(errors="replace"))
    finally:
        if keep:
            click.echo("The demo ledger is kept at %s (try: LEDGER_DB=%s ledger show)" % (db, db))
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _indent(text, width=4):
    pad = " " * width
    return "\n".join(pad + line for line in text.splitlines())
