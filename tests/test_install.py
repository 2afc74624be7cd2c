"""`ledger install` / `uninstall` / `doctor` for Claude Code, on real files in a temp home."""

import json
import os

import pytest
from click.testing import CliRunner

from ledger.cli import cli

OTHER_SETTINGS = """{
    "permissions": {"allow": ["Bash(git *)"]},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
    },
    "model": "opus"
}
"""


def invoke(*args, cwd=None):
    runner = CliRunner()
    result = runner.invoke(cli, list(args), catch_exceptions=False)
    return result


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "proj"
    path.mkdir()
    return path


def settings(path):
    return json.loads(path.read_text())


def our_commands(data):
    return {
        event: [h["command"] for g in groups for h in g["hooks"] if "ledger" in h["command"]]
        for event, groups in data.get("hooks", {}).items()
    }


def test_project_install_writes_hooks_and_skill(project):
    result = invoke("install", "--scope", "project", "--project-dir", str(project))
    assert result.exit_code == 0, result.output
    data = settings(project / ".claude" / "settings.json")
    ours = our_commands(data)
    for event in ("PostToolUse", "PostToolUseFailure", "PreToolUse", "Stop", "SubagentStop"):
        assert len(ours[event]) == 1, event
        program = ours[event][0].split()[0]
        assert os.path.isabs(program.strip("'")), "hooks must not depend on the agent's PATH"
        assert ours[event][0].endswith(" claude")
    skill = (project / ".claude" / "skills" / "debug" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: debug\n")


def test_install_twice_adds_nothing(project):
    invoke("install", "--scope", "project", "--project-dir", str(project))
    path = project / ".claude" / "settings.json"
    first = path.read_bytes()
    result = invoke("install", "--scope", "project", "--project-dir", str(project))
    assert "already installed" in result.output
    assert path.read_bytes() == first


def test_install_then_uninstall_restores_other_hooks_byte_for_byte(project):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(OTHER_SETTINGS)
    invoke("install", "--scope", "project", "--project-dir", str(project))
    data = settings(path)
    assert data["model"] == "opus" and data["permissions"] == {"allow": ["Bash(git *)"]}
    commands = [h["command"] for g in data["hooks"]["PostToolUse"] for h in g["hooks"]]
    assert "prettier --write" in commands and any("ledger" in c for c in commands)
    invoke("install", "--scope", "project", "--project-dir", str(project))  # twice: still one entry
    assert len(our_commands(settings(path))["Stop"]) == 1

    result = invoke("uninstall", "--scope", "project", "--project-dir", str(project))
    assert result.exit_code == 0, result.output
    assert path.read_text() == OTHER_SETTINGS
    assert not (project / ".claude" / "skills" / "debug" / "SKILL.md").exists()


def test_uninstall_after_user_edits_keeps_their_edits(project):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(OTHER_SETTINGS)
    invoke("install", "--scope", "project", "--project-dir", str(project))
    data = settings(path)
    data["env"] = {"FOO": "1"}
    path.write_text(json.dumps(data, indent=2))
    invoke("uninstall", "--scope", "project", "--project-dir", str(project))
    after = settings(path)
    assert after["env"] == {"FOO": "1"}
    assert not any(our_commands(after).values())
    assert [h["command"] for g in after["hooks"]["Stop"] for h in g["hooks"]] == ["notify-send done"]


def test_uninstall_removes_a_file_it_created(project):
    invoke("install", "--scope", "local", "--project-dir", str(project))
    path = project / ".claude" / "settings.local.json"
    assert path.exists()
    invoke("uninstall", "--scope", "local", "--project-dir", str(project))
    assert not path.exists()


def test_user_scope_goes_to_home(project):
    result = invoke("install", "--project-dir", str(project))
    assert result.exit_code == 0
    home = os.path.expanduser("~")
    assert os.path.exists(os.path.join(home, ".claude", "settings.json"))
    assert os.path.exists(os.path.join(home, ".claude", "skills", "debug", "SKILL.md"))
    assert not (project / ".claude").exists()


def test_broken_settings_are_left_alone(project):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{not json")
    result = CliRunner().invoke(cli, ["install", "--scope", "project", "--project-dir", str(project)])
    assert result.exit_code == 1
    assert "not valid JSON" in result.output
    assert path.read_text() == "{not json"


def test_a_different_debug_skill_is_not_overwritten(project):
    skill = project / ".claude" / "skills" / "debug" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: debug\n---\nsomeone else's skill\n")
    result = CliRunner().invoke(cli, ["install", "--scope", "project", "--project-dir", str(project)])
    assert result.exit_code == 1
    assert "not written by evidence-ledger" in result.output
    assert skill.read_text().endswith("someone else's skill\n")
    # The hooks themselves were still registered before the skill step refused.
    assert our_commands(settings(project / ".claude" / "settings.json"))["Stop"]
    result = CliRunner().invoke(cli, ["install", "--scope", "project", "--project-dir", str(project), "--skip-skill"])
    assert result.exit_code == 0


def test_doctor_reports_install_config_ledger_and_a_real_hook_run(project):
    before = CliRunner().invoke(cli, ["doctor", "--project-dir", str(project), "--json"])
    checks = json.loads(before.output)
    assert any(c["level"] == "warn" and "no evidence-ledger hooks" in c["message"] for c in checks)
    invoke("install", "--scope", "project", "--project-dir", str(project))
    result = CliRunner().invoke(cli, ["doctor", "--project-dir", str(project), "--json"])
    checks = json.loads(result.output)
    messages = " | ".join(c["message"] for c in checks)
    assert "claude project scope: hooks in" in messages
    assert "runs and records" in messages
    assert "config: mode=enforce" in messages
    assert "earlier version" not in messages
    assert result.exit_code == 0, messages


def test_doctor_tells_of_hooks_an_earlier_version_wrote_and_reinstall_upgrades_them(project):
    # The hook ran with site loaded before `-S` (hooks.command): it works, only slower.
    import sys

    import ledger.hooks

    old = "%s %s claude" % (sys.executable, ledger.hooks.ENTRY)
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {e: [{"hooks": [{"type": "command", "command": old}]}]
                                          for e in ("PostToolUse", "PostToolUseFailure", "Stop")}}))
    result = CliRunner().invoke(cli, ["doctor", "--project-dir", str(project), "--json"])
    warned = [c for c in json.loads(result.output) if "earlier version" in c["message"]]
    assert warned and warned[0]["level"] == "warn" and "--scope project" in warned[0]["message"]
    invoke("install", "--scope", "project", "--project-dir", str(project), "--skip-skill")
    commands = {h["command"] for g in settings(path)["hooks"]["Stop"] for h in g["hooks"]}
    assert commands == {"%s -S %s claude" % (sys.executable, ledger.hooks.ENTRY)}
    result = CliRunner().invoke(cli, ["doctor", "--project-dir", str(project), "--json"])
    assert not [c for c in json.loads(result.output) if "earlier version" in c["message"]]


