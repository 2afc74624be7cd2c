"""The hook path imports the standard library only, and only what it needs.

In the style of click's own tests/test_imports.py: a fresh interpreter imports the hook modules,
runs one real payload end to end, and prints `sys.modules`. Every module outside the allowlist
is paid for on every tool call an agent makes; adding one should be a decision, so it fails here.
"""

import json
import os
import subprocess
import sys

import pytest

from hookrun import REPO, fixture_path

# -S: no site, as the installed hook runs (hooks.command), so the list is the interpreter's and
# ours, not whatever .pth files this machine has.
SCRIPT = """
import sys
sys.path.insert(0, %(repo)r)
import io, json
data = %(data)r
import ledger.hooks, ledger.hooks.record, ledger.store, ledger.render, ledger.redact, ledger.paths
import ledger.agents
for name in %(extra)r:
    __import__(name)
sys.stdin = io.TextIOWrapper(io.BytesIO(data))
ledger.hooks.main([%(agent)r])
sys.stdout.write("\\n" + json.dumps(sorted(sys.modules)))
"""

ALLOWED = {
    # the interpreter's own start-up
    "__main__", "_abc", "_codecs", "_collections_abc", "_frozen_importlib",
    "_frozen_importlib_external", "_imp", "_io", "_signal", "_thread", "_warnings", "_weakref",
    "abc", "builtins", "codecs", "encodings", "encodings.aliases", "encodings.utf_8", "io",
    "marshal", "posix", "sys", "zipimport", "_stat", "stat", "genericpath", "os", "os.path",
    "posixpath", "gc",  # built in: ledger.hooks.run turns the cyclic collector off
    # what the recording path uses
    "json", "json.decoder", "json.encoder", "json.scanner", "_json",
    "sqlite3", "sqlite3.dbapi2", "_sqlite3", "datetime", "_datetime", "time", "math",
    "hashlib", "_hashlib", "_blake2", "_sha256", "_sha2",
    "re", "re._casefix", "re._compiler", "re._constants", "re._parser", "_sre",
    "collections", "collections.abc", "_collections", "copyreg", "enum", "functools",
    "_functools", "itertools", "keyword", "operator", "_operator", "reprlib", "types",
    "warnings", "importlib", "importlib._bootstrap", "importlib._bootstrap_external",
    # the Stop path adds the rule packs (TOML) and Unicode-aware sentence splitting
    "tomllib", "tomllib._parser", "tomllib._re", "tomllib._types", "unicodedata", "string",
    "zlib", "binascii",  # the CRC-32 that guards the regex cache (ledger/diskcache.py)
    "_string", "contextlib", "__future__", "typing", "typing.io", "typing.re", "_typing",
}

FORBIDDEN = {
    "click", "pydantic", "sqlite_utils", "regex", "importlib.metadata", "dataclasses",
    "pathlib", "typing_extensions", "importlib.resources", "subprocess", "tempfile", "shutil",
    "logging", "argparse", "inspect", "ast", "email", "urllib", "zipfile", "tarfile", "ssl",
}


