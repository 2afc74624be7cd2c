"""The recording hook: one tool call in, one evidence entry out. It never prints a decision.

A failure to record is reported on stderr and swallowed; losing one entry is better than
breaking the agent's tool call.
"""

from ledger import store


def handle(ev):
    if not ev.get("session_id"):
        from ledger.hooks import note

        note("payload has no session_id; recorded under 'unknown'")
    conn = store.connect()
    try:
        return store.record(conn, ev)
    finally:
        conn.close()
