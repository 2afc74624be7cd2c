"""Keeping the search index few segments deep: FTS5 merges, off the agent's path, after a Stop.

The trigram index (`evidence_fts`) is a set of segments; every lookup looks a term up in each of
them. Each recorded entry adds a small segment, and FTS5's own automerge (done by the writes,
a little at a time) lets up to three gather on each level, so a ledger of 10k or 100k entries
holds 14-17 segments. A blocking Stop looks up ~25 claim terms for its suggestions: ~10 ms at
17 segments, ~3 ms at one (`tests/test_merge.py` checks the results are the same).

Merging in a hook would make the agent wait (an `optimize` of a 100k-entry ledger takes ~15 s,
holding the write lock the recorder needs), so a Stop that finds more than `MAX_SEGMENTS`
segments starts a detached process after its verdict is out, the way `git gc --auto` does. It
runs FTS5's `merge` with `usermerge` 2 (any two segments of one level merge) in steps of
`STEP_PAGES` pages, each its own short transaction, pausing twice as long as a step took after
each (a recorder waits at most a step or two for the write lock), until nothing is left to
merge or `BUDGET_S` has passed, at low CPU priority, one at a time per ledger (a lock file next
to it, `<ledger>-merge`). A 100k-entry ledger goes from 17 segments to 3 in ~20 s of background
work (about a minute of wall time), once; later Stops find a few new small segments (~ms).

`LEDGER_INDEX_MERGE=0` turns it off. Stdlib only: this is on the Stop hook's path.
"""

import os
import time

from ledger import store

# Kept in store.py, which a Stop imports anyway: it asks whether a merge is due on every Stop.
MAX_SEGMENTS = store.INDEX_MAX_SEGMENTS
STEP_PAGES = 100
BUDGET_S = 300

segments = store.index_segments
due = store.index_merge_due


def start(path):
    """Merge the index of the ledger at `path` in a detached process; return at once."""
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        return True
    # The child: nothing of the hook's own (its stdout is the agent's pipe, which must see EOF
    # when the hook exits), its own session, then the merge, then out without the teardown.
    code = 0
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1024)
        try:
            os.nice(10)
        except OSError:
            pass
        run(path)
    except BaseException:
        code = 1
    os._exit(code)


def run(path, budget_s=BUDGET_S, step_pages=STEP_PAGES):
    """Merge in steps until FTS5 finds nothing to merge or the budget is spent. Returns the
    number of steps that did work, or None when another process holds the merge lock."""
    import fcntl

    lock = os.open(path + "-merge", os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return None
        conn = store.connect(path, create=False)
        try:
            return _merge(conn, budget_s, step_pages)
        finally:
            conn.close()
    finally:
        os.close(lock)


def _merge(conn, budget_s, step_pages):
    usermerge = conn.execute("SELECT v FROM evidence_fts_config WHERE k = 'usermerge'").fetchone()
    if not usermerge or usermerge[0] != 2:
        conn.execute("INSERT INTO evidence_fts(evidence_fts, rank) VALUES('usermerge', 2)")
    deadline = time.monotonic() + budget_s
    steps = 0
    while time.monotonic() < deadline:
        began = time.monotonic()
        before = conn.total_changes
        conn.execute("INSERT INTO evidence_fts(evidence_fts, rank) VALUES('merge', ?)", (step_pages,))
        if conn.total_changes - before < 2:  # FTS5's sign that there was nothing to merge
            break
        steps += 1
        # The write lock is free between steps, for twice as long as a step held it: a
        # recorder waiting on it (SQLite's busy handler retries after 1, 2, 5, 10, ... ms)
        # gets it within a step or two.
        time.sleep(max(0.01, 2 * (time.monotonic() - began)))
    return steps
