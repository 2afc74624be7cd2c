"""Merging our hook entries into an agent's JSON settings, and taking them out again.

The promises: other people's hooks and settings are never touched; installing twice adds
nothing; every write keeps a backup of what was there; and uninstalling right after installing
gives back the original file byte for byte.
"""

import json
import os
import shlex
import shutil

MARK = "ledger-hook"
BACKUP_SUFFIX = ".evidence-ledger.bak"


class InstallError(Exception):
    pass


def hook_command(agent):
    """An absolute command for the hook, so it runs whatever PATH the agent has.

    The interpreter runs ledger/hooks/entry.py by path: cheaper per tool call than
    `python -m ledger.hooks` (~1 ms) or pip's `ledger-hook` script (~5 ms; see that file).
    """
    from ledger import hooks

    return shlex.join(hooks.command(agent))


# What our hook commands look like, old and new: uninstall and upgrades must find all of them.
OUR_COMMANDS = (MARK, "ledger.hooks", os.path.join("ledger", "hooks", "entry.py"))


def _names_ours(command):
    return any(mark in command for mark in OUR_COMMANDS)


def older_form(command):
    """Is `command` one of ours in a form an earlier version wrote: `python -m ledger.hooks`, the
    `ledger-hook` script, or entry.py run with site loaded (hooks.command starts it with `-S`)?
    Such hooks work, only slower on every tool call."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not _names_ours(command):
        return False
    entry = [i for i, w in enumerate(words) if w.endswith(os.path.join("ledger", "hooks", "entry.py"))]
    if not entry:
        return True  # -m ledger.hooks, ledger-hook
    return "-S" not in words[1:entry[0]]


def command_checks(command, scope, agent):
    """doctor's checks of one installed hook command of `agent`: its program must exist, and a form
    an earlier version wrote is worth replacing."""
    prefix, flag = ("", "") if agent == "claude" else (agent + ": ", "--agent %s " % agent)
    again = "run `ledger install %s--scope %s` again" % (flag, scope)
    program = command.split()[0].strip("'\"") if command else ""
    if program and os.path.isabs(program) and not os.path.exists(program):
        return [("error", "%sthe hook command %s does not exist (moved virtualenv?): %s" % (prefix, program, again))]
    if command and older_form(command):
        return [("warn", "%s %s scope: the hooks were written by an earlier version (`%s`), which starts "
                         "slower on every tool call: %s" % (agent, scope, command, again))]
    return []


def is_ours(handler):
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and _names_ours(command)


def read_json(path):
    """(data, original bytes or None). A file that is not a JSON object is an InstallError."""
    if not os.path.exists(path):
        return {}, None
    with open(path, "rb") as f:
        raw = f.read()
    if not raw.strip():
        return {}, raw
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise InstallError("%s is not valid JSON (%s); fix it first, nothing was changed" % (path, exc))
    if not isinstance(data, dict):
        raise InstallError("%s does not hold a JSON object; nothing was changed" % path)
    return data, raw


def _indent_of(raw):
    if raw:
        for line in raw.decode("utf-8", "replace").splitlines()[1:]:
            stripped = line.lstrip(" ")
            if stripped and len(stripped) < len(line):
                return len(line) - len(stripped)
    return 2


def write_json(path, data, original):
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    if original is not None:
        shutil.copyfile(path, path + BACKUP_SUFFIX)
    text = json.dumps(data, indent=_indent_of(original), ensure_ascii=False) + "\n"
    tmp = path + ".evidence-ledger.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    if original is not None:
        shutil.copymode(path, tmp)
    os.replace(tmp, path)


def merge_hooks(data, wanted):
    """Add our handlers. `wanted` maps event -> (matcher or None, handler dict). Returns changed."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("the settings' \"hooks\" entry is not an object; nothing was changed")
    changed = False
    for event, (matcher, handler) in wanted.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError("hooks.%s is not a list; nothing was changed" % event)
        present = [h for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if is_ours(h)]
        if present == [handler] and _our_group_matches(groups, matcher):
            continue
        _remove_ours(groups)
        group = {"hooks": [handler]}
        if matcher is not None:
            group = {"matcher": matcher, "hooks": [handler]}
        groups.append(group)
        changed = True
    return changed


