"""The PreToolUse protector, in both directions.

Guards: the rules in ledger/hooks/protect.py that deny writes to the ledger (db, WAL, SHM),
edits of the hook settings, and running the recorder by hand. The `allowed` cases guard the
other promise: ordinary commands, and every way of *reading* the ledger, are never denied
(a guard that gets in the way is uninstalled). Remove a rule and its `denied` cases fail;
make a rule match on mere mentions and the `allowed` cases fail.
"""

import json
import os
import sqlite3

import pytest

from hookrun import REPO, run_hook
from ledger.hooks import protect


@pytest.fixture
def db(db_path):
    os.makedirs(os.path.dirname(db_path), exist_ok=True)
    sqlite3.connect(db_path).close()
    return db_path


def bash(command, cwd="/home/dev/project"):
    return protect.check("Bash", {"command": command}, cwd)


def denied(reason):
    return reason is not None and reason.startswith("evidence-ledger: this call")


DENIED_SHELL = [
    # Writes to the database through sqlite3.
    "sqlite3 {db} \"delete from evidence where num = 3\"",
    "sqlite3 {db} 'UPDATE evidence SET output = \"fine\" WHERE num = 2'",
    "sqlite3 {db} \"insert into evidence (session_id, recorded_at) values ('s', 1)\"",
    "sqlite3 {db} 'drop table evidence'",
    "sqlite3 {db} 'pragma journal_mode=delete'",
    "sqlite3 {db} .read forge.sql",
    "sqlite3 {db}",
    "sqlite3 {db} < forge.sql",
    "sqlite3 \"$(ledger path)\" 'delete from evidence'",
    "sqlite3 $LEDGER_DB 'delete from evidence'",
    "sqlite-utils insert {db} evidence rows.json",
    # Deleting, moving, overwriting, truncating.
    "rm {db}",
    "rm -f {db}-wal {db}-shm",
    "rm -rf {dir}",
    "rm -rf {dir}/*",
    "mv {db} /tmp/gone.db",
    "cp /tmp/forged.db {db}",
    "ln -sf /tmp/forged.db {db}",
    "dd if=/dev/zero of={db} bs=1 count=10",
    ": > {db}",
    "echo x >> {db}-wal",
    "truncate -s 0 {db}",
    "chmod 000 {db}",
    "cat /tmp/forged.db | tee {db}",
    "cd {dir} && rm ledger.db",
    "D={dir}; rm -rf $D",
    "sudo rm {db}",
    "bash -c 'rm {db}'",
    "sh -c \"sqlite3 {db} 'delete from evidence'\"",
    "python3 -c \"import sqlite3; sqlite3.connect('{db}').execute('delete from evidence')\"",
    "ledger gc --older-than 0s",
    "ledger uninstall",
    # The recorder by hand.
    "echo '{{\"session_id\":\"s\",\"hook_event_name\":\"PostToolUse\"}}' | ledger-hook claude",
    "ledger-hook claude < forged.json",
    "/usr/local/bin/ledger-hook codex < forged.json",
    "python -m ledger.hooks claude < forged.json",
    "python3.11 -m ledger.hooks gemini",
    "env LEDGER_DB=/tmp/x.db python3 -m ledger.hooks claude",
    "cat forged.json | ~/.claude/plugins/evidence-ledger/hooks/run claude",
    "sh ./hooks/run claude < forged.json",
    "/opt/venv/bin/python /opt/venv/lib/python3.11/site-packages/ledger/hooks/entry.py claude < forged.json",
    "python3 -S ledger/hooks/entry.py codex",
    "cd ~/src/evidence-ledger && python3 ./ledger/hooks/entry.py claude < f.json",
    "python3 -c 'from ledger import store; c = store.connect(); store.record(c, {{}})'",
    "python3 - <<'EOF'\nfrom ledger.hooks import record\nrecord.handle({{}})\nEOF",
    # Hook configuration.
    "echo '{{}}' > ~/.claude/settings.json",
    "sed -i 's/ledger-hook/true/' .claude/settings.json",
    "rm .claude/settings.local.json",
    "mv ~/.codex/hooks.json /tmp/",
    "cp /dev/null ~/.gemini/settings.json",
    "jq 'del(.hooks)' ~/.claude/settings.json > /tmp/s && mv /tmp/s ~/.claude/settings.json",
    "printf 'mode = \"monitor\"\\n' > .evidence-ledger/config.toml",
    "python3 -c \"import json; json.dump({{}}, open('.claude/settings.json', 'w'))\"",
    "git checkout .claude/settings.json",
]

