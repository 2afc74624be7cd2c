"""`ledger check`: one message against a session's evidence, as the Stop guard would judge it."""

import json
import os
import subprocess
import sys

from click.testing import CliRunner

from conftest import REPO
from ledger import store
from ledger.cli import cli

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"


def seed(session="sess-1"):
    conn = store.connect()
    ids = [
        store.record(conn, {"session_id": session, "tool_name": "Bash", "command": "python train.py",
                            "tool_input": {"command": "python train.py"}, "output": "Traceback\n" + OOM,
                            "failed": True, "exit_code": 1}),
        store.record(conn, {"session_id": session, "tool_name": "Bash",
                            "command": 'echo "the loss went nan at step nine"',
                            "tool_input": {"command": 'echo "the loss went nan at step nine"'},
                            "output": "the loss went nan at step nine"}),
        store.record(conn, {"session_id": "other", "tool_name": "Bash", "command": "dmesg",
                            "tool_input": {"command": "dmesg"}, "output": "Out of memory: Killed process 42"}),
    ]
    conn.commit()
    conn.close()
    return ids


def run(args, stdin=None):
    return CliRunner().invoke(cli, ["check"] + args, input=stdin)


def test_json_shape_and_allow_with_a_verified_quote():
    e1, _, _ = seed()
    res = run(["--session", "sess-1", "--json"], "The crash comes from `%s`." % OOM)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["decision"] == "allow"
    claim = data["claims"][0]
    assert {k: claim[k] for k in ("text", "kind", "cited", "evidence")} == {
        "text": "The crash comes from `%s`." % OOM, "kind": "assertion", "cited": True, "evidence": [e1]}


def test_block_without_session_and_exit_1():
    res = run(["--json"], "The job OOMs because the eval loop keeps the graph.")
    assert res.exit_code == 1
    data = json.loads(res.output)
    assert data["decision"] == "block" and data["claims"][0]["cited"] is False


def test_self_authored_quote_blocks_and_is_shown_as_a_near_miss():
    seed()
    res = run(["--session", "sess-1"], "The NaN is caused by `the loss went nan at step nine`.")
    assert res.exit_code == 1
    assert "UNCITED" in res.output and "written by the agent" in res.output and "decision: block" in res.output


def test_an_id_from_another_session_does_not_count():
    _, _, other = seed()
    res = run(["--session", "sess-1", "--json"], "The job was killed because it ran out of memory (%s)." % other)
    assert res.exit_code == 1
    assert json.loads(res.output)["claims"][0]["cited"] is False


def test_ids_of_the_session_count():
    e1, _, _ = seed()
    res = run(["--session", "sess-", "--json"], "The crash is caused by the batch size (%s)." % e1)
    assert res.exit_code == 0, res.output


def test_hypotheses_and_negations_are_allowed():
    msg = "Hypothesis: the OOM comes from the eval loop.\n\nThe hang is not caused by NCCL."
    res = run(["--json"], msg)
    assert res.exit_code == 0
    assert [c["kind"] for c in json.loads(res.output)["claims"]] == ["hypothesis", "negated"]


def test_config_block_kinds_are_honoured(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".evidence-ledger").mkdir(parents=True)
    (proj / ".evidence-ledger" / "config.toml").write_text('block_kinds = ["assertion", "negated"]\n')
    res = run(["--project-dir", str(proj)], "The hang is not caused by NCCL.")
    assert res.exit_code == 1


def test_japanese_message_from_a_file(tmp_path):
    seed()
    f = tmp_path / "final.md"
    f.write_text("学習が落ちた原因はメモリ不足です：`%s`\n\n原因はまだ分かっていない点もあります。" % OOM, encoding="utf-8")
    res = run([str(f), "--session", "sess-1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["lang"] == "ja" and data["claims"][0]["cited"] is True


def test_usage_errors_exit_2(tmp_path):
    assert run([str(tmp_path / "missing.md")]).exit_code == 2
    seed()
    assert run(["--session", "no-such-session"], "x").exit_code == 2
    assert run(["--bogus"], "x").exit_code == 2


def test_real_process_reads_stdin(tmp_path, db_path):
    seed()
    env = dict(os.environ, PYTHONPATH=REPO)
    p = subprocess.run([sys.executable, "-m", "ledger", "check", "-", "--session", "sess-1", "--json"],
                       input="The crash comes from `%s`." % OOM, capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["decision"] == "allow"