def _our_group_matches(groups, matcher):
    for g in groups:
        if isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks", [])):
            return g.get("matcher") == matcher
    return False


def _remove_ours(groups):
    for g in list(groups):
        if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
            continue
        kept = [h for h in g["hooks"] if not is_ours(h)]
        if len(kept) != len(g["hooks"]):
            if kept:
                g["hooks"] = kept
            else:
                groups.remove(g)


def remove_hooks(data):
    """Take our handlers out, dropping groups and events that only held ours. Returns changed."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return False
    before = json.dumps(hooks, sort_keys=True)
    for event in list(hooks):
        groups = hooks[event]
        if isinstance(groups, list):
            _remove_ours(groups)
            if not groups:
                del hooks[event]
    if not hooks:
        del data["hooks"]
    return json.dumps(hooks, sort_keys=True) != before or "hooks" not in data


def installed_events(data):
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return {}
    found = {}
    for event, groups in hooks.items():
        for g in groups if isinstance(groups, list) else []:
            for h in g.get("hooks", []) if isinstance(g, dict) else []:
                if is_ours(h):
                    found[event] = h.get("command")
    return found


def install_settings(path, wanted):
    data, original = read_json(path)
    if not merge_hooks(data, wanted):
        return "%s: already installed, nothing changed" % path
    if original is not None and not os.path.exists(path + BACKUP_SUFFIX + ".orig"):
        # The first install keeps the untouched original, so uninstall can restore it exactly.
        shutil.copyfile(path, path + BACKUP_SUFFIX + ".orig")
    write_json(path, data, original)
    return "%s: hooks added for %s" % (path, ", ".join(wanted))


def uninstall_settings(path):
    if not os.path.exists(path):
        return "%s: not present, nothing to do" % path
    data, original = read_json(path)
    if not installed_events(data):
        return "%s: no evidence-ledger hooks, nothing changed" % path
    remove_hooks(data)
    orig = path + BACKUP_SUFFIX + ".orig"
    if os.path.exists(orig):
        saved, _ = read_json(orig)
        # A snapshot holding hooks of ours (an earlier version's command) cannot be restored as
        # it is: that would put them back.
        clean = not installed_events(saved)
        remove_hooks(saved)
        if saved == data and clean:
            shutil.copyfile(path, path + BACKUP_SUFFIX)
            shutil.copyfile(orig, path)
            os.remove(orig)
            return "%s: hooks removed (original file restored; backup of the last state in %s)" % (
                path, path + BACKUP_SUFFIX)
        os.remove(orig)  # edited since install: the snapshot is stale now
        write_json(path, data, original)
        return "%s: hooks removed" % path
    if not data:
        # No snapshot means the file did not exist before we installed.
        os.remove(path)
        return "%s: hooks removed (the file held nothing else and was deleted)" % path
    write_json(path, data, original)
    return "%s: hooks removed" % path


def install_file(src, dest, marker):
    """Copy a file we own (the skill) unless a different file not made by us is in the way."""
    with open(src, "rb") as f:
        content = f.read()
    if os.path.exists(dest):
        with open(dest, "rb") as f:
            current = f.read()
        if current == content:
            return "%s: up to date" % dest
        if marker.encode() not in current:
            raise InstallError(
                "%s exists and was not written by evidence-ledger; left as it is. Move it away, "
                "or install with --skip-skill" % dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "wb") as f:
        f.write(content)
    return "%s: installed" % dest


def remove_file(dest, marker):
    if not os.path.exists(dest):
        return None
    with open(dest, "rb") as f:
        if marker.encode() not in f.read():
            return "%s: not ours, left in place" % dest
    os.remove(dest)
    folder = os.path.dirname(dest)
    try:
        os.rmdir(folder)
    except OSError:
        pass
    return "%s: removed" % dest