ALLOWED_SHELL = [
    # Reading the ledger, every way an agent might.
    "ledger show",
    "ledger show E12",
    "ledger search 'loss=nan'",
    "ledger check",
    "ledger verify --session abc",
    "ledger export --session abc",
    "ledger gc --dry-run",
    "ledger path",
    "ledger probe --run-dir runs/exp7",
    "sqlite3 {db} 'select count(*) from evidence'",
    "sqlite3 {db} \"select output from evidence where output like '%update%' or command like '%delete%'\"",
    "sqlite3 -readonly {db}",
    "sqlite3 {db} .tables .schema",
    "sqlite3 'file:{db}?mode=ro' 'select 1'",
    "sqlite-utils tables {db}",
    "sqlite-utils query {db} 'select * from evidence limit 1'",
    "cp {db} /tmp/copy.db",
    "ls -la {dir}",
    "du -h {db}",
    "cat ~/.claude/settings.json",
    "jq .hooks ~/.claude/settings.json",
    "grep -n ledger-hook ~/.claude/settings.json",
    "which ledger-hook",
    "ledger-hook --help 2>&1 | head -1; echo done" if False else "type ledger-hook",
    # Ordinary work that merely resembles the rules.
    "rm -rf build/ dist/ *.egg-info",
    "rm -rf /tmp/scratch && mkdir /tmp/scratch",
    "python -m pytest -q tests/",
    "python3 train.py --lr 3e-4 > runs/exp7/train.log 2>&1",
    "sqlite3 app.db 'delete from users where id = 3'",
    "cp config.example.json config.json",
    "sed -i 's/lr=1e-3/lr=3e-4/' config.yaml",
    "echo '{{\"a\": 1}}' > settings.json",
    "mv ledger.db.bak ledger.db",
    "git commit -m 'delete the update path; insert a hook'",
    "grep -rn 'ledger.hooks' src/",
    "python3 -c 'import json; print(json.dumps({{\"x\": 1}}))'",
    "nvidia-smi --query-gpu=memory.used --format=csv",
    "tail -n 50 logs/train.log | grep -i nan",
    "cat hooks/run.py",
    "cat ledger/hooks/entry.py",
    "python3 -m py_compile ledger/hooks/entry.py",
    "ls ~/.claude/",
    "echo 'rm ledger.db' # just text",
    "export LR=3e-4 && python3 train.py",
    "for f in runs/*/train.log; do tail -1 \"$f\"; done",
    "docker run --rm -v $PWD:/w img python -m pytest",
]


@pytest.mark.parametrize("command", DENIED_SHELL)
def test_shell_writes_to_ledger_config_or_recorder_are_denied(command, db):
    folder = os.path.dirname(db)
    line = command.format(db=db, dir=folder)
    assert denied(bash(line)), line


@pytest.mark.parametrize("command", ALLOWED_SHELL)
def test_reading_and_ordinary_commands_are_allowed(command, db):
    folder = os.path.dirname(db)
    line = command.format(db=db, dir=folder)
    assert bash(line) is None, line


def test_relative_path_to_the_ledger_is_resolved_against_cwd(db):
    folder = os.path.dirname(db)
    assert denied(bash("rm ledger.db", cwd=folder))
    assert denied(bash("sqlite3 ./ledger.db 'delete from evidence'", cwd=folder))
    assert bash("rm ledger.db", cwd="/home/dev/project") is None


def test_symlink_to_the_ledger_is_seen_through(db, tmp_path):
    link = tmp_path / "innocent.db"
    link.symlink_to(db)
    assert denied(protect.check("Write", {"file_path": str(link), "content": "x"}, str(tmp_path)))
    assert denied(bash("rm -f %s; cp /tmp/f.db %s" % (tmp_path / "x", link)))


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_write_tools_on_the_database_files_are_denied(suffix, db):
    for tool, body in [("Write", {"content": "x"}), ("Edit", {"old_string": "a", "new_string": "b"}),
                       ("write_file", {"content": "x"}), ("replace", {"old_string": "a", "new_string": "b"})]:
        assert denied(protect.check(tool, dict(body, file_path=db + suffix))), (tool, suffix)


def test_write_tools_elsewhere_are_allowed(db, tmp_path):
    assert protect.check("Write", {"file_path": str(tmp_path / "notes.md"), "content": "x"}) is None
    assert protect.check("Edit", {"file_path": "train.py", "old_string": "lr", "new_string": "lr2"},
                         "/home/dev/project") is None
    assert protect.check("Write", {"file_path": os.path.dirname(db) + "/../notes.txt", "content": "x"}) is None


