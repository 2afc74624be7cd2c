"""PreToolUse: keep the agent's hands off the ledger and off the guard's own wiring.

An agent that writes to the database, edits the hook settings or pipes a payload into the
recorder by hand is forging evidence or switching the guard off. Reading stays allowed:
`ledger show`, `ledger search`, `ledger check`, `ledger verify` and a read-only `sqlite3`
query are how an agent finds ids to cite, so they must never be denied.

A guard that gets in the way gets uninstalled, so every rule looks at what a command does to
a protected file (its position in the command, the redirections, the SQL it runs), never at a
mere mention: `grep ledger-hook settings.json` and `cp ledger.db /tmp/copy.db` are fine.
This is a tripwire against an agent taking the easy way, not a sandbox: a shell can always
hide what it does (see the README's "What it protects against").
"""

import fnmatch
import json
import os
import re
import shlex

from ledger import paths

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace", "edit",
               "apply_patch")
SHELL_TOOLS = ("Bash", "PowerShell", "shell", "exec_command", "local_shell", "run_shell_command")

# Settings files that hold the hooks, wherever the project is; editing them can turn the guard off.
HOOK_CONFIGS = (
    ".claude/settings.json", ".claude/settings.local.json",
    ".codex/hooks.json", ".codex/config.toml",
    ".gemini/settings.json",
)
# Our own config can switch blocking off (mode = "monitor") or weaken the rules.
GUARD_CONFIG_DIR = ".evidence-ledger"
MARKERS = ("ledger-hook", "ledger.hooks", "hooks/run", "hooks/entry.py")

PREFIXES = ("sudo", "env", "exec", "nohup", "time", "command", "builtin", "nice", "ionice",
            "stdbuf", "timeout", "xargs", "doas", "chronic")
INTERPRETERS = re.compile(r"^(?:python[0-9.]*|pypy[0-9.]*|perl|ruby|node|deno|bun|php|lua|Rscript|julia)$")
SHELLS = ("sh", "bash", "zsh", "dash", "ksh", "fish", "pwsh", "powershell")
DESTROY = ("rm", "unlink", "shred", "truncate", "chmod", "chown", "chattr", "rmdir", "srm")
SQL_WRITE = re.compile(
    r"\b(?:insert|update|delete|drop|alter|replace|create|vacuum|attach|detach|reindex|upsert)\b"
    r"|\bpragma\s+\w+\s*=|^\s*\.(?:import|restore|read|clone|save|backup|shell|system|once|output)\b",
    re.I | re.M)
CODE_WRITE = re.compile(
    r"open\s*\([^)]*['\"][^'\"]*[wa+x][^'\"]*['\"]|\.write|write_text|write_bytes|unlink|remove|"
    r"rename|replace|rmtree|truncate|move|copyfile|copy\b|execute|writeFile|appendFile|rmSync|"
    r"\bunlink\b|>\s*\S", re.I)
SEPARATORS = {";", "&&", "||", "|", "&", "\n", "(", ")", "|&", ";;", "{", "}", "!"}
SQLITE_UTILS_READ = ("tables", "views", "rows", "schema", "indexes", "triggers", "search", "dump",
                     "analyze-tables", "memory", "plugins", "--help", "--version")
REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>", "1>", "2>", "1>>", "2>>"}


def handle(event, adapter):
    reason = check(event.get("tool_name"), event.get("tool_input"), event.get("cwd"))
    return adapter.pretool_output(reason) if reason else None


def check(tool_name, tool_input, cwd=None):
    """Return a denial reason, or None when the call is fine."""
    if not isinstance(tool_input, dict):
        return None
    cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    if tool_name in WRITE_TOOLS:
        return _check_write(tool_name, tool_input, cwd)
    if tool_name in SHELL_TOOLS:
        command = tool_input.get("command") or tool_input.get("cmd") or ""
        if isinstance(command, list):
            command = " ".join(shlex.quote(str(c)) for c in command)
        if not isinstance(command, str):
            return None
        return Shell(cwd).check(command)
    return None


# Protected files ---------------------------------------------------------------------------

def ledger_files():
    db = paths.db_path()
    return [db, db + "-wal", db + "-shm", db + "-journal", db + ".faults", db + ".lock"]


