"""The guard's own failures, kept so the user hears about each one once and doctor can explain it.

A hook that cannot record must still exit 0 (the agent keeps working), and its stderr line is
easy to miss. So each failure is also appended to a small JSON-lines file; the next Stop hook of
that session turns the ones not yet reported into one systemMessage, and `ledger doctor` lists
the recent ones with what to do about them.

The file sits beside the ledger, or, when that folder is the problem (unwritable, read-only,
full), in a per-user folder under the system temp dir. Stdlib only: this is on the hook path.
"""

import os
import time

from ledger import jsonc, paths
from ledger.store import sha256 as store_sha256, sqlite3  # the store's: no datetime

MAX_BYTES = 256 * 1024  # keep the newest half when it grows past this

EXPLAIN = {
    "unwritable": "the ledger's folder cannot be written, so tool calls were not recorded. Fix its "
                  "permissions, or point LEDGER_DB at a writable file.",
    "readonly": "the ledger is on a read-only file system or the file is read-only, so tool calls "
                "were not recorded. Remount it read-write, or point LEDGER_DB elsewhere.",
    "full": "the disk holding the ledger is full, so tool calls were not recorded. Free space, or "
            "run `ledger gc` to shrink the ledger.",
    "locked": "another process kept the ledger locked for longer than the busy timeout, so tool "
              "calls were not recorded. Look for a long-running `sqlite3` shell or a stuck process "
              "holding the file (fuser <ledger file>).",
    "corrupt": "the ledger file was damaged. It was moved aside (kept, never overwritten) and a new "
               "ledger was started; inspect the old one with `sqlite3 FILE .recover`.",
    "transcript": "the agent's transcript could not be read, so the final message was not checked.",
    "tampered": "entries failed the ledger's integrity check and were not used as evidence. Run "
                "`ledger verify` to see which and how.",
    "error": "an internal error stopped a hook; nothing was blocked. Please report it.",
}


def classify(exc, db=None):
    """Which kind of fault an exception from the store is."""
    kind = _classify(exc)
    if kind in ("unwritable", "error", "readonly"):
        # SQLite says "unable to open database file" for a read-only or full disk as well (it
        # cannot create the -wal/-shm files): ask the file system which it is.
        folder = os.path.dirname(db or paths.db_path())
        try:
            st = os.statvfs(folder)
            if st.f_flag & getattr(os, "ST_RDONLY", 1):
                return "readonly"
            if st.f_bavail * st.f_frsize < 64 * 1024:
                return "full"
        except (OSError, AttributeError):
            pass
    return kind


def _classify(exc):
    text = str(exc).lower()
    errno = getattr(exc, "errno", None)
    if "locked" in text or "busy" in text:
        return "locked"
    if "disk is full" in text or "no space" in text or errno == 28:
        return "full"
    if "readonly" in text or "read-only" in text or errno == 30:
        return "readonly"
    if "not a database" in text or "malformed" in text:
        return "corrupt"
    if isinstance(exc, (PermissionError, NotADirectoryError)) or errno in (1, 13, 20) \
            or "unable to open" in text or "cannot create" in text or "permission" in text:
        return "unwritable"
    return "error"


def is_corrupt(exc):
    return isinstance(exc, sqlite3.DatabaseError) and classify(exc) == "corrupt"


def _fallback_dir():
    # Not tempfile: it pulls in shutil, random, bz2 and lzma, and every Stop call reads the
    # fault files (tests/test_imports.py). The same places tempfile would look first.
    uid = os.getuid() if hasattr(os, "getuid") else 0
    base = os.environ.get("TMPDIR") or os.environ.get("TEMP") or os.environ.get("TMP") or \
        ("/tmp" if os.name == "posix" else os.path.expanduser("~"))
    return os.path.join(base, "evidence-ledger-%d" % uid)


