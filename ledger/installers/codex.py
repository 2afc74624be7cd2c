"""OpenAI Codex CLI: hooks in hooks.json (user or project), hook trust, and the debug skill.

Codex runs a non-managed hook only once the user has trusted it, and skips an untrusted one
without a word (../shared/research/other-agents-e2e.md section 1.4). The trust is a
`[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."` table in the
user's config.toml, where the hash covers the hook's content. The hashing is Codex's own, so
we ask Codex: `codex app-server` (JSON-RPC over stdio) lists the hooks with their hash and
trust status (`hooks/list`), and writes config.toml itself (`config/batchWrite`), the same
calls its /hooks review makes. Project hooks additionally need the project trusted, which is
the user's decision about the whole repository: we report it, we do not make it.
"""

import json
import os
import selectors
import shutil
import subprocess
import time

from ledger import paths
from ledger.installers import common

SCOPES = ("user", "project")
SKILL_MARKER = "evidence-ledger"
PROTECTED_TOOLS = "Bash|apply_patch"
EVENTS = ("PostToolUse", "Stop", "SubagentStop", "PreToolUse")
REQUIRED = ("PostToolUse", "Stop")
SNAKE = {"PostToolUse": "post_tool_use", "Stop": "stop", "SubagentStop": "subagent_stop",
         "PreToolUse": "pre_tool_use"}
# `codex app-server` would otherwise sync plugins from a remote host at start-up; none of
# that is needed to list hooks or write config.
APP_SERVER_ARGS = ("app-server", "--disable", "plugins", "--disable", "remote_plugin",
                   "--disable", "apps")
APP_SERVER_TIMEOUT = 30


def codex_home():
    return os.path.abspath(os.path.expanduser(os.environ.get("CODEX_HOME") or os.path.join("~", ".codex")))


def hooks_path(scope, project_dir):
    if scope == "user":
        return os.path.join(codex_home(), "hooks.json")
    if scope == "project":
        return os.path.join(project_dir, ".codex", "hooks.json")
    raise common.InstallError("Codex has no %r scope; use --scope user or --scope project" % scope)


def config_path():
    return os.path.join(codex_home(), "config.toml")


def skill_path(scope, project_dir):
    # $CODEX_HOME/skills for the user; .agents/skills, the shared open-standard folder, for a
    # repository (Codex has no .codex/skills in a project).
    if scope == "user":
        return os.path.join(codex_home(), "skills", "debug", "SKILL.md")
    return os.path.join(project_dir, ".agents", "skills", "debug", "SKILL.md")


def wanted_hooks(hook_command):
    def handler(timeout):  # seconds, as in Claude Code
        return {"type": "command", "command": hook_command, "timeout": timeout}

    return {
        "PostToolUse": ("*", handler(30)),
        "Stop": (None, handler(60)),
        "SubagentStop": (None, handler(60)),
        "PreToolUse": (PROTECTED_TOOLS, handler(10)),
    }


def find_codex():
    found = os.environ.get("LEDGER_CODEX_BIN") or shutil.which("codex")
    return found if found and os.access(found, os.X_OK) else None


# Talking to `codex app-server` -------------------------------------------------------------

class AppServerError(Exception):
    pass


