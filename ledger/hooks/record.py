"""The recording hook: one tool call in, one evidence entry out. It never prints a decision.

A failure to record is reported on stderr and swallowed; losing one entry is better than
breaking the agent's tool call.
"""

from ledger import store


def handle(ev):
    if not ev.get("session_id"):
        from ledger.hooks import note

        note("payload has no session_id; recorded under 'unknown'")
    try:
        return _record(ev)
    except store.sqlite3.DatabaseError as exc:
        from ledger import faults

        # Damage that the header check in connect cannot see shows up on the first write: move
        # the file aside and record into a fresh one, once.
        if not faults.is_corrupt(exc):
            raise
        store.quarantine(store.paths.db_path())
        return _record(ev)


def _record(ev):
    conn = store.connect()
    try:
        return store.record(conn, ev)
    finally:
        conn.close()
