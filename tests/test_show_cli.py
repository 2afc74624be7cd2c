"""`ledger show`, `ledger search`, `ledger path`, through click's CliRunner on temp ledgers."""

import json
import os
import time

import pytest
from click.testing import CliRunner

from hookrun import payload, run_hook
from ledger import store
from ledger.cli import cli

SESSION = "4277ef59-8c37-4d13-9a6b-288c9ea54cc2"


def invoke(*args, **kwargs):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kwargs)


@pytest.fixture
def ledger(db_path):
    """Two sessions recorded through the real hook, plus one Stop decision with two claims."""
    run_hook(payload("Bash", {"command": "cat logs/train.log"},
                     {"stdout": "step 420 loss=nan grad_norm=inf", "stderr": ""},
                     session_id=SESSION, cwd="/home/dev/proj"))
    run_hook(payload("Bash", {"command": "python train.py --resume " + "x" * 300},
                     event="PostToolUseFailure", error="Exit code 1\nKeyError: labels",
                     session_id=SESSION, cwd="/home/dev/proj"))
    conn = store.connect()
    time.sleep(0.01)
    store.record_decision(conn, {"session_id": SESSION, "agent": "claude", "decision": "block",
                                 "event": "Stop", "reason": "Cite the output that shows it.",
                                 "message": "The crash comes from the missing labels key."},
                          [{"text": "The crash comes from the missing labels key.",
                            "kind": "assertion", "cited": False, "evidence": []},
                           {"text": "KeyError: labels shows the key is absent",
                            "kind": "assertion", "cited": True, "evidence": ["E2"]}])
    time.sleep(0.01)
    store.record(conn, {"session_id": "newer-session", "agent": "codex", "tool_name": "shell",
                        "command": "nvidia-smi", "output": "CUDA out of memory", "cwd": "/srv/other"})
    conn.close()
    return db_path


def test_sessions_newest_first(ledger):
    result = invoke("show")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["SESSION", "PROJECT", "AGENT", "STARTED", "EVIDENCE", "FAILED",
                                "CLAIMS", "BLOCKS"]
    assert lines[1].startswith("newer-session")
    assert lines[2].startswith(SESSION)
    cells = lines[2].split()
    assert cells[1] == "/home/dev/proj" and cells[2] == "claude"
    assert cells[-4:] == ["2", "1", "2", "1"]  # evidence, failed, claims, blocks
    # Columns line up: each header starts where its cells start.
    at = lines[0].index("AGENT")
    assert lines[1][at:].startswith("codex") and lines[2][at:].startswith("claude")
    assert "\x1b[" not in result.output  # not a TTY: no colour


def test_sessions_json(ledger):
    data = json.loads(invoke("show", "--json").output)
    assert [s["id"] for s in data] == ["newer-session", SESSION]
    assert (data[1]["evidence"], data[1]["failed"], data[1]["claims"], data[1]["blocks"]) == (2, 1, 2, 1)


def test_session_timeline_with_prefix_and_decisions(ledger):
    result = invoke("show", SESSION[:8])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(SESSION)
    assert lines[1].split()[:3] == ["ID", "TIME", "TOOL"]
    ids = [line.split()[0] for line in lines[2:] if not line.startswith(" ")]
    assert ids == ["E1", "E2", "D1"]  # interleaved by time
    e1 = next(line for line in lines if line.startswith("E1"))
    assert "cat logs/train.log" in e1 and "exit 0" in e1 and "31 B" in e1
    e2 = next(line for line in lines if line.startswith("E2"))
    assert "exit 1" in e2
    assert "…" in e2 and "x" * 300 not in e2  # long command cut to the terminal
    d1 = next(line for line in lines if line.startswith("D1"))
    assert "block" in d1 and "2 claims" in d1
    claims = [line for line in lines if line.startswith("      ")]
    assert "uncited" in claims[0] and "missing labels key" in claims[0]
    assert "cited" in claims[1] and "-> E2" in claims[1]


def test_session_timeline_json(ledger):
    data = json.loads(invoke("show", SESSION, "--json").output)
    assert data["session"]["id"] == SESSION
    kinds = [(item["type"], item["id"]) for item in data["timeline"]]
    assert kinds == [("evidence", "E1"), ("evidence", "E2"), ("decision", "D1")]
    assert data["timeline"][1]["failed"] is True and data["timeline"][1]["exit_code"] == 1
    assert data["timeline"][0]["tool_input"] == {"command": "cat logs/train.log"}
    assert data["timeline"][2]["claims"][1]["evidence"] == ["E2"]