class AppServer:
    """One short JSON-RPC session with `codex app-server` over stdio (a JSON object a line)."""

    def __init__(self, codex, timeout=APP_SERVER_TIMEOUT):
        self.deadline = time.monotonic() + timeout
        try:
            self.proc = subprocess.Popen([codex, *APP_SERVER_ARGS], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            raise AppServerError("could not start %s app-server: %s" % (codex, exc))
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.buffer = b""
        self.next_id = 0
        self.request("initialize", {"clientInfo": {"name": "evidence-ledger", "version": "0"}})
        self._send({"method": "initialized"})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.selector.close()

    def _send(self, message):
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except OSError as exc:
            raise AppServerError("codex app-server stopped: %s" % self._stderr(exc))

    def _stderr(self, fallback):
        try:
            self.proc.kill()
            return (self.proc.stderr.read() or b"").decode("utf-8", "replace").strip()[-500:] or fallback
        except Exception:
            return fallback

    def _line(self):
        while b"\n" not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0 or not self.selector.select(timeout=left):
                raise AppServerError("codex app-server did not answer within %d s" % APP_SERVER_TIMEOUT)
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AppServerError("codex app-server exited: %s" % self._stderr("no output"))
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def request(self, method, params):
        self.next_id += 1
        wanted = self.next_id
        self._send({"id": wanted, "method": method, "params": params})
        while True:
            line = self._line()
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") != wanted or "method" in message:
                continue  # notifications, and requests from the server we never trigger
            if "error" in message:
                raise AppServerError("%s failed: %s" % (method, message["error"].get("message", message["error"])))
            return message.get("result") or {}

    def hooks(self, cwd):
        result = self.request("hooks/list", {"cwds": [cwd]})
        found = []
        for entry in result.get("data") or []:
            found.extend(entry.get("hooks") or [])
        return found

    def set_trust(self, entries):
        """entries: {key: hash}; None as a hash removes the key."""
        edits = []
        upsert = {k: {"trusted_hash": v} for k, v in entries.items() if v}
        if upsert:
            edits.append({"keyPath": "hooks.state", "value": upsert, "mergeStrategy": "upsert"})
        for key, value in entries.items():
            if not value:
                edits.append({"keyPath": "hooks.state.%s" % json.dumps(key), "value": None,
                              "mergeStrategy": "replace"})
        if edits:
            self.request("config/batchWrite", {"edits": edits})


def _same_path(a, b):
    return bool(a and b) and os.path.realpath(a) == os.path.realpath(b)


def our_hooks(listed, path):
    return [h for h in listed if _same_path(h.get("sourcePath"), path) and common.is_ours(h)]


# install / uninstall / doctor ----------------------------------------------------------------

def install(scope, project_dir, hook_command=None, skill=True):
    hook_command = hook_command or common.hook_command("codex")
    path = hooks_path(scope, project_dir)
    messages = [common.install_settings(path, wanted_hooks(hook_command))]
    if skill:
        source = os.path.join(paths.skills_dir(), "debug", "SKILL.md")
        messages.append(common.install_file(source, skill_path(scope, project_dir), SKILL_MARKER))
    messages.extend(trust(scope, project_dir, path))
    return messages


def trust(scope, project_dir, path):
    """Register trust for our hooks, the way Codex's /hooks review does. Never raises."""
    codex = find_codex()
    untrusted_note = ("Codex skips untrusted hooks without any warning, so the guard is NOT "
                      "active yet: open `codex`, run /hooks and trust the evidence-ledger hooks, "
                      "or run `ledger install --agent codex` again with codex on PATH")
    if not codex:
        return ["codex: `codex` not found on PATH (or $LEDGER_CODEX_BIN), so the hooks could not be "
                "trusted. " + untrusted_note]
    try:
        with AppServer(codex) as server:
            ours = our_hooks(server.hooks(project_dir), path)
            if not ours:
                if scope == "project" and not project_trusted(project_dir):
                    return ["codex: the project %s is not trusted by Codex, which then ignores its "
                            ".codex/ folder entirely. Trust it (start `codex` there and accept, or "
                            "run `codex exec --trust` once), then run `ledger install --agent codex "
                            "--scope project` again to trust the hooks" % project_dir]
                return ["codex: Codex does not list the hooks in %s. %s" % (path, untrusted_note)]
            pending = {h["key"]: h["currentHash"] for h in ours if h.get("trustStatus") != "trusted"}
            if not pending:
                return ["codex: %d hooks already trusted" % len(ours)]
            server.set_trust(pending)
            still = [h["key"] for h in our_hooks(server.hooks(project_dir), path)
                     if h.get("trustStatus") != "trusted"]
    except AppServerError as exc:
        return ["codex: could not register hook trust (%s). %s" % (exc, untrusted_note)]
    if still:
        return ["codex: trust was written but Codex still reports %s as untrusted. %s" % (
            ", ".join(still), untrusted_note)]
    return ["codex: trusted %d hooks in %s (what /hooks review writes)" % (len(pending), config_path())]


def uninstall(scope, project_dir):
    path = hooks_path(scope, project_dir)
    keys = trust_keys(path)
    messages = [common.uninstall_settings(path)]
    removed = common.remove_file(skill_path(scope, project_dir), SKILL_MARKER)
    if removed:
        messages.append(removed)
    stale = [k for k in keys if k in trusted_state()]
    if stale:
        codex = find_codex()
        try:
            if not codex:
                raise AppServerError("`codex` not found on PATH")
            with AppServer(codex) as server:
                server.set_trust({k: None for k in stale})
            messages.append("%s: removed the trust entries of the %d removed hooks" % (config_path(), len(stale)))
        except AppServerError as exc:
            # Harmless: a trust entry only matches a hook with the same content at that place.
            messages.append("%s: left %d trust entries for the removed hooks (%s)" % (
                config_path(), len(stale), exc))
    return messages


def trust_keys(path):
    """The hooks.state keys Codex gives our handlers in `path`: file:event:group:handler."""
    try:
        data, _ = common.read_json(path)
    except common.InstallError:
        return []
    keys = []
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    for event, groups in hooks.items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if common.is_ours(handler) and event in SNAKE:
                    keys.append("%s:%s:%d:%d" % (path, SNAKE[event], gi, hi))
    return keys


def _user_config():
    import tomllib

    try:
        with open(config_path(), "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}


def trusted_state():
    try:
        state = (_user_config().get("hooks") or {}).get("state") or {}
    except Exception:
        return {}
    return {k: v.get("trusted_hash") for k, v in state.items() if isinstance(v, dict)}


def project_trusted(project_dir):
    try:
        projects = _user_config().get("projects") or {}
    except Exception:
        return False
    here = os.path.realpath(project_dir)
    while True:
        entry = projects.get(here)
        if isinstance(entry, dict) and entry.get("trust_level"):
            return entry.get("trust_level") == "trusted"
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def doctor(project_dir):
    """(level, message) pairs: where the hooks are, whether Codex will really run them."""
    found = []
    try:
        config = _user_config()
    except Exception as exc:
        found.append(("error", "codex: %s does not parse (%s); Codex will not start" % (config_path(), exc)))
        config = {}
    features = config.get("features") or {}
    if features.get("hooks") is False or features.get("codex_hooks") is False:
        found.append(("error", "codex: hooks are switched off in %s ([features] hooks = false)" % config_path()))
    installed = {}
    for scope in SCOPES:
        path = hooks_path(scope, project_dir)
        try:
            data, _ = common.read_json(path)
        except common.InstallError as exc:
            found.append(("error", "codex: %s" % exc))
            continue
        events = common.installed_events(data)
        if not events:
            continue
        installed[scope] = path
        missing = [e for e in REQUIRED if e not in events]
        text = "codex %s scope: hooks in %s (%s)" % (scope, path, ", ".join(sorted(events)))
        if missing:
            text += "; missing %s: run `ledger install --agent codex --scope %s` again" % (", ".join(missing), scope)
        found.append(("warn" if missing else "ok", text))
        found.extend(common.command_checks(next(iter(events.values())), scope, "codex"))
        if scope == "project" and not project_trusted(project_dir):
            found.append(("error", "codex: project %s is not trusted, so Codex ignores its .codex/ "
                                   "hooks without a warning; trust it in codex (or `codex exec --trust`), "
                                   "then `ledger install --agent codex --scope project`" % project_dir))
        skill = skill_path(scope, project_dir)
        if os.path.exists(skill):
            found.append(("ok", "codex %s scope: debug skill at %s" % (scope, skill)))
    if not installed:
        return found + [("warn", "codex: no evidence-ledger hooks in %s or %s (run `ledger install "
                                 "--agent codex`)" % (hooks_path("user", project_dir),
                                                      hooks_path("project", project_dir)))]
    found.extend(_doctor_trust(project_dir, installed))
    return found


def _doctor_trust(project_dir, installed):
    """Ask Codex itself; without it, check that a trust entry exists at least."""
    codex = find_codex()
    fix = "Codex skips untrusted hooks silently: run `ledger install --agent codex --scope %s` again (or trust them in codex's /hooks)"
    if codex:
        try:
            with AppServer(codex) as server:
                listed = server.hooks(project_dir)
        except AppServerError as exc:
            listed = None
            note = str(exc)
        if listed is not None:
            out = []
            for scope, path in installed.items():
                ours = our_hooks(listed, path)
                bad = ["%s (%s)" % (h.get("eventName"), h.get("trustStatus")) for h in ours
                       if h.get("trustStatus") != "trusted" or not h.get("enabled", True)]
                if not ours:
                    out.append(("error", "codex %s scope: Codex does not load the hooks in %s. %s" % (
                        scope, path, fix % scope)))
                elif bad:
                    out.append(("error", "codex %s scope: not trusted, so they never run: %s. %s" % (
                        scope, ", ".join(bad), fix % scope)))
                else:
                    out.append(("ok", "codex %s scope: Codex reports all %d hooks trusted" % (scope, len(ours))))
            return out
    else:
        note = "`codex` not on PATH"
    state = trusted_state()
    out = []
    for scope, path in installed.items():
        keys = trust_keys(path)
        missing = [k for k in keys if not state.get(k)]
        if missing:
            out.append(("error", "codex %s scope: no trust entry for %d of our hooks in %s. %s" % (
                scope, len(missing), config_path(), fix % scope)))
        else:
            out.append(("warn", "codex %s scope: trust entries exist, but whether they match the "
                                "current hooks could not be checked (%s)" % (scope, note)))
    return out
