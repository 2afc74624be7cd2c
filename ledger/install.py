"""`ledger install`, `ledger uninstall` and `ledger doctor`, for every supported agent.

The per-agent details (which files, which events, trust gates) live in ledger/installers/;
this module picks the agents, and doctor adds the checks that are not about any one agent:
config, ledger file, and a real run of the hook.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from ledger.installers import common

AGENTS = ("claude", "codex", "gemini")
# Where each agent keeps its settings, to find the agents present for `--agent all`.
AGENT_HOMES = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini"}


def installer(agent):
    return importlib.import_module("ledger.installers." + agent)


def available_agents():
    """The agents whose installers exist (Codex and Gemini arrive as separate modules)."""
    found = []
    for agent in AGENTS:
        try:
            installer(agent)
        except ImportError:
            continue
        found.append(agent)
    return found


def agent_present(agent, project_dir):
    """Is this agent used here: its settings folder exists (home, $CODEX_HOME, project) or it is on PATH."""
    homes = [os.path.join(os.path.expanduser("~"), AGENT_HOMES[agent]),
             os.path.join(project_dir, AGENT_HOMES[agent])]
    if agent == "codex" and os.environ.get("CODEX_HOME"):
        homes.append(os.environ["CODEX_HOME"])
    return any(os.path.isdir(h) for h in homes) or bool(shutil.which(agent))


def agents_for(choice, project_dir):
    if choice != "all":
        if choice not in available_agents():
            raise common.InstallError("no installer for agent %r" % choice)
        return [choice]
    present = [a for a in available_agents() if agent_present(a, project_dir)]
    return present or ["claude"]


def install(agent, scope, project_dir, skill=True):
    messages = []
    for name in agents_for(agent, project_dir):
        mod = installer(name)
        messages.extend(mod.install(scope, project_dir, common.hook_command(name), skill=skill))
    return messages


def uninstall(agent, scope, project_dir):
    messages = []
    for name in agents_for(agent, project_dir):
        messages.extend(installer(name).uninstall(scope, project_dir))
    return messages


def doctor(project_dir):
    """Every check, as (level, message); level is ok, warn or error."""
    from ledger import config as config_mod
    from ledger import paths, store

    checks = []
    for name in available_agents():
        if name != "claude" and not agent_present(name, project_dir):
            continue  # not used on this machine: no news is good news
        try:
            checks.extend(installer(name).doctor(project_dir))
        except Exception as exc:  # one broken installer must not hide the other checks
            checks.append(("error", "%s: doctor failed: %s" % (name, exc)))

    try:
        config, used = config_mod.load(project_dir)
        checks.append(("ok", "config: mode=%s, max_blocks=%s, blocking %s (%s)" % (
            config["mode"], config["max_blocks"], "+".join(config["block_kinds"]),
            ", ".join(used) if used else "defaults; no config file")))
    except config_mod.ConfigError as exc:
        checks.append(("error", "config is broken and the Stop guard is off until it is fixed: %s" % exc))

    if os.environ.get("LEDGER_DISABLE", "").strip() not in ("", "0", "false", "no"):
        checks.append(("warn", "LEDGER_DISABLE is set: every hook does nothing in this environment"))

    db = paths.db_path()
    if os.path.exists(db):
        try:
            conn = store.connect(db, readonly=True)
            count = conn.execute("SELECT COUNT(*) FROM evidence").fetchone()[0]
            sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
            ok = conn.execute("PRAGMA quick_check").fetchone()[0]
            conn.close()
            level = "ok" if ok == "ok" else "error"
            checks.append((level, "ledger: %s (%d entries, %d sessions, integrity %s)" % (db, count, sessions, ok)))
        except Exception as exc:
            checks.append(("error", "ledger: %s cannot be read: %s" % (db, exc)))
    else:
        folder = os.path.dirname(db)
        existing = folder
        while existing and not os.path.isdir(existing):  # the first call creates the missing folders
            existing = os.path.dirname(existing)
        writable = os.access(existing or ".", os.W_OK)
        checks.append(("ok" if writable else "error",
                       "ledger: %s (not created yet; the first tool call creates it)%s" % (
                           db, "" if writable else " but its folder is not writable")))

    checks.extend(ledger_health(db))
    checks.append(hook_selftest())
    return checks


def ledger_health(db):
    """The guard's own faults since install, damaged files kept aside, tampering, disk space."""
    import glob
    import time

    from ledger import faults, store, verify

    checks = []
    recent = [e for e in faults.read(db) if e.get("kind") != "reported"
              and (e.get("t") or 0) > time.time() - 14 * 86400]
    kinds = []
    for entry in recent:
        if entry["kind"] not in kinds:
            kinds.append(entry["kind"])
    for kind in kinds:
        same = [e for e in recent if e["kind"] == kind]
        last = same[-1]
        checks.append(("warn", "fault: %s %d time(s) in the last 14 days, last at %s: %s Last error: %s" % (
            kind, len(same), time.strftime("%Y-%m-%d %H:%M", time.localtime(last.get("t") or 0)),
            faults.EXPLAIN.get(kind, faults.EXPLAIN["error"]), last.get("detail", ""))))
    for kept in sorted(glob.glob(glob.escape(db) + ".corrupt-*")):
        if kept.endswith(("-wal", "-shm", "-journal")):
            continue
        checks.append(("warn", "damaged ledger kept at %s (%d bytes): a new ledger was started in its "
                               "place; recover with `sqlite3 %s .recover | sqlite3 recovered.db`, or "
                               "delete it" % (kept, os.path.getsize(kept), kept)))
    if os.path.exists(db):
        try:
            conn = store.connect(db, readonly=True)
            try:
                problems, checked = verify.verify(conn, integrity=False)
            finally:
                conn.close()
            if problems:
                summary = ", ".join(sorted({p.kind for p in problems}))
                checks.append(("error", "tampering: %d problem(s) in %d entries (%s); the Stop guard ignores "
                                        "the entries that fail. Details: `ledger verify`" % (
                                            len(problems), checked, summary)))
            else:
                checks.append(("ok", "ledger verify: %d entries, hash chains intact" % checked))
        except Exception as exc:
            checks.append(("error", "ledger verify could not run: %s" % exc))
        size = os.path.getsize(db) + (os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0)
        if size > 1024 ** 3:
            checks.append(("warn", "the ledger is %.1f GB: `ledger gc --older-than 30d --max-size 1G` "
                                   "shrinks it" % (size / 1024 ** 3)))
    folder = os.path.dirname(db)
    if os.path.isdir(folder):
        try:
            free = shutil.disk_usage(folder).free
            if free < 100 * 1024 ** 2:
                checks.append(("warn", "only %d MB free where the ledger lives (%s): recording fails "
                                       "when the disk fills" % (free // 1024 ** 2, folder)))
        except OSError:
            pass
    if os.environ.get("LEDGER_BUSY_TIMEOUT_MS"):
        checks.append(("warn", "LEDGER_BUSY_TIMEOUT_MS=%s overrides the %d ms wait for the ledger's "
                               "write lock" % (os.environ["LEDGER_BUSY_TIMEOUT_MS"], store.BUSY_TIMEOUT_MS)))
    return checks


def hook_selftest():
    """Run the installed hook command on a sample payload against a scratch ledger."""
    command = common.hook_command("claude")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LEDGER_DB=os.path.join(tmp, "selftest.db"))
        env.pop("LEDGER_DISABLE", None)
        payload = json.dumps({
            "session_id": "doctor-selftest", "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "echo selftest"}, "tool_response": {"stdout": "selftest", "stderr": ""},
        })
        try:
            result = subprocess.run(command, shell=True, input=payload.encode(), env=env,
                                    capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            return ("error", "hook: `%s` did not finish within 30 s" % command)
        if result.returncode != 0:
            return ("error", "hook: `%s` exited %d: %s" % (command, result.returncode,
                                                          result.stderr.decode(errors="replace").strip()[:300]))
        try:
            from ledger import store

            conn = store.connect(env["LEDGER_DB"], readonly=True)
            count = conn.execute("SELECT COUNT(*) FROM evidence").fetchone()[0]
            conn.close()
        except Exception as exc:
            return ("error", "hook ran but recorded nothing: %s" % exc)
        if count != 1:
            return ("error", "hook ran but recorded %d entries instead of 1" % count)
    return ("ok", "hook: `%s` runs and records (python %s)" % (command, sys.version.split()[0]))