def _settings(home_or_project, hooks=True, extra=None):
    path = os.path.join(home_or_project, ".claude", "settings.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = {"permissions": {"allow": ["Bash(ls:*)"]}}
    if hooks:
        data["hooks"] = {"Stop": [{"hooks": [{"type": "command", "command": "/venv/bin/ledger-hook claude"}]}]}
    data.update(extra or {})
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
    return path


def test_settings_edits_that_drop_our_hooks_are_denied(tmp_path):
    path = _settings(str(tmp_path))
    data = json.load(open(path))
    without = dict(data)
    without.pop("hooks")
    assert denied(protect.check("Write", {"file_path": path, "content": json.dumps(without)}))
    assert denied(protect.check("Edit", {"file_path": path, "old_string": '"command": "/venv/bin/ledger-hook claude"',
                                         "new_string": '"command": "true"'}))
    assert denied(protect.check("Edit", {"file_path": path, "old_string": '"permissions": {',
                                         "new_string": '"disableAllHooks": true, "permissions": {'}))
    assert denied(protect.check("MultiEdit", {"file_path": path, "edits": [
        {"old_string": "Bash(ls:*)", "new_string": "Bash(ls:*)\", \"Bash(git:*)"},
        {"old_string": '"hooks": {', "new_string": '"_hooks": {'}]}))


def test_settings_edits_that_keep_our_hooks_are_allowed(tmp_path):
    # Adding a permission is everyday work; the guard's entries stay as they were.
    path = _settings(str(tmp_path))
    data = json.load(open(path))
    data["permissions"]["allow"].append("Bash(git:*)")
    assert protect.check("Write", {"file_path": path, "content": json.dumps(data, indent=2)}) is None
    assert protect.check("Edit", {"file_path": path, "old_string": '"Bash(ls:*)"',
                                  "new_string": '"Bash(ls:*)", "Bash(git:*)"'}) is None


def test_codex_and_gemini_settings_and_guard_config(tmp_path):
    for rel in (".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json"):
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text('{"hooks": {"Stop": [{"command": "ledger-hook x"}]}}')
        assert denied(protect.check("Write", {"file_path": str(target), "content": "{}"})), rel
        assert denied(bash("rm %s" % target)), rel
    cfg = tmp_path / ".evidence-ledger" / "config.toml"
    assert denied(protect.check("Write", {"file_path": str(cfg), "content": 'mode = "monitor"'}))
    assert denied(protect.check("apply_patch", {"input": "*** Begin Patch\n*** Update File: %s\n@@\n-a\n+b\n*** End Patch" % cfg}))


def test_apply_patch_on_the_ledger_is_denied_and_elsewhere_allowed(db):
    patch = "*** Begin Patch\n*** Add File: %s\n+x\n*** End Patch" % db
    assert denied(protect.check("apply_patch", {"input": patch}))
    assert protect.check("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** End Patch"}) is None


def test_malformed_inputs_do_not_deny():
    assert protect.check("Bash", None) is None
    assert protect.check("Bash", {"command": None}) is None
    assert protect.check("Bash", {"command": 42}) is None
    assert protect.check("Bash", {"command": "echo 'unterminated"}) is None
    assert protect.check("Write", {"file_path": None}) is None
    assert protect.check("Unknown", {"command": "rm -rf /"}) is None


# Through the real hook process: what each agent receives.

def _pre(agent, tool, tool_input, db):
    event = {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}[agent]
    result = run_hook({"session_id": "s", "hook_event_name": event, "tool_name": tool,
                       "tool_input": tool_input, "cwd": REPO}, agent=agent)
    assert result.returncode == 0
    out = result.stdout.decode().strip()
    return json.loads(out) if out else None


def test_claude_gets_a_permission_deny_with_the_reason(db):
    out = _pre("claude", "Bash", {"command": "sqlite3 %s 'delete from evidence'" % db}, db)
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse" and spec["permissionDecision"] == "deny"
    assert "ledger show" in spec["permissionDecisionReason"]
    assert _pre("claude", "Bash", {"command": "sqlite3 %s 'select 1'" % db}, db) is None


@pytest.mark.parametrize("agent, tool", [("codex", "Bash"), ("gemini", "run_shell_command")])
def test_other_agents_get_a_deny(agent, tool, db):
    out = _pre(agent, tool, {"command": "rm -f %s" % db}, db)
    assert out and "evidence-ledger" in json.dumps(out)
    assert _pre(agent, tool, {"command": "ledger show"}, db) is None


def test_the_stop_hooks_cache_is_protected_like_the_rules(tmp_path):
    # A crafted file in the cache (ledger/diskcache.py) could weaken the detector's regexes.
    from ledger import diskcache, paths

    cache = diskcache.cache_file()
    assert cache.startswith(paths.cache_dir() + os.sep)
    assert denied(protect.check("Write", {"file_path": cache, "content": "x"}))
    assert denied(bash("cp /tmp/forged.cache %s" % cache))
    assert denied(bash("printf x > %s" % cache))
    assert denied(bash("python3 -c pass; tee %s < /tmp/forged" % cache))
    assert protect.check("Bash", {"command": "cat %s | wc -c" % cache}) is None
    assert protect.check("Bash", {"command": "ls -la %s" % paths.cache_dir()}) is None
    other = os.path.join(os.path.dirname(paths.cache_dir()), "pip", "x")
    assert protect.check("Write", {"file_path": other, "content": "x"}) is None