def test_one_entry_in_full(ledger):
    result = invoke("show", "E2")
    assert result.exit_code == 0
    assert result.output.startswith("E2\n")
    assert "Exit code 1\nKeyError: labels" in result.output
    assert "x" * 300 in result.output  # nothing cut in the full view
    assert "status:      exit 1" in result.output
    assert invoke("show", "e2").output == result.output


def test_one_entry_json(ledger):
    data = json.loads(invoke("show", "E1", "--json").output)
    assert data["id"] == "E1"
    assert data["output"] == "step 420 loss=nan grad_norm=inf"
    assert data["failed"] is False and data["session_id"] == SESSION


def test_one_decision(ledger):
    result = invoke("show", "D1")
    assert result.exit_code == 0
    assert result.output.startswith("D1  block")
    assert "Cite the output that shows it." in result.output
    assert "assertion uncited: The crash comes from the missing labels key." in result.output
    assert "assertion cited -> E2: KeyError: labels" in result.output
    data = json.loads(invoke("show", "D1", "--json").output)
    assert data["decision"] == "block" and len(data["claims"]) == 2
    assert data["claims"][0]["cited"] is False


@pytest.mark.parametrize("ident, says", [("E99", "no evidence entry E99"),
                                         ("D7", "no decision D7"),
                                         ("nosuch", "no session")])
def test_unknown_ids(ledger, ident, says):
    result = CliRunner().invoke(cli, ["show", ident])
    assert result.exit_code == 1
    assert says in result.output
    assert "Traceback" not in result.output


def test_ambiguous_prefix(db_path):
    conn = store.connect()
    store.record(conn, {"session_id": "abc-1", "output": "1"})
    store.record(conn, {"session_id": "abc-2", "output": "2"})
    conn.close()
    result = CliRunner().invoke(cli, ["show", "abc"])
    assert result.exit_code == 1
    assert "matches 2 sessions" in result.output


def test_missing_ledger_is_a_clear_error(db_path):
    # Listing sessions on a fresh install is not an error: it says there are none yet.
    listing = CliRunner().invoke(cli, ["show"])
    assert listing.exit_code == 0 and "No sessions recorded yet" in listing.output
    assert CliRunner().invoke(cli, ["show", "--json"]).output.strip() == "[]"
    for args in (["show", "E1"], ["search", "nan"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1
        assert "no ledger at " + db_path in result.output
        assert "Traceback" not in result.output
    assert not os.path.exists(db_path)  # reading never creates it


def test_empty_ledger(db_path):
    store.connect().close()
    result = invoke("show")
    assert result.exit_code == 0
    assert "No sessions recorded yet" in result.output
    assert json.loads(invoke("show", "--json").output) == []


def test_search(ledger):
    result = invoke("search", "loss=nan")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["ID", "SESSION", "TOOL", "COMMAND", "/", "TARGET", "MATCH"]
    assert lines[1].startswith("E1") and "loss=nan" in lines[1]
    assert len(lines) == 2


def test_search_session_limit_json(ledger):
    data = json.loads(invoke("search", "memory labels", "--json").output)
    assert sorted(d["id"] for d in data) == ["E2", "E3"]
    data = json.loads(invoke("search", "memory labels", "--session", SESSION[:6], "--json").output)
    assert [d["id"] for d in data] == ["E2"]
    assert len(json.loads(invoke("search", "memory labels", "--limit", "1", "--json").output)) == 1


def test_search_no_match_exits_1(ledger):
    result = CliRunner().invoke(cli, ["search", "zebra"])
    assert result.exit_code == 1
    assert "No matches" in result.output


def test_colour_only_on_a_tty(ledger):
    plain = CliRunner().invoke(cli, ["show", SESSION], color=False).output
    coloured = CliRunner().invoke(cli, ["show", SESSION], color=True).output
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_path(db_path, monkeypatch, tmp_path):
    assert invoke("path").output == db_path + "\n"
    monkeypatch.delenv("LEDGER_DB")
    assert invoke("path").output.strip() == str(tmp_path / "data" / "evidence-ledger" / "ledger.db")


@pytest.mark.parametrize("command", ["show", "search", "path"])
def test_help_teaches_with_examples(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.output
    assert "ledger %s" % command in result.output
