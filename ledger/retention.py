"""`ledger gc`: drop old sessions so the ledger does not grow without bound.

Whole sessions are deleted, never single entries, so every session that stays keeps an intact
hash chain. The ids removed are written to `gc_log`, which is how `ledger verify` tells a
deletion by gc from a deletion by hand. VACUUM and a WAL truncate follow, so the space (and
the deleted text) really leaves the disk.
"""

import re
import time

DEFAULT_OLDER_THAN = "30d"

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
_SIZES = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024 ** 2, "mb": 1024 ** 2,
          "g": 1024 ** 3, "gb": 1024 ** 3, "t": 1024 ** 4, "tb": 1024 ** 4}


def parse_duration(text):
    """'30d', '12h', '2w', '90m', '1y' -> seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdwy])\s*", str(text).lower())
    if not match:
        raise ValueError("%r is not a duration: use a number and s, m, h, d, w or y (e.g. 30d)" % text)
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_size(text):
    """'500MB', '1G', '200k', '1048576' -> bytes."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?b?)\s*", str(text).lower())
    if not match:
        raise ValueError("%r is not a size: use a number and K, M, G or T (e.g. 500M)" % text)
    return int(float(match.group(1)) * _SIZES[match.group(2)])


def used_bytes(conn):
    """Bytes the database really uses (pages minus the free list), inside a transaction too."""
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return (pages - free) * page_size


def _runs(nums):
    runs = []
    for n in sorted(nums):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs


def _sessions_oldest_first(conn):
    return conn.execute(
        """SELECT s.id, COALESCE(s.last_seen, (SELECT MAX(recorded_at) FROM evidence e
                                              WHERE e.session_id = s.id), 0) AS seen
           FROM sessions s ORDER BY seen, s.id"""
    ).fetchall()


def _delete_session(conn, session_id):
    nums = [r[0] for r in conn.execute("SELECT num FROM evidence WHERE session_id = ?", (session_id,))]
    conn.execute("DELETE FROM claims WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM decisions WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM evidence WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
    return nums


def gc(conn, older_than=DEFAULT_OLDER_THAN, max_size=None, dry_run=False, now=None):
    """Delete sessions last active before `older_than`, then the oldest others while the ledger
    is over `max_size` bytes (never the newest session). Returns a summary dict."""
    seconds = parse_duration(older_than) if isinstance(older_than, str) else float(older_than)
    limit = parse_size(max_size) if isinstance(max_size, str) else max_size
    now = time.time() if now is None else now
    cutoff = now - seconds
    before = used_bytes(conn)
    deleted_sessions = []
    deleted_nums = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        ordered = _sessions_oldest_first(conn)
        keep_newest = ordered[-1]["id"] if ordered else None
        for row in ordered:
            if row["seen"] < cutoff:
                deleted_nums += _delete_session(conn, row["id"])
                deleted_sessions.append(row["id"])
        if limit is not None:
            for row in ordered:
                if used_bytes(conn) <= limit:
                    break
                if row["id"] in deleted_sessions or row["id"] == keep_newest:
                    continue
                deleted_nums += _delete_session(conn, row["id"])
                deleted_sessions.append(row["id"])
        after = used_bytes(conn)
        if deleted_nums and not dry_run:
            reason = "older than %s" % older_than + (", size cap %s" % max_size if max_size else "")
            for first, last in _runs(deleted_nums):
                conn.execute(
                    "INSERT INTO gc_log (ran_at, first_num, last_num, sessions, reason) VALUES (?, ?, ?, ?, ?)",
                    (now, first, last, len(deleted_sessions), reason))
        conn.execute("ROLLBACK" if dry_run else "COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    over = limit is not None and after > limit
    if deleted_nums and not dry_run:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {
        "sessions": deleted_sessions,
        "entries": len(deleted_nums),
        "bytes_before": before,
        "bytes_after": after,
        "still_over_cap": over,
        "dry_run": dry_run,
    }