def ledger_dir():
    return os.path.dirname(paths.db_path())


def _norm(path, cwd):
    path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    path = os.path.normpath(path)
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _ledger_targets():
    out = set()
    for target in ledger_files():
        out.add(os.path.normpath(target))
        try:
            out.add(os.path.realpath(target))
        except (OSError, ValueError):
            pass
    return out


def is_ledger_file(path, cwd):
    if not path:
        return False
    norm = _norm(path, cwd)
    targets = _ledger_targets()
    if norm in targets or os.path.normpath(os.path.join(cwd, os.path.expanduser(path))) in targets:
        return True
    # A glob that would match the ledger (rm ~/.local/share/evidence-ledger/*).
    if any(ch in path for ch in "*?["):
        pattern = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
        return any(fnmatch.fnmatchcase(t, pattern) for t in targets)
    return False


def holds_ledger(path, cwd):
    """The path is the ledger's folder or one above it (rm -r, mv of the folder)."""
    if not path:
        return False
    norm = _norm(path, cwd).rstrip(os.sep) or os.sep
    folder = os.path.realpath(ledger_dir())
    return folder == norm or folder.startswith(norm + os.sep) or norm == os.sep


def is_hook_config(path, cwd):
    if not path:
        return False
    norm = _norm(path, cwd).replace(os.sep, "/")
    plain = os.path.normpath(os.path.join(cwd, os.path.expanduser(path))).replace(os.sep, "/")
    for candidate in (norm, plain):
        if any(candidate.endswith("/" + cfg) for cfg in HOOK_CONFIGS):
            return True
        if "/%s/" % GUARD_CONFIG_DIR in candidate + "/" and not candidate.endswith("/" + GUARD_CONFIG_DIR + "/.gitignore"):
            return True
        user_cfg = os.path.realpath(paths.user_config_dir()).replace(os.sep, "/")
        if candidate == user_cfg or candidate.startswith(user_cfg + "/"):
            return True
        if _in_cache(candidate):
            return True
        plugin = os.environ.get("CLAUDE_PLUGIN_ROOT")
        if plugin:
            root = os.path.realpath(plugin).replace(os.sep, "/")
            if candidate in (root + "/hooks/hooks.json", root + "/hooks/run"):
                return True
    return False


def _in_cache(candidate):
    # The Stop hook's cache (diskcache.py) holds compiled rule regexes: a crafted file there could
    # weaken the detector as surely as an edited rule pack.
    cache = os.path.realpath(paths.cache_dir()).replace(os.sep, "/")
    return candidate == cache or candidate.startswith(cache + "/")


# Write / Edit tools ------------------------------------------------------------------------

