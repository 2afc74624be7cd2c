"""`ledger install --agent codex|gemini` without the real clients (tests/e2e/ has those).

Codex's trust step talks JSON-RPC to `codex app-server`; here a small stand-in speaks the same
three methods (initialize, hooks/list, config/batchWrite) and keeps trust in a JSON file, so
the installer's logic is tested on every machine. Its keys follow the observed format
`<file>:<event_snake>:<group>:<handler>`.
"""

import json
import os
import stat
import sys

import pytest
from click.testing import CliRunner

from ledger.cli import cli
from ledger.installers import codex, gemini

FAKE_APP_SERVER = r'''#!PYTHON
import hashlib, json, os, re, sys
home = os.environ["CODEX_HOME"]
state_file = os.path.join(home, "fake-trust.json")
def snake(e): return re.sub(r"(?<!^)([A-Z])", r"_\1", e).lower()
def state():
    return json.load(open(state_file)) if os.path.exists(state_file) else {}
def hooks(cwd):
    out = []
    for path in (os.path.join(home, "hooks.json"), os.path.join(cwd, ".codex", "hooks.json")):
        if not os.path.exists(path):
            continue
        for event, groups in json.load(open(path)).get("hooks", {}).items():
            for gi, g in enumerate(groups):
                for hi, h in enumerate(g["hooks"]):
                    key = "%s:%s:%d:%d" % (path, snake(event), gi, hi)
                    digest = "sha256:" + hashlib.sha256(json.dumps([event, g.get("matcher"), h], sort_keys=True).encode()).hexdigest()
                    trusted = state().get(key) == digest
                    out.append({"key": key, "eventName": event[0].lower() + event[1:], "command": h["command"], "sourcePath": path,
                                "currentHash": digest, "enabled": True, "trustStatus": "trusted" if trusted else "untrusted"})
    return out
assert sys.argv[1] == "app-server" and "plugins" in sys.argv
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method, params = msg["method"], msg.get("params") or {}
    if method == "initialize":
        result = {"userAgent": "fake"}
    elif method == "hooks/list":
        result = {"data": [{"cwd": params["cwds"][0], "hooks": hooks(params["cwds"][0])}]}
    elif method == "config/batchWrite":
        s = state()
        for edit in params["edits"]:
            if edit["keyPath"] == "hooks.state":
                s.update({k: v["trusted_hash"] for k, v in edit["value"].items()})
            else:
                s.pop(json.loads(edit["keyPath"][len("hooks.state."):]), None)
        json.dump(s, open(state_file, "w"))
        result = {"status": "ok"}
    print(json.dumps({"id": msg["id"], "result": result}), flush=True)
'''


@pytest.fixture
def codex_home(tmp_path, monkeypatch):
    home = tmp_path / "home" / ".codex"
    home.mkdir(parents=True)
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


@pytest.fixture
def fake_codex(tmp_path, monkeypatch):
    path = tmp_path / "bin" / "codex"
    path.parent.mkdir()
    path.write_text(FAKE_APP_SERVER.replace("PYTHON", sys.executable, 1))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("LEDGER_CODEX_BIN", str(path))
    return path


def invoke(*args):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result


# Codex ---------------------------------------------------------------------------------------

def test_codex_install_merges_and_registers_trust(tmp_path, codex_home, fake_codex):
    hooks_file = codex_home / "hooks.json"
    theirs = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    hooks_file.write_text(json.dumps(theirs))
    messages = codex.install("user", str(tmp_path), "/venv/bin/ledger-hook codex")
    assert any("trusted 4 hooks" in m for m in messages), messages
    data = json.loads(hooks_file.read_text())
    assert data["hooks"]["Stop"][0] == theirs["hooks"]["Stop"][0]
    assert data["hooks"]["PostToolUse"] == [{"matcher": "*", "hooks": [
        {"type": "command", "command": "/venv/bin/ledger-hook codex", "timeout": 30}]}]
    trust = json.loads((codex_home / "fake-trust.json").read_text())
    # Only our handlers were trusted: their notify-send hook is the user's to review.
    assert sorted(trust) == sorted("%s:%s" % (hooks_file, k) for k in (
        "post_tool_use:0:0", "pre_tool_use:0:0", "stop:1:0", "subagent_stop:0:0"))
    assert codex.install("user", str(tmp_path), "/venv/bin/ledger-hook codex")[-1] == "codex: 4 hooks already trusted"