def locations(db=None):
    """Where fault files may be: beside the ledger, then the per-user temp folder."""
    db = db or paths.db_path()
    # The built-in sha256 (the store's): hashlib would load OpenSSL for these few bytes.
    tag = store_sha256(db.encode("utf-8", "replace")).hexdigest()[:12]
    return [db + ".faults", os.path.join(_fallback_dir(), "faults-%s.jsonl" % tag)]


def _append(line, db=None):
    data = (jsonc.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "replace")
    for index, path in enumerate(locations(db)):
        try:
            folder = os.path.dirname(path)
            if index == 1:
                os.makedirs(folder, mode=0o700, exist_ok=True)
                st = os.lstat(folder)
                # Someone else's folder in /tmp, or a symlink planted there: do not write.
                if hasattr(os, "getuid") and (st.st_uid != os.getuid() or not os.path.isdir(folder)
                                              or os.path.islink(folder)):
                    continue
            elif not os.path.isdir(folder):
                continue
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                os.write(fd, data)
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if size > MAX_BYTES:
                _shrink(path)
            return path
        except OSError:
            continue
    return None


def _shrink(path):
    try:
        with open(path, "rb") as f:
            lines = f.read().splitlines(keepends=True)
        tmp = path + ".%d.tmp" % os.getpid()
        with open(tmp, "wb") as f:
            f.writelines(lines[len(lines) // 2:])
        os.replace(tmp, path)
    except OSError:
        pass


def read(db=None):
    """Every fault line from every location, oldest first."""
    entries = []
    for path in locations(db):
        try:
            with open(path, "rb") as f:
                for raw in f:
                    try:
                        entry = jsonc.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(entry, dict):
                        entry["_file"] = path
                        entries.append(entry)
        except OSError:
            continue
    entries.sort(key=lambda e: e.get("t") or 0)
    return entries


def add(kind, detail, session_id=None, db=None, once=False):
    """Remember one fault. With `once`, skip it when the same fault is already on file."""
    if once:
        for entry in read(db):
            if entry.get("kind") == kind and entry.get("detail") == detail \
                    and entry.get("session_id") == session_id:
                return None
    now = time.time()
    entry = {"id": "%.6f-%d" % (now, os.getpid()), "t": round(now, 3), "kind": kind,
             "detail": " ".join(str(detail).split())[:500], "session_id": session_id}
    _append(entry, db)
    return entry


def pending(session_id, db=None):
    """Faults of this session (or of no session) that no Stop hook has reported yet."""
    entries = read(db)
    reported = set()
    told = set()  # (session, kind): a lasting fault is told once per session, not at every stop
    for entry in entries:
        if entry.get("kind") == "reported":
            reported.update(entry.get("ids") or [])
            told.update((entry.get("session_id"), k) for k in entry.get("kinds") or [])
    out = []
    for e in entries:
        if e.get("kind") == "reported" or e.get("id") in reported:
            continue
        sid = e.get("session_id")
        if sid is None or (sid == session_id and (sid, e.get("kind")) not in told):
            out.append(e)
    return out


def mark_reported(entries, session_id=None, db=None):
    ids = [e["id"] for e in entries if e.get("id")]
    if ids:
        kinds = sorted({e.get("kind") for e in entries if e.get("session_id") is not None})
        _append({"kind": "reported", "ids": ids, "kinds": kinds, "session_id": session_id,
                 "t": round(time.time(), 3)}, db)


def summary(entries):
    """One sentence for a systemMessage: what went wrong, how often, where to look."""
    kinds = []
    for entry in entries:
        if entry["kind"] not in kinds:
            kinds.append(entry["kind"])
    parts = []
    for kind in kinds:
        same = [e for e in entries if e["kind"] == kind]
        text = EXPLAIN.get(kind, EXPLAIN["error"])
        parts.append("%s%s (%s)" % (text[0].upper() + text[1:].rstrip("."),
                                    " [%d times]" % len(same) if len(same) > 1 else "",
                                    same[-1].get("detail", "")[:200]))
    return "evidence-ledger: " + "; ".join(parts) + ". Run `ledger doctor` for details."