def _check_write(tool_name, tool_input, cwd):
    targets = []
    for key in ("file_path", "path", "notebook_path", "filePath", "absolute_path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            targets.append(value)
    for value in tool_input.values():  # apply_patch: the paths are inside the patch text
        if isinstance(value, str) and "*** " in value:
            targets += re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$", value, re.M)
            targets += re.findall(r"^\*\*\* Move to: (.+?)\s*$", value, re.M)
    for path in targets:
        if is_ledger_file(path, cwd):
            return _msg("writes to the evidence ledger database")
        if is_hook_config(path, cwd) and _weakens_config(tool_name, tool_input, _norm(path, cwd)):
            return _msg("edits the hook configuration that runs evidence-ledger")
    return None


def _weakens_config(tool_name, tool_input, path):
    """Settings files hold more than our hooks; allow edits that leave our entries alone."""
    if (GUARD_CONFIG_DIR in path.split(os.sep) or path.startswith(os.path.realpath(paths.user_config_dir()))
            or _in_cache(path.replace(os.sep, "/"))):
        return True  # the guard's own config, rules and their cache: any change can switch blocking off
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            current = f.read()
    except OSError:
        current = ""
    if tool_name in ("Write", "write_file"):
        new = tool_input.get("content")
        if not isinstance(new, str):
            return True
        return _lost_markers(current, new) or _disables(new)
    edits = tool_input.get("edits") if isinstance(tool_input.get("edits"), list) else [tool_input]
    for edit in edits:
        if not isinstance(edit, dict):
            return True
        old = edit.get("old_string", edit.get("old_str", ""))
        new = edit.get("new_string", edit.get("new_str", edit.get("new_source", "")))
        old, new = str(old or ""), str(new or "")
        if any(m in old for m in MARKERS) or re.search(r'"hooks"|\bhooks\b', old) or _disables(new):
            return True
        if tool_name == "apply_patch" or not old:
            return any(m in current for m in MARKERS)
    return False


def _script_of(args):
    """The script an interpreter's arguments run, or "" (`-c`, `-m`, stdin)."""
    args = iter(args)
    for arg in args:
        if arg in ("-c", "-m") or arg.startswith(("-c", "-m")) and not arg.startswith("--"):
            return ""
        if arg in ("-W", "-X"):
            next(args, None)
        elif arg == "-" or not arg.startswith("-"):
            return arg
    return ""


def _is_hook_file(word):
    """The plugin's wrapper or the file installed hooks run (`python .../ledger/hooks/entry.py`)."""
    word = word.replace(os.sep, "/")
    return word.endswith("hooks/run") or word.endswith("hooks/entry.py")


def _lost_markers(current, new):
    return any(m in current and m not in new for m in MARKERS) or \
        current.count("ledger") > new.count("ledger") and any(m in current for m in MARKERS)


def _disables(text):
    return bool(re.search(r'disableAllHooks"?\s*[:=]\s*true|codex_hooks\s*=\s*false|"enabled"\s*:\s*false',
                          text, re.I))


# Shell commands ----------------------------------------------------------------------------

class Shell:
    """Just enough of a shell reader to see which program each simple command runs, its
    arguments and its redirections, following `cd`, `VAR=...` and `sh -c '...'`."""

    def __init__(self, cwd, depth=0):
        self.cwd = cwd
        self.vars = {"HOME": os.path.expanduser("~"), "LEDGER_DB": paths.db_path()}
        self.depth = depth

    def check(self, command):
        command = self._substitute(command)
        try:
            lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
            lexer.whitespace_split = True
            lexer.commenters = ""
            tokens = list(lexer)
        except ValueError:
            tokens = command.split()
        for words, redirects in self._simple_commands(tokens):
            reason = self._check_simple(words, redirects)
            if reason:
                return reason
        return None

    def _substitute(self, command):
        # $(ledger path) and `ledger path` name the ledger without spelling it out.
        db = shlex.quote(paths.db_path())
        command = re.sub(r"\$\(\s*ledger\s+path\s*\)|`\s*ledger\s+path\s*`", db, command)
        command = command.replace("\r\n", "\n")
        # A here-document is the program's input: hand it over as one quoted argument, so that
        # `python3 - <<EOF ... EOF` and `sqlite3 db <<SQL ... SQL` are judged on their body.
        heredoc = re.compile(r"<<-?\s*(['\"]?)(\w+)\1([^\n]*)\n(.*?)(?:\n[ \t]*\2[ \t]*(?=\n|$)|\Z)", re.S)
        command = heredoc.sub(lambda m: " %s%s" % (shlex.quote(m.group(4)), m.group(3)), command)
        return command.replace("\n", " ; ")

    def _expand(self, word):
        def var(match):
            name = match.group(1) or match.group(2)
            return self.vars.get(name, os.environ.get(name, match.group(0)))

        word = re.sub(r"\$\{(\w+)\}|\$(\w+)", var, word)
        if word.startswith("~"):
            word = os.path.expanduser(word)
        return word

    def _simple_commands(self, tokens):
        words, redirects = [], []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok in REDIRECTS or re.fullmatch(r"\d*>>?|&>>?|>\|", tok):
                if i + 1 < len(tokens):
                    redirects.append(tokens[i + 1])
                i += 2
                continue
            if tok in ("<", "<<", "<<<", "<&", ">&"):
                i += 2
                continue
            if tok in SEPARATORS or set(tok) <= set(";&|()"):
                if words or redirects:
                    yield words, redirects
                words, redirects = [], []
                i += 1
                continue
            words.append(tok)
            i += 1
        if words or redirects:
            yield words, redirects

    def _check_simple(self, words, redirects):
        for target in redirects:
            target = self._expand(target)
            if is_ledger_file(target, self.cwd):
                return _msg("writes to the evidence ledger database")
            if is_hook_config(target, self.cwd):
                return _msg("changes the hook configuration that runs evidence-ledger")
        # Assignments before the program (VAR=value cmd) and on their own (VAR=value).
        while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
            name, _, value = words[0].partition("=")
            self.vars[name] = self._expand(value)
            words = words[1:]
        if words and words[0] in ("export", "declare", "local", "readonly", "typeset"):
            for word in words[1:]:
                if "=" in word:
                    name, _, value = word.partition("=")
                    self.vars[name] = self._expand(value)
            return None
        while words and (os.path.basename(words[0]) in PREFIXES or re.fullmatch(r"[A-Za-z_]\w*=.*", words[0])
                         or (words[0].startswith("-") and len(words) > 1)):
            words = words[1:]
            if words and re.fullmatch(r"\d+[smhd]?", words[0]):  # timeout 10 cmd
                words = words[1:]
        if not words:
            return None
        program = os.path.basename(words[0])
        args = [self._expand(w) for w in words[1:]]
        if program == "cd":
            if args:
                self.cwd = _norm(args[0], self.cwd)
            return None
        if program == "ledger-hook" or _is_hook_file(words[0]):
            return _msg("runs the ledger's recording hook by hand (that forges evidence)")
        if program in ("ledger",) or (INTERPRETERS.match(program) and args[:2] == ["-m", "ledger"]):
            sub = args[2:] if program != "ledger" else args
            return self._check_ledger_cli(sub)
        if INTERPRETERS.match(program):
            return self._check_interpreter(program, args)
        if program in SHELLS:
            return self._check_shell(args)
        if program in ("eval",):
            return Shell(self.cwd, self.depth + 1).check(" ".join(args)) if self.depth < 4 else None
        if program in ("sqlite3", "sqlite", "litecli", "sqlite-utils"):
            return self._check_sqlite(program, args)
        return self._check_file_command(program, args)

    def _check_ledger_cli(self, args):
        sub = next((a for a in args if not a.startswith("-")), "")
        if sub == "uninstall":
            return _msg("removes the hooks that run evidence-ledger")
        if sub == "gc" and "--dry-run" not in args:
            return _msg("deletes recorded evidence (`ledger gc` is for the user to run)")
        return None

    def _check_interpreter(self, program, args):
        if _is_hook_file(_script_of(args)):
            return _msg("runs the ledger's recording hook by hand (that forges evidence)")
        if "-m" in args:
            module = args[args.index("-m") + 1] if args.index("-m") + 1 < len(args) else ""
            if module.startswith("ledger.hooks") or module.startswith("ledger.store"):
                return _msg("runs the ledger's recording hook by hand (that forges evidence)")
        for arg in args:
            if arg.startswith("-mledger.hooks"):
                return _msg("runs the ledger's recording hook by hand (that forges evidence)")
        code = " ".join(args)
        if re.search(r"\bledger\.(?:hooks|store)\b|from\s+ledger(?:\.hooks)?\s+import\s+[\w, ]*\b(?:store|record|hooks)\b",
                     code):
            return _msg("calls the ledger's recorder from code (that forges evidence)")
        if self._mentions_protected(code) and CODE_WRITE.search(code):
            return _msg("modifies the evidence ledger or the hook configuration from a script")
        return None

    def _check_shell(self, args):
        if "-c" in args and self.depth < 4:
            index = args.index("-c")
            if index + 1 < len(args):
                return Shell(self.cwd, self.depth + 1).check(args[index + 1])
        for arg in args:
            if not arg.startswith("-") and _is_hook_file(arg):
                return _msg("runs the ledger's recording hook by hand (that forges evidence)")
        return None

    def _check_sqlite(self, program, args):
        if program == "sqlite-utils":
            sub = args[0] if args else ""
            dbs = [a for a in args[1:2] if not a.startswith("-")]
            if dbs and is_ledger_file(dbs[0], self.cwd) and sub not in SQLITE_UTILS_READ:
                if sub == "query" and not SQL_WRITE.search(re.sub(r"'(?:[^']|'')*'", "''", " ".join(args[2:]))):
                    return None
                return _msg("modifies the evidence ledger database")
            return None
        db_arg = None
        sql = []
        readonly = False
        for arg in args:
            if arg in ("-readonly", "--readonly"):
                readonly = True
            elif arg.startswith("-"):
                continue
            elif db_arg is None:
                db_arg = arg
            else:
                sql.append(arg)
        if db_arg is None:
            return None
        path = db_arg[5:].split("?")[0] if db_arg.startswith("file:") else db_arg
        if "mode=ro" in db_arg or "immutable=1" in db_arg:
            readonly = True
        if not is_ledger_file(path, self.cwd) or readonly:
            return None
        if not sql:
            return _msg("opens the evidence ledger in sqlite3 for writing (use `sqlite3 -readonly`, "
                        "or `ledger show` / `ledger search`)")
        text = " ".join(sql)
        # Quoted SQL strings can hold any word: `... where output like '%update%'` only reads.
        unquoted = re.sub(r"'(?:[^']|'')*'", "''", text)
        if SQL_WRITE.search(unquoted):
            return _msg("modifies the evidence ledger database")
        return None

    def _check_file_command(self, program, args):
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        ledger_hit = [a for a in operands if is_ledger_file(a, self.cwd)]
        config_hit = [a for a in operands if is_hook_config(a, self.cwd)]
        if program in DESTROY or program in ("mv",):
            if ledger_hit or (program in ("rm", "mv", "srm", "shred", "chmod", "chown")
                              and any(holds_ledger(a, self.cwd) for a in operands)):
                return _msg("deletes, moves or locks the evidence ledger")
            if config_hit:
                return _msg("changes the hook configuration that runs evidence-ledger")
            return None
        if program in ("cp", "install", "rsync", "ln", "dd", "tee", "touch", "scp"):
            if program == "dd":
                dests = [a[3:] for a in args if a.startswith("of=")]
            elif program in ("tee", "touch"):
                dests = operands
            elif program == "ln":
                dests = operands[-1:] if len(operands) > 1 else []
            else:
                target_dir = next((a.split("=", 1)[1] for a in args if a.startswith("--target-directory=")), None)
                if "-t" in args and args.index("-t") + 1 < len(args):
                    target_dir = args[args.index("-t") + 1]
                dests = [target_dir] if target_dir else operands[-1:] if len(operands) > 1 else []
            dests = [self._expand(d) for d in dests if d]
            if any(is_ledger_file(d, self.cwd) for d in dests):
                return _msg("overwrites the evidence ledger database")
            if any(is_hook_config(d, self.cwd) for d in dests):
                return _msg("changes the hook configuration that runs evidence-ledger")
            return None
        if program in ("sed", "perl", "gsed") and any(a == "-i" or a.startswith("-i") or a.startswith("--in-place")
                                                       for a in args):
            if ledger_hit:
                return _msg("modifies the evidence ledger database")
            if config_hit:
                return _msg("changes the hook configuration that runs evidence-ledger")
        if program in ("git",) and args[:1] in (["checkout"], ["restore"], ["rm"], ["mv"]) and config_hit:
            return _msg("changes the hook configuration that runs evidence-ledger")
        if program in ("jq",) and config_hit and ("--in-place" in args or "-i" in args):
            return _msg("changes the hook configuration that runs evidence-ledger")
        return None

    def _mentions_protected(self, text):
        db = paths.db_path()
        home = os.path.expanduser("~")
        needles = [db, ledger_dir(), "LEDGER_DB"] + list(HOOK_CONFIGS) + [GUARD_CONFIG_DIR + "/"]
        if os.path.realpath(self.cwd) == os.path.realpath(ledger_dir()):
            needles.append(os.path.basename(db))
        expanded = text.replace("~", home).replace("${HOME}", home).replace("$HOME", home)
        return any(n in text or n in expanded for n in needles)


def _msg(what):
    return (
        "evidence-ledger: this call %s, so it was not run. The ledger is the record of what your "
        "tools printed; it is read-only for the agent. To read it use `ledger show`, `ledger search`, "
        "`ledger check` or `ledger verify` (or `sqlite3 -readonly`). If the user wants the guard "
        "changed, ask them to do it." % what
    )
