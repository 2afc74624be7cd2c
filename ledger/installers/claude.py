"""Claude Code: hooks in settings.json (user, project or local scope) and the debug skill."""

import os

from ledger import paths
from ledger.installers import common

SCOPES = ("user", "project", "local")
SKILL_MARKER = "evidence-ledger"
PROTECTED_TOOLS = "Bash|PowerShell|Write|Edit|MultiEdit|NotebookEdit"


def settings_path(scope, project_dir):
    if scope == "user":
        return os.path.join(os.path.expanduser("~"), ".claude", "settings.json")
    name = "settings.json" if scope == "project" else "settings.local.json"
    return os.path.join(project_dir, ".claude", name)


def skill_path(scope, project_dir):
    base = os.path.expanduser("~") if scope == "user" else project_dir
    return os.path.join(base, ".claude", "skills", "debug", "SKILL.md")


def wanted_hooks(hook_command):
    def handler(timeout):
        return {"type": "command", "command": hook_command, "timeout": timeout}

    return {
        "PostToolUse": ("*", handler(30)),
        "PostToolUseFailure": ("*", handler(30)),
        "PreToolUse": (PROTECTED_TOOLS, handler(10)),
        "Stop": (None, handler(60)),
        "SubagentStop": (None, handler(60)),
    }


def install(scope, project_dir, hook_command=None, skill=True):
    hook_command = hook_command or common.hook_command("claude")
    messages = [common.install_settings(settings_path(scope, project_dir), wanted_hooks(hook_command))]
    if skill:
        source = os.path.join(paths.skills_dir(), "debug", "SKILL.md")
        messages.append(common.install_file(source, skill_path(scope, project_dir), SKILL_MARKER))
    return messages


def uninstall(scope, project_dir):
    messages = [common.uninstall_settings(settings_path(scope, project_dir))]
    removed = common.remove_file(skill_path(scope, project_dir), SKILL_MARKER)
    if removed:
        messages.append(removed)
    return messages


def doctor(project_dir):
    """(level, message) pairs: where the hooks are, and whether they point at a real program."""
    found = []
    for scope in SCOPES:
        path = settings_path(scope, project_dir)
        try:
            data, _ = common.read_json(path)
        except common.InstallError as exc:
            found.append(("error", str(exc)))
            continue
        events = common.installed_events(data)
        if events:
            missing = [e for e in ("PostToolUse", "PostToolUseFailure", "Stop") if e not in events]
            level = "warn" if missing else "ok"
            text = "claude %s scope: hooks in %s (%s)" % (scope, path, ", ".join(sorted(events)))
            if missing:
                text += "; missing %s: run `ledger install --scope %s` again" % (", ".join(missing), scope)
            found.append((level, text))
            found.extend(common.command_checks(next(iter(events.values())), scope, "claude"))
        skill = skill_path(scope, project_dir)
        if os.path.exists(skill):
            found.append(("ok", "claude %s scope: debug skill at %s" % (scope, skill)))
    if not any("hooks in" in m for _, m in found):
        found.append(("warn", "claude: no evidence-ledger hooks installed in %s or ~/.claude "
                              "(run `ledger install`)" % project_dir))
    return found
