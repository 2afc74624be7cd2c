"""Google Gemini CLI: hooks in settings.json (user or project), the debug skill, a GEMINI.md note.

Facts (gemini-cli 0.61.0, ../shared/research/other-agents-e2e.md section 2): hooks sit in
`~/.gemini/settings.json` or `<project>/.gemini/settings.json` in Claude's shape, but hook
timeouts are in **milliseconds**; `hooksConfig.enabled` (default true) switches every hook off
and `hooksConfig.disabled` lists hooks by name. Project settings load only in a trusted folder
(`~/.gemini/trustedFolders.json`, or GEMINI_CLI_TRUST_WORKSPACE=true for headless runs); an
untrusted headless run exits 55. Trusting a folder is the user's call about everything in it,
so install reports it and does not make it.

Skills are discovered from `~/.gemini/skills/` and `.gemini/skills/`, but activating one asks
the user for consent, which a headless run cannot give. So the few rules the Stop guard
enforces also go into GEMINI.md, the context file Gemini always loads, as a delimited block
that uninstall takes out again, leaving the rest of the file as it was.
"""

import os

from ledger import paths
from ledger.installers import common

SCOPES = ("user", "project")
SKILL_MARKER = "evidence-ledger"
PROTECTED_TOOLS = "run_shell_command|write_file|replace"
REQUIRED = ("AfterTool", "AfterAgent")
NAMES = {"AfterTool": "evidence-ledger-record", "AfterAgent": "evidence-ledger-stop",
         "BeforeTool": "evidence-ledger-protect"}
BEGIN = "<!-- evidence-ledger:begin (added by `ledger install --agent gemini`; `ledger uninstall` removes it) -->"
END = "<!-- evidence-ledger:end -->"
NOTE = """## Evidence before diagnosis (evidence-ledger)

Every tool output in this session is recorded. When you state the cause of a failure, quote
the exact line of tool output that shows it (in backticks), or cite its evidence id (`E12`,
see `ledger show` / `ledger search`). Label a cause you have not shown yet as a hypothesis
("Hypothesis: ...", "may", "might"). If the evidence-ledger guard rejects your answer, follow
the `debug` skill: probe, hypothesis, smoke test, controls, then the claim with its quote.
"""


def gemini_dir():
    return os.path.join(os.path.expanduser("~"), ".gemini")


def settings_path(scope, project_dir):
    if scope == "user":
        return os.path.join(gemini_dir(), "settings.json")
    if scope == "project":
        return os.path.join(project_dir, ".gemini", "settings.json")
    raise common.InstallError("Gemini CLI has no %r scope; use --scope user or --scope project" % scope)


def skill_path(scope, project_dir):
    base = gemini_dir() if scope == "user" else os.path.join(project_dir, ".gemini")
    return os.path.join(base, "skills", "debug", "SKILL.md")


def context_path(scope, project_dir):
    return os.path.join(gemini_dir() if scope == "user" else project_dir, "GEMINI.md")


def wanted_hooks(hook_command):
    def handler(event, timeout_s):
        return {"name": NAMES[event], "type": "command", "command": hook_command,
                "timeout": timeout_s * 1000}  # milliseconds: 30 here would be 30 ms

    return {
        "AfterTool": ("*", handler("AfterTool", 30)),
        "AfterAgent": (None, handler("AfterAgent", 60)),
        "BeforeTool": (PROTECTED_TOOLS, handler("BeforeTool", 10)),
    }


# The GEMINI.md block -------------------------------------------------------------------------

def _block():
    return "%s\n%s%s\n" % (BEGIN, NOTE, END)


def add_note(path):
    text = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
    if BEGIN in text:
        start = text.index(BEGIN)
        end = text.find(END, start)
        if end < 0:
            raise common.InstallError("%s has our begin marker without the end marker; fix it by hand" % path)
        end += len(END) + (1 if text[end + len(END):end + len(END) + 1] == "\n" else 0)
        if text[start:end] == _block():
            return "%s: note up to date" % path
        new = text[:start] + _block() + text[end:]
    else:
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        new = text + sep + _block()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        import shutil

        shutil.copyfile(path, path + common.BACKUP_SUFFIX)
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return "%s: evidence-ledger note %s" % (path, "updated" if BEGIN in text else "added")