def test_codex_doctor_reports_untrusted_hooks_as_an_error(tmp_path, codex_home, fake_codex):
    codex.install("user", str(tmp_path), "/venv/bin/ledger-hook codex")
    (codex_home / "fake-trust.json").write_text("{}")  # e.g. the hook command changed since
    checks = codex.doctor(str(tmp_path))
    [bad] = [m for level, m in checks if level == "error" and "not trusted" in m]
    assert "skips untrusted hooks silently" in bad
    assert "postToolUse (untrusted)" in bad


def test_codex_install_without_codex_says_the_guard_is_not_active(tmp_path, codex_home, monkeypatch):
    monkeypatch.setenv("LEDGER_CODEX_BIN", str(tmp_path / "nope"))
    monkeypatch.setenv("PATH", str(tmp_path))
    messages = codex.install("user", str(tmp_path), "/venv/bin/ledger-hook codex")
    assert "NOT active" in messages[-1]
    checks = codex.doctor(str(tmp_path))
    assert any(level == "error" and "no trust entry for 4" in m for level, m in checks), checks


def test_codex_project_scope_in_an_untrusted_project_is_explained(tmp_path, codex_home, fake_codex):
    project = tmp_path / "repo"
    project.mkdir()
    # Codex ignores a project's .codex/ until the project (or a parent) is trusted.
    (codex_home / "config.toml").write_text('[projects."/elsewhere"]\ntrust_level = "trusted"\n')
    assert not codex.project_trusted(str(project))
    (codex_home / "config.toml").write_text('[projects."%s"]\ntrust_level = "trusted"\n' % tmp_path)
    assert codex.project_trusted(str(project))  # a trusted parent covers it
    messages = codex.install("project", str(project), "/venv/bin/ledger-hook codex")
    assert (project / ".codex" / "hooks.json").exists()
    assert (project / ".agents" / "skills" / "debug" / "SKILL.md").exists()
    assert any("trusted 4 hooks" in m for m in messages), messages


def test_codex_uninstall_removes_hooks_skill_and_trust(tmp_path, codex_home, fake_codex):
    codex.install("user", str(tmp_path), "/venv/bin/ledger-hook codex")
    keys = codex.trust_keys(str(codex_home / "hooks.json"))
    (codex_home / "config.toml").write_text("".join(
        '[hooks.state."%s"]\ntrusted_hash = "sha256:x"\n' % k for k in keys))
    messages = codex.uninstall("user", str(tmp_path))
    assert not (codex_home / "hooks.json").exists()
    assert not (codex_home / "skills" / "debug" / "SKILL.md").exists()
    assert json.loads((codex_home / "fake-trust.json").read_text()) == {}
    assert any("removed the trust entries of the 4" in m for m in messages), messages


def test_codex_has_no_local_scope(tmp_path, codex_home):
    result = invoke("install", "--agent", "codex", "--scope", "local", "--project-dir", str(tmp_path))
    assert result.exit_code != 0
    assert "no 'local' scope" in result.output


# Gemini --------------------------------------------------------------------------------------

