"""`ledger export`: the ledger (or one session) as JSON Lines, to share an audit.

One object per line, each with a `type`: a `ledger` header (with the verification result),
then per session a `session` line, its `evidence` lines and its `decision` lines (claims
inside). With `redact`, every text is passed through the redactor again (patterns added since
the entry was recorded then apply too) and the home folder and user name are masked in paths
and outputs. Hashes are kept as recorded: they still verify the unredacted ledger.
"""

import json
import os
import re
import time

from ledger import paths, store, verify
from ledger.redact import redact


def _masker():
    home = os.path.expanduser("~")
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or os.path.basename(home)
    subs = []
    if home and home != "/":
        subs.append((re.compile(re.escape(home)), "~"))
    if user and len(user) >= 3 and user not in ("root",):
        subs.append((re.compile(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(user)), "<user>"))

    def mask(value):
        if isinstance(value, str):
            value = redact(value)
            for pattern, replacement in subs:
                value = pattern.sub(replacement, value)
            return value
        if isinstance(value, dict):
            return {k: mask(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mask(v) for v in value]
        return value

    return mask


def lines(conn, session_id=None, redacted=False):
    """Yield the export, one dict per line."""
    mask = _masker() if redacted else (lambda v: v)
    problems, checked = verify.verify(conn, session_id)
    yield {
        "type": "ledger",
        "format": 1,
        "exported_at": round(time.time(), 3),
        "source": mask(paths.db_path()),
        "redacted": bool(redacted),
        "verified": not problems,
        "entries_checked": checked,
        "problems": [mask(p.as_dict()) for p in problems],
    }
    if session_id:
        sessions = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchall()
    else:
        sessions = conn.execute("SELECT * FROM sessions ORDER BY first_seen").fetchall()
    for session in sessions:
        yield mask(dict(session, type="session"))
        for row in store.session_evidence(conn, session["id"]):
            data = dict(row, type="evidence")
            if data.get("tool_input"):
                try:
                    data["tool_input"] = json.loads(data["tool_input"])
                except ValueError:
                    pass
            yield mask(data)
        for decision in store.session_decisions(conn, session["id"]):
            data = dict(decision, type="decision")
            claims = []
            for claim in store.decision_claims(conn, decision["num"]):
                claim = dict(claim)
                for key in ("evidence", "near_misses"):
                    try:
                        claim[key] = json.loads(claim[key]) if claim.get(key) else []
                    except ValueError:
                        pass
                claims.append(claim)
            data["claims"] = claims
            yield mask(data)


def write(conn, out, session_id=None, redacted=False):
    count = 0
    for line in lines(conn, session_id, redacted):
        out.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        count += 1
    return count


# One table per line type; claims get a table of their own, keyed to their decision.
_TABLES = {"session": "sessions", "evidence": "evidence", "decision": "decisions"}


def write_sqlite(conn, path, session_id=None, redacted=False):
    """The same export as a fresh SQLite file, ready for `datasette audit.db` or any SQL tool.

    sqlite-utils earns its place here: it creates each table from the rows themselves, with
    primary keys and full-text search, which hand-written DDL would have to keep in step with
    every export field.
    """
    import sqlite_utils

    if os.path.exists(path):
        os.remove(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)
    db = sqlite_utils.Database(path, execute_plugins=False)
    count = 0
    for line in lines(conn, session_id, redacted):
        kind = line.pop("type")
        if kind == "ledger":
            line["problems"] = json.dumps(line["problems"], ensure_ascii=False)
            db["export"].insert(line)
        elif kind in _TABLES:
            claims = line.pop("claims", None)
            if kind == "evidence" and isinstance(line.get("tool_input"), (dict, list)):
                line["tool_input"] = json.dumps(line["tool_input"], ensure_ascii=False)
            pk = "num" if kind != "session" else "id"
            db[_TABLES[kind]].insert(line, pk=pk, alter=True)
            for claim in claims or []:
                for key in ("evidence", "near_misses"):
                    claim[key] = json.dumps(claim.get(key) or [], ensure_ascii=False, default=str)
                db["claims"].insert(claim, pk="num", alter=True,
                                    foreign_keys=[("decision_num", "decisions", "num")])
        count += 1
    if "evidence" in db.table_names():
        db["evidence"].enable_fts(["command", "output"], create_triggers=False)
    db.close()
    return count
