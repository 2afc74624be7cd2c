"""Tamper evidence: re-check each session's hash chain and the ledger's id sequence.

Every entry stores `prev_hash` (the hash of the session's previous entry) and `hash`
(store.entry_hash over its own fields and prev_hash). Re-computing them tells apart:

- edited:    the entry's fields no longer give its stored hash (or it has no hash at all:
             a row added by hand with sqlite3);
- deleted:   an entry's prev_hash names a hash no entry of the session has;
- inserted:  two entries claim the same predecessor, or a second entry starts the chain;
             the one off the longest chain is the intruder;
- reordered: the chain's order disagrees with the ids' order (rows renumbered);
- missing:   ids absent from the ledger-wide sequence that `ledger gc` did not delete,
             including entries cut off the end (sqlite_sequence remembers the highest id).

Stdlib only: the Stop guard checks the session's rows it already holds, with no extra query.
It re-hashes only what it has not verified before (`check_since`): the entries recorded since
the last clean check, plus, once the detector has run, the older entries a claim cites (`rehash`).
`ledger verify` re-hashes everything (`check_chain`).
"""

from ledger import store

# Past this many bytes to hash, OpenSSL's sha256 (hashlib) pays for its import (~3 ms): the
# built-in one the recorder uses is ~6x slower per byte (1 MB: 4 ms against 0.6 ms). Same digests.
_OPENSSL_FROM = 1024 * 1024


def _hasher(rows):
    size = sum(len(r.get("output") or "") + len(r.get("tool_input") or "") for r in rows)
    if size < _OPENSSL_FROM:
        return store.sha256
    from hashlib import sha256

    return sha256


def _edited(rows, session, problems, untrusted):
    """Re-hash `rows`; an entry whose fields no longer give its stored hash is edited."""
    sha256 = _hasher(rows)
    for row in rows:
        eid = "E%d" % row["num"]
        if not row.get("hash"):
            problems.append(Problem("unsigned", session, [eid],
                                    "%s has no hash: it was not written by the recorder" % eid))
            untrusted.append(eid)
        elif store.entry_hash(row.get("prev_hash"), row, sha256) != row["hash"]:
            problems.append(Problem("edited", session, [eid],
                                    "%s was changed after it was recorded (its hash no longer matches)" % eid))
            untrusted.append(eid)

KINDS = ("edited", "unsigned", "deleted", "inserted", "reordered", "missing", "integrity")


class Problem:
    __slots__ = ("kind", "session_id", "ids", "detail")

    def __init__(self, kind, session_id, ids, detail):
        self.kind = kind
        self.session_id = session_id
        self.ids = list(ids)
        self.detail = detail

    def as_dict(self):
        return {"kind": self.kind, "session_id": self.session_id, "ids": self.ids, "detail": self.detail}

    def __repr__(self):
        return "Problem(%r, %r)" % (self.kind, self.ids)


def check_chain(rows):
    """Check one session's rows (oldest first, as store.session_evidence returns them).

    Returns (problems, untrusted_ids): untrusted are entries whose content cannot be relied on
    (edited, unsigned or inserted). Entries that follow a deletion or sit out of order are
    reported but still trusted: what they hold is what was recorded.
    """
    rows = [r if isinstance(r, dict) else dict(r) for r in rows]
    if not rows:
        return [], []
    session = rows[0].get("session_id")
    problems = []
    untrusted = []

    def eid(row):
        return "E%d" % row["num"]

    _edited(rows, session, problems, untrusted)

    signed = [r for r in rows if r.get("hash")]
    by_hash = {}
    for row in signed:
        by_hash.setdefault(row["hash"], row)
    children = {}
    for row in signed:
        children.setdefault(row.get("prev_hash"), []).append(row)

    # Longest chain below each entry, so that at a fork the genuine continuation wins over a
    # forged sibling. Computed newest first without recursion (sessions hold thousands).
    depth = {}
    for row in sorted(signed, key=lambda r: -r["num"]):
        kids = [k for k in children.get(row["hash"], ()) if k["num"] != row["num"]]
        depth[row["num"]] = 1 + max((depth.get(k["num"], 0) for k in kids), default=0)

    def walk(start, seen):
        order = []
        node = start
        while node is not None and node["num"] not in seen:
            seen.add(node["num"])
            order.append(node)
            kids = [k for k in children.get(node["hash"], ()) if k["num"] not in seen]
            node = max(kids, key=lambda k: (depth.get(k["num"], 0), -k["num"])) if kids else None
        return order

    seen = set()
    roots = children.get(None, []) + children.get("", [])
    roots.sort(key=lambda r: (-depth.get(r["num"], 0), r["num"]))
    segments = []
    if roots:
        segments.append(walk(roots[0], seen))
    # Segments that begin after a gap: their first entry's predecessor is gone.
    for row in signed:
        if row["num"] in seen:
            continue
        prev = row.get("prev_hash")
        if prev and prev not in by_hash:
            # Either the predecessor was deleted, or it was rewritten and re-hashed (which moves
            # its hash away from what this entry points at). In the second case the rewritten
            # entry is a dead end just before the break: distrust it too.
            earlier = [r for r in signed if r["num"] < row["num"]]
            suspect = earlier[-1] if earlier else None
            if suspect is not None and not children.get(suspect["hash"]):
                detail = ("the chain breaks between %s and %s: an entry between them was deleted, "
                          "or %s was rewritten" % (eid(suspect), eid(row), eid(suspect)))
                ids = [eid(suspect), eid(row)]
                if eid(suspect) not in untrusted:
                    untrusted.append(eid(suspect))
            else:
                detail = "the entry recorded before %s is missing from the ledger" % eid(row)
                ids = [eid(row)]
            problems.append(Problem("deleted", session, ids, detail))
            segments.append(walk(row, seen))
    for row in signed:
        if row["num"] not in seen:
            problems.append(Problem("inserted", session, [eid(row)],
                                    "%s claims a place in the chain that another entry holds: it was "
                                    "added afterwards" % eid(row)))
            if eid(row) not in untrusted:
                untrusted.append(eid(row))

    chained = [r for segment in segments for r in segment]
    for before, after in zip(chained, chained[1:]):
        if after["num"] < before["num"]:
            problems.append(Problem("reordered", session, [eid(before), eid(after)],
                                    "%s was recorded after %s but now comes before it" % (eid(after), eid(before))))
    return problems, untrusted