def _imported(tmp_path, agent, data, extra=()):
    script = SCRIPT % {"repo": REPO, "data": data, "agent": agent, "extra": list(extra)}
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
           "LEDGER_DB": str(tmp_path / "l.db"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    result = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True,
                            env=env, cwd=str(tmp_path), timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    modules = json.loads(result.stdout.decode().rsplit("\n", 1)[1])
    return set(modules), result


def _check(modules):
    ours = {m for m in modules if m == "ledger" or m.startswith("ledger.")}
    assert "ledger.cli" not in ours
    assert not modules & FORBIDDEN, sorted(modules & FORBIDDEN)
    assert sorted(modules - ours - ALLOWED) == []
    # Every name in the allowlist really is standard library (or built in).
    for name in modules - ours:
        top = name.split(".")[0]
        assert top in sys.stdlib_module_names or top in ("__main__",), name


def _agent_modules():
    here = os.path.join(REPO, "ledger", "agents")
    return ["ledger.agents." + f[:-3] for f in sorted(os.listdir(here))
            if f.endswith(".py") and f != "__init__.py"]


def test_post_tool_use_path_imports_only_the_allowlist(tmp_path):
    body = {
        "session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "echo hi"}, "tool_response": {"stdout": "hi", "stderr": ""},
        "cwd": "/p", "tool_use_id": "t1",
    }
    extra = _agent_modules()
    modules, result = _imported(tmp_path, "claude", json.dumps(body).encode(), extra)
    assert result.stderr == b""
    # It really ran: one row landed.
    import sqlite3

    conn = sqlite3.connect(str(tmp_path / "l.db"))
    assert conn.execute("SELECT output FROM evidence").fetchall() == [("hi",)]
    conn.close()
    _check(modules)
    # The recording path does not pay for the detector or the guard.
    assert not {m for m in modules if m.startswith("ledger.detect")}
    assert "tomllib" not in modules and "unicodedata" not in modules
    # Once the ledger exists (no migration), recording loads neither OpenSSL (hashlib) nor the
    # datetime adapters sqlite3/dbapi2.py registers.
    modules, _ = _imported(tmp_path, "claude", json.dumps(body).encode())
    assert not modules & {"hashlib", "_hashlib", "datetime", "sqlite3.dbapi2"}, sorted(modules)


def test_real_capture_end_to_end_imports_only_the_allowlist(tmp_path):
    path = fixture_path("cc-2.1.328", "hook-payloads", "PostToolUseFailure.jsonl")
    if not os.path.exists(path):
        pytest.skip("capture not present")
    with open(path, "rb") as f:
        data = f.read().splitlines()[0]
    modules, _ = _imported(tmp_path, "claude", data)
    _check(modules)


def test_stop_path_imports_only_the_allowlist(tmp_path):
    if not os.path.exists(os.path.join(REPO, "ledger", "hooks", "stop.py")):
        pytest.skip("no Stop hook yet")
    body = {"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": False,
            "last_assistant_message": "The loss is NaN because the learning rate is too high.",
            "cwd": "/p"}
    modules, _ = _imported(tmp_path, "claude", json.dumps(body).encode(), ["ledger.hooks.stop"])
    _check(modules)
    # The second run reads the compiled regexes the first one cached (ledger/diskcache.py).
    assert os.listdir(str(tmp_path / ".cache" / "evidence-ledger"))
    modules, _ = _imported(tmp_path, "claude", json.dumps(body).encode(), ["ledger.hooks.stop"])
    _check(modules)
    # Once the ledger exists (no migration), a Stop loads neither OpenSSL nor datetime.
    assert not modules & {"hashlib", "_hashlib", "datetime", "sqlite3.dbapi2"}, sorted(modules)
    # Nor math (a shared library) where its SQLite has ln(): the logarithms that rank the
    # entries a block suggests come from there (store._logs). The claim is uncited, and two
    # recorded entries share its terms: this Stop ranks them.
    if store_has_ln():
        from ledger import store

        conn = store.connect(str(tmp_path / "l.db"))
        try:
            for output in ("step 10 loss=nan", "the learning rate is 3e-3, too high for step 1"):
                store.record(conn, {"session_id": "s", "tool_name": "Bash", "command": "tail log",
                                    "output": output})
        finally:
            conn.close()
        fresh = dict(body, prompt_id="another turn")  # not let through by the cap on blocks
        modules, result = _imported(tmp_path, "claude", json.dumps(fresh).encode(), ["ledger.hooks.stop"])
        assert b"E2  Bash: tail log" in result.stdout, result.stdout
        assert "math" not in modules, sorted(modules)


def store_has_ln():
    import sqlite3

    try:
        sqlite3.connect(":memory:").execute("SELECT ln(2.0)")
    except sqlite3.Error:
        return False
    return True


def test_with_site_the_hook_adds_nothing_outside_the_allowlist(tmp_path):
    # The way agents run it: site enabled. Compare against a bare interpreter's own modules.
    env = dict(os.environ, LEDGER_DB=str(tmp_path / "l.db"), PYTHONPATH=REPO)
    code = "import sys, json; print(json.dumps(sorted(sys.modules)))"
    bare = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                         env=env, check=True).stdout))
    hook = (
        "import io, sys, json\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'{\"session_id\":\"s\",\"hook_event_name\":"
        "\"PostToolUse\",\"tool_name\":\"Read\",\"tool_response\":\"x\"}'))\n"
        "import ledger.hooks\nledger.hooks.main(['claude'])\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    after = set(json.loads(subprocess.run([sys.executable, "-c", hook], capture_output=True,
                                          env=env, check=True).stdout))
    added = {m for m in after - bare if not m.startswith("ledger")}
    assert not added & FORBIDDEN
    assert sorted(added - ALLOWED) == []


def test_sqlite_loads_without_functools_and_functools_stays_real(tmp_path):
    # ledger.store gives _sqlite3 a stand-in functools holding only lru_cache (its statement
    # cache), built on functools' own C cache: collections and the rest stay unloaded, the
    # statement cache works, and a later `import functools` is the real module.
    code = (
        "import sys\n"
        "sys.path.insert(0, %r)\n"
        "import ledger.store as store\n"
        "assert 'functools' not in sys.modules and 'collections' not in sys.modules, sorted(sys.modules)\n"
        "conn = store.connect(%r)\n"
        "for _ in range(3):\n"
        "    assert conn.execute('SELECT count(*) FROM evidence').fetchone()[0] == 0\n"
        "conn.close()\n"
        "import functools\n"
        "assert functools.reduce(lambda a, b: a + b, [1, 2, 3]) == 6 and hasattr(functools, 'partial')\n"
        "print('ok')\n"
    ) % (REPO, str(tmp_path / "l.db"))
    result = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, timeout=60,
                            env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == "ok"