def test_doctor_fails_loudly_on_a_broken_config(project):
    cfg = project / ".evidence-ledger" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('mode = "strict"\n')
    result = CliRunner().invoke(cli, ["doctor", "--project-dir", str(project)])
    assert result.exit_code == 1
    assert "config is broken" in result.output and "config.toml" in result.output


@pytest.mark.parametrize("old", ["/venv/bin/ledger-hook claude", "/usr/bin/python3 -m ledger.hooks claude"])
def test_reinstall_replaces_the_command_an_earlier_version_wrote(project, old):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    data = json.loads(OTHER_SETTINGS)
    data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": old, "timeout": 60}]})
    path.write_text(json.dumps(data, indent=4))
    invoke("install", "--scope", "project", "--project-dir", str(project))
    stop = [h["command"] for g in settings(path)["hooks"]["Stop"] for h in g["hooks"]]
    assert stop[0] == "notify-send done" and len(stop) == 2, stop
    assert stop[1].endswith(os.path.join("ledger", "hooks", "entry.py") + " claude")
    invoke("uninstall", "--scope", "project", "--project-dir", str(project))
    after = settings(path)
    assert [h["command"] for g in after["hooks"]["Stop"] for h in g["hooks"]] == ["notify-send done"]
    assert not any(our_commands(after).values())
