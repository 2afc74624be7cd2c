"""PreToolUse: keep the agent's hands off the ledger and off the guard's own wiring.

An agent that writes to the database, edits the hook settings or pipes a payload into the
recorder by hand is forging evidence or switching the guard off. Reading stays allowed:
`ledger show`, `ledger search` and `ledger check` are how an agent finds ids to cite.
"""

import os
import re

from ledger import paths

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace", "apply_patch")
SHELL_TOOLS = ("Bash", "PowerShell", "shell", "exec_command", "local_shell", "run_shell_command")

# Settings files that hold the hooks; editing them turns the guard off.
HOOK_CONFIGS = (
    os.path.join(".claude", "settings.json"), os.path.join(".claude", "settings.local.json"),
    os.path.join(".codex", "hooks.json"), os.path.join(".codex", "config.toml"),
    os.path.join(".gemini", "settings.json"),
)

RECORDER = re.compile(r"(?:^|[\s;&|(/])(?:ledger-hook|python[0-9.]*\s+-m\s+ledger\.hooks)\b")
SQL_WRITE = re.compile(r"\b(?:insert|update|delete|drop|alter|replace|create|vacuum|attach)\b", re.I)


def handle(event, adapter):
    reason = check(event.get("tool_name"), event.get("tool_input"))
    return adapter.pretool_output(reason) if reason else None


def check(tool_name, tool_input):
    """Return a denial reason, or None when the call is fine."""
    if not isinstance(tool_input, dict):
        return None
    db = paths.db_path()
    targets = [db, db + "-wal", db + "-shm", db + "-journal"]
    if tool_name in WRITE_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("path") or ""
        if _same_file(path, targets):
            return _msg("writes to the evidence ledger database")
        if _is_hook_config(path):
            return _msg("edits the hook configuration that runs evidence-ledger")
        return None
    if tool_name in SHELL_TOOLS:
        command = tool_input.get("command") or tool_input.get("cmd") or ""
        if isinstance(command, list):
            command = " ".join(str(c) for c in command)
        if RECORDER.search(command):
            return _msg("runs the ledger's recording hook by hand (that forges evidence)")
        mentions_db = any(t in command for t in targets) or os.path.basename(db) in command and "sqlite" in command
        if mentions_db and (SQL_WRITE.search(command) or re.search(r"(?:>|\brm\b|\bmv\b|\bcp\b|\btee\b|\btruncate\b|\bdd\b)", command)):
            return _msg("modifies the evidence ledger database")
        if any(cfg in command for cfg in HOOK_CONFIGS) and re.search(r"(?:>|\bsed\s+-i|\brm\b|\bmv\b|\btee\b|\bjq\b.*>)", command):
            return _msg("changes the hook configuration that runs evidence-ledger")
    return None


def _same_file(path, targets):
    if not path:
        return False
    path = os.path.abspath(os.path.expanduser(path))
    return any(path == os.path.abspath(t) for t in targets)


def _is_hook_config(path):
    if not path:
        return False
    norm = os.path.normpath(path)
    return any(norm.endswith(os.sep + cfg) or norm == cfg for cfg in HOOK_CONFIGS)


def _msg(what):
    return (
        "evidence-ledger: this call %s, so it was not run. The ledger is the record of what your "
        "tools printed; it is read-only for the agent. To read it use `ledger show`, `ledger search` "
        "or `ledger check`. If the user wants the guard changed, ask them to do it." % what
    )