def remove_note(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find(BEGIN)
    end = text.find(END, start) if start >= 0 else -1
    if start < 0 or end < 0:
        return None
    end += len(END)
    if text[end:end + 1] == "\n":
        end += 1
    before, after = text[:start], text[end:]
    # Undo the blank line add_note put in front of the block.
    if before.endswith("\n\n"):
        before = before[:-1]
    new = before + after
    if not new.strip():
        os.remove(path)
        return "%s: note removed (the file held nothing else and was deleted)" % path
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return "%s: note removed" % path


# install / uninstall / doctor ----------------------------------------------------------------

def install(scope, project_dir, hook_command=None, skill=True):
    hook_command = hook_command or common.hook_command("gemini")
    path = settings_path(scope, project_dir)
    messages = [common.install_settings(path, wanted_hooks(hook_command))]
    if skill:
        source = os.path.join(paths.skills_dir(), "debug", "SKILL.md")
        messages.append(common.install_file(source, skill_path(scope, project_dir), SKILL_MARKER))
        messages.append(add_note(context_path(scope, project_dir)))
    messages.extend(level_note(m) for level, m in _switches(path) if level != "ok")
    if scope == "project" and not folder_trusted(project_dir):
        messages.append(
            "gemini: %s is not a trusted folder, and Gemini ignores project settings (these hooks "
            "included) outside trusted folders. Trust it when Gemini asks, with /permissions, or "
            "for headless runs set GEMINI_CLI_TRUST_WORKSPACE=true" % project_dir)
    return messages


def level_note(message):
    return "gemini: warning: " + message


def uninstall(scope, project_dir):
    messages = [common.uninstall_settings(settings_path(scope, project_dir))]
    for removed in (common.remove_file(skill_path(scope, project_dir), SKILL_MARKER),
                    remove_note(context_path(scope, project_dir))):
        if removed:
            messages.append(removed)
    return messages


def _read(path):
    try:
        data, _ = common.read_json(path)
        return data
    except common.InstallError:
        return {}


def _switches(path):
    """The settings that turn our hooks off although they are installed."""
    out = []
    for where in dict.fromkeys((settings_path("user", ""), path)):
        config = _read(where).get("hooksConfig")
        if not isinstance(config, dict):
            continue
        if config.get("enabled") is False:
            out.append(("error", "hooksConfig.enabled is false in %s, so no hook runs" % where))
        disabled = config.get("disabled") if isinstance(config.get("disabled"), list) else []
        ours = [d for d in disabled if d in NAMES.values() or common.MARK in str(d)]
        if ours:
            out.append(("error", "%s lists %s in hooksConfig.disabled" % (where, ", ".join(map(str, ours)))))
    return out


def folder_trusted(project_dir):
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true":
        return True
    user = _read(settings_path("user", ""))
    trust = (user.get("security") or {}).get("folderTrust") if isinstance(user.get("security"), dict) else None
    if isinstance(trust, dict) and trust.get("enabled") is False:
        return True
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(gemini_dir(), "trustedFolders.json")
    rules = _read(path)
    here = os.path.realpath(project_dir)
    best, verdict = -1, None
    for folder, level in rules.items():
        root = os.path.realpath(os.path.expanduser(folder))
        if level == "TRUST_PARENT":
            root = os.path.dirname(root)
        if (here == root or here.startswith(root.rstrip(os.sep) + os.sep)) and len(root) > best:
            best, verdict = len(root), level
    return verdict in ("TRUST_FOLDER", "TRUST_PARENT")


def doctor(project_dir):
    found = []
    any_installed = False
    for scope in SCOPES:
        path = settings_path(scope, project_dir)
        try:
            data, _ = common.read_json(path)
        except common.InstallError as exc:
            found.append(("error", "gemini: %s" % exc))
            continue
        events = common.installed_events(data)
        if not events:
            continue
        any_installed = True
        missing = [e for e in REQUIRED if e not in events]
        text = "gemini %s scope: hooks in %s (%s)" % (scope, path, ", ".join(sorted(events)))
        if missing:
            text += "; missing %s: run `ledger install --agent gemini --scope %s` again" % (", ".join(missing), scope)
        found.append(("warn" if missing else "ok", text))
        for event, groups in (data.get("hooks") or {}).items():
            for group in groups if isinstance(groups, list) else []:
                for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                    timeout = handler.get("timeout") if common.is_ours(handler) else None
                    if isinstance(timeout, (int, float)) and timeout < 1000:
                        found.append(("error", "gemini: the %s hook has timeout %s, which Gemini reads as "
                                               "milliseconds; run `ledger install --agent gemini` again" % (event, timeout)))
        found.extend(common.command_checks(next(iter(events.values())), scope, "gemini"))
        found.extend(("error", "gemini: " + m) for _, m in _switches(path))
        if scope == "project" and not folder_trusted(project_dir):
            found.append(("warn", "gemini: %s is not in ~/.gemini/trustedFolders.json, and Gemini loads "
                                  "project hooks only in trusted folders (interactive runs ask; headless "
                                  "ones need GEMINI_CLI_TRUST_WORKSPACE=true)" % project_dir))
        skill = skill_path(scope, project_dir)
        if os.path.exists(skill):
            found.append(("ok", "gemini %s scope: debug skill at %s" % (scope, skill)))
    if not any_installed:
        found.append(("warn", "gemini: no evidence-ledger hooks in %s or %s (run `ledger install "
                              "--agent gemini`)" % (settings_path("user", project_dir),
                                                    settings_path("project", project_dir))))
    return found