def check_since(rows, verified):
    """`check_chain` for the Stop hook, re-hashing only the entries after a checkpoint.

    `verified` is (num, hash) of the session's newest entry at its last clean check (see
    store.verified_upto), or None. It is used only while the chain still holds together as it
    did then: every entry signed, the first one starting the chain, each one pointing at the
    hash of the one before it in id order (string comparisons, no hashing), and the checkpoint
    entry still there with the same hash. Then an edit that re-hashes an older entry breaks a
    link or moves the checkpoint's hash, a deletion breaks a link, an insertion or a renumbering
    breaks one too; what it cannot see is an older entry edited in place with its stored hash
    left alone, which is why the caller re-hashes every older entry a claim cites (`rehash`).
    Anything else means a full check.

    Returns (problems, untrusted, upto): `upto` is the checkpoint's number when only the newer
    entries were re-hashed, None after a full check.
    """
    # The session's rows as the store returns them (sqlite3.Row) are read in place; only the
    # ones to re-hash become dicts (a copy of each of 200 rows cost a Stop ~1 ms).
    if verified and rows and _linked(rows, verified):
        num = verified[0]
        problems, untrusted = [], []
        newer = [r if isinstance(r, dict) else dict(r) for r in rows if r["num"] > num]
        _edited(newer, _field(rows[0], "session_id"), problems, untrusted)
        return problems, untrusted, num
    problems, untrusted = check_chain(rows)
    return problems, untrusted, None


def _field(row, key):
    """row.get(key) for a dict, row[key] for a store row (which has every column)."""
    return row.get(key) if isinstance(row, dict) else row[key]


def _linked(rows, verified):
    num, digest = verified
    if _field(rows[0], "prev_hash") or not digest:
        return False
    before = None
    found = False
    for row in rows:
        current = _field(row, "hash")
        if not current or (before is not None and _field(row, "prev_hash") != before):
            return False
        if row["num"] == num:
            found = current == digest
            if not found:
                return False
        before = current
    return found


def rehash(rows):
    """(problems, untrusted) for these entries' own hashes: the older entries a claim cites."""
    rows = [r if isinstance(r, dict) else dict(r) for r in rows]
    problems, untrusted = [], []
    if rows:
        _edited(rows, rows[0].get("session_id"), problems, untrusted)
    return problems, untrusted


def gc_ranges(conn):
    """Id ranges `ledger gc` deleted on purpose: not reported as missing."""
    if not _has_table(conn, "gc_log"):
        return []
    return [(r[0], r[1]) for r in conn.execute("SELECT first_num, last_num FROM gc_log")]


def _has_table(conn, name):
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def check_sequence(conn):
    """Ids that should exist but do not, ledger-wide."""
    problems = []
    top = conn.execute("SELECT MAX(num), COUNT(*) FROM evidence").fetchone()
    highest, count = top[0] or 0, top[1]
    seq_row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'evidence'").fetchone() \
        if _has_table(conn, "sqlite_sequence") else None
    seq = seq_row[0] if seq_row else 0
    if count and seq_row is None:
        problems.append(Problem("missing", None, [], "the ledger's id counter was removed "
                                "(sqlite_sequence): entries were rewritten by hand"))
    allowed = gc_ranges(conn)

    def explained(num):
        return any(lo <= num <= hi for lo, hi in allowed)

    gaps = []
    expected = 1
    for (num,) in conn.execute("SELECT num FROM evidence ORDER BY num"):
        if num > expected:
            gaps.append((expected, num - 1))
        expected = num + 1
    if seq > highest:
        gaps.append((highest + 1, seq))
    for lo, hi in gaps:
        lost = [n for n in range(lo, hi + 1) if not explained(n)]
        if not lost:
            continue
        ids = ["E%d" % n for n in lost[:50]]
        where = "at the end of the ledger" if lo > highest else "between E%d and E%d" % (lo - 1, hi + 1)
        problems.append(Problem("missing", None, ids, "%d entr%s deleted %s (%s%s)" % (
            len(lost), "y" if len(lost) == 1 else "ies", where, ", ".join(ids[:5]),
            ", ..." if len(lost) > 5 else "")))
    return problems


def verify(conn, session_id=None, integrity=True):
    """Every problem in one session, or in the whole ledger. Returns (problems, entries_checked)."""
    problems = []
    if integrity:
        result = conn.execute("PRAGMA quick_check").fetchone()[0]
        if result != "ok":
            problems.append(Problem("integrity", None, [], "SQLite integrity check: %s" % result))
    if session_id:
        sessions = [session_id]
    else:
        sessions = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM evidence ORDER BY session_id")]
    checked = 0
    for sid in sessions:
        rows = store.session_evidence(conn, sid)
        checked += len(rows)
        problems.extend(check_chain(rows)[0])
    if not session_id:
        problems.extend(check_sequence(conn))
    return problems, checked