def test_gemini_install_merges_settings_in_milliseconds_and_uninstalls_exactly(tmp_path):
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = json.dumps({"model": {"name": "gemini-2.5-pro"}, "hooks": {"AfterTool": [
        {"matcher": "write_file", "hooks": [{"type": "command", "command": "prettier", "timeout": 5000}]}]}}, indent=4)
    settings.write_text(original)
    result = invoke("install", "--agent", "gemini", "--project-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(settings.read_text())
    assert data["model"] == {"name": "gemini-2.5-pro"}
    groups = data["hooks"]["AfterTool"]
    assert groups[0]["hooks"][0]["command"] == "prettier"
    ours = [h for g in data["hooks"].values() for grp in g for h in grp["hooks"] if "ledger" in h["command"]]
    assert {h["name"] for h in ours} == {"evidence-ledger-record", "evidence-ledger-stop", "evidence-ledger-protect"}
    assert all(h["timeout"] >= 10000 for h in ours)
    assert invoke("install", "--agent", "gemini").output.count("nothing changed") == 1
    assert invoke("uninstall", "--agent", "gemini").exit_code == 0
    assert settings.read_text() == original


def test_gemini_note_is_appended_and_removed_without_touching_the_users_text(tmp_path):
    path = tmp_path / "GEMINI.md"
    mine = "# My project\n\nUse uv, not pip.\n"
    path.write_text(mine)
    gemini.add_note(str(path))
    text = path.read_text()
    assert text.startswith(mine) and gemini.BEGIN in text and gemini.END in text
    assert gemini.add_note(str(path)).endswith("note up to date")
    assert path.read_text() == text
    # The user edits around the block; uninstall takes out the block and only the block.
    path.write_text("Line above.\n" + text + "Line below.\n")
    gemini.remove_note(str(path))
    assert path.read_text() == "Line above.\n" + mine + "Line below.\n"


def test_gemini_note_in_a_new_file_is_deleted_with_it(tmp_path):
    path = tmp_path / "GEMINI.md"
    gemini.add_note(str(path))
    assert gemini.remove_note(str(path)).endswith("deleted)")
    assert not path.exists()


def test_gemini_doctor_catches_switched_off_hooks_and_second_timeouts(tmp_path):
    gemini.install("user", str(tmp_path), "/venv/bin/ledger-hook gemini")
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooksConfig"] = {"enabled": False, "disabled": ["evidence-ledger-stop"]}
    data["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"] = 60  # a Claude-style value
    settings.write_text(json.dumps(data))
    errors = [m for level, m in gemini.doctor(str(tmp_path)) if level == "error"]
    assert any("hooksConfig.enabled is false" in m for m in errors), errors
    assert any("evidence-ledger-stop in hooksConfig.disabled" in m for m in errors), errors
    assert any("timeout 60" in m and "milliseconds" in m for m in errors), errors


def test_gemini_folder_trust(tmp_path, monkeypatch):
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    project = tmp_path / "work" / "repo"
    project.mkdir(parents=True)
    folders = tmp_path / "home" / ".gemini" / "trustedFolders.json"
    folders.parent.mkdir(parents=True)
    assert not gemini.folder_trusted(str(project))
    folders.write_text(json.dumps({str(project / "child"): "TRUST_PARENT"}))
    assert gemini.folder_trusted(str(project))
    folders.write_text(json.dumps({str(tmp_path / "work"): "TRUST_FOLDER", str(project): "DO_NOT_TRUST"}))
    assert not gemini.folder_trusted(str(project))  # the nearer rule wins
    messages = gemini.install("project", str(project), "/venv/bin/ledger-hook gemini")
    assert any("not a trusted folder" in m for m in messages)
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert gemini.folder_trusted(str(project))
    assert os.path.exists(project / ".gemini" / "skills" / "debug" / "SKILL.md")
    assert gemini.gemini_dir() == os.path.join(str(tmp_path / "home"), ".gemini")


def test_gemini_doctor_checks_the_hook_command_as_claude_doctor_does(tmp_path):
    # One check for all three agents (installers/common.command_checks): a program that is gone
    # is an error, a form an earlier version wrote is worth reinstalling.
    import ledger.hooks

    def messages(command):
        gemini.install("user", str(tmp_path), command)
        return [(level, m) for level, m in gemini.doctor(str(tmp_path))
                if "hook command" in m or "earlier version" in m]

    gone = messages("/venv/bin/ledger-hook gemini")
    assert gone == [("error", "gemini: the hook command /venv/bin/ledger-hook does not exist (moved "
                              "virtualenv?): run `ledger install --agent gemini --scope user` again")]
    older = messages("%s %s gemini" % (sys.executable, ledger.hooks.ENTRY))
    assert len(older) == 1 and older[0][0] == "warn" and "--agent gemini --scope user" in older[0][1]
    assert messages("%s -S %s gemini" % (sys.executable, ledger.hooks.ENTRY)) == []
