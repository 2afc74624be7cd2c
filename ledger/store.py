"""The SQLite ledger: one file, WAL mode, written by many short-lived hook processes at once.

Stdlib only: this module is on the hook path. The human-facing CLI reads through the same
functions, so there is one place that knows the schema's shape.
"""

import os
import sys
import time


def _lru_cache(maxsize=128, typed=False):
    """functools.lru_cache(maxsize, typed) as `_sqlite3` calls it, for each connection's cache
    of prepared statements: the same C cache (`_functools._lru_cache_wrapper`) functools wraps,
    without the cache_info() type and update_wrapper() that need collections (see below)."""
    try:
        from _functools import _lru_cache_wrapper
    except ImportError:  # another implementation: functools' own
        from functools import lru_cache

        return lru_cache(maxsize, typed)

    def decorating_function(user_function):
        return _lru_cache_wrapper(user_function, maxsize, typed, tuple)

    return decorating_function


def _import_sqlite3():
    """The C module behind sqlite3. Not sqlite3 itself: sqlite3/dbapi2.py only adds adapters for
    datetime values, which the ledger never binds, and imports datetime for them (~2 ms).

    `_sqlite3` imports functools when it loads, for the one name it takes from it (lru_cache,
    its statement cache), and functools imports collections, operator, types, keyword and
    reprlib: ~2.5 ms of every hook process, which uses nothing else of them. Where nothing has
    imported functools yet, `_sqlite3` is given a module holding only lru_cache, built on the
    same C cache; it is gone from sys.modules once `_sqlite3` has loaded, so an `import
    functools` later gets the real one. Should `_sqlite3` want more of functools than that, it
    loads again with the real one."""
    if "functools" in sys.modules or "_sqlite3" in sys.modules:
        import _sqlite3

        return _sqlite3
    stand_in = type(sys)("functools")
    stand_in.lru_cache = _lru_cache
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3
    except ImportError:
        raise
    except Exception:
        _sqlite3 = None
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]
    if _sqlite3 is None:
        import _sqlite3
    return _sqlite3


try:
    sqlite3 = _import_sqlite3()
except ImportError:
    import sqlite3

from ledger import jsonc, paths
from ledger.redact import redact

try:  # the built-in sha256: hashlib loads OpenSSL first, ~6 ms of every hook process
    # The module this Python has is asked first: a failed import searches all of sys.path
    # (~0.1 ms of every hook process).
    if sys.version_info >= (3, 12):
        from _sha2 import sha256
    else:
        from _sha256 import sha256
except ImportError:
    try:
        from _sha256 import sha256
    except ImportError:
        from hashlib import sha256

SCHEMA_VERSION = 5  # len(migrations.MIGRATIONS); tests/test_store.py holds them equal

# Parallel PostToolUse hooks contend for the write lock; each holds it for a millisecond or two,
# so a generous wait never shows up as latency but does rule out "database is locked".
BUSY_TIMEOUT_MS = 30000

DEFAULT_MAX_OUTPUT = 1024 * 1024

# Fields covered by an entry's hash, in a fixed order, so a verifier can recompute it.
HASHED_FIELDS = (
    "session_id", "agent", "turn_id", "tool_use_id", "agent_id", "event", "tool_name",
    "tool_input", "command", "output", "failed", "exit_code", "interrupted", "duration_ms",
    "cwd", "recorded_at", "output_sha256", "output_length", "truncated",
)


class LedgerError(Exception):
    """The ledger file cannot be opened or used; the message says why, for a person."""


def busy_timeout_ms():
    """$LEDGER_BUSY_TIMEOUT_MS overrides the wait for the write lock (tests lower it)."""
    try:
        return max(0, int(os.environ.get("LEDGER_BUSY_TIMEOUT_MS") or BUSY_TIMEOUT_MS))
    except ValueError:
        return BUSY_TIMEOUT_MS


def connect(path=None, create=True, readonly=False, _retry=True, cache_kib=None):
    """Open the ledger, creating it (0600, folder 0700) and its schema when needed.

    `cache_kib` caps SQLite's page cache for this connection (default 2000 KiB). The Stop hook
    reads a session's outputs once, page by page: a big cache only makes it fault in fresh
    memory for pages it never reads again (~3.5 us a page on a VM, ~1.4 ms a Stop).

    A file that is not a database (or is damaged) is moved aside as `<file>.corrupt-<time>` and a
    new ledger is started in its place: recording goes on, and the old bytes are kept.
    """
    path = path or paths.db_path()
    if readonly or not create:
        if not os.path.exists(path):
            raise LedgerError("no ledger at %s (nothing has been recorded yet)" % path)
    else:
        try:
            _ensure_file(path)
        except OSError as exc:
            raise LedgerError("cannot create the ledger at %s: %s (fix the folder's permissions, or "
                              "set LEDGER_DB to a writable file)" % (path, exc.strerror or exc)) from exc
    timeout = busy_timeout_ms()
    uri = "file:%s?mode=ro" % path if readonly else path
    conn = sqlite3.connect(
        uri, uri=readonly, timeout=timeout / 1000, isolation_level=None,
        check_same_thread=False,
    )
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA busy_timeout = %d" % timeout)
        if readonly:
            return conn
        if _locked_retry(lambda: conn.execute("PRAGMA user_version").fetchone()[0], timeout) < SCHEMA_VERSION:
            _locked_retry(lambda: _upgrade(conn), timeout)
        conn.execute("PRAGMA synchronous = NORMAL")
        if cache_kib:
            conn.execute("PRAGMA cache_size = -%d" % int(cache_kib))
    except sqlite3.DatabaseError as exc:
        conn.close()
        from ledger import faults

        if _retry and create and faults.is_corrupt(exc):
            quarantine(path)
            return connect(path, create, readonly, _retry=False, cache_kib=cache_kib)
        raise
    return conn


def quarantine(path):
    """Move a damaged ledger (and its -wal/-shm) aside; return the new name, or None if another
    process already did. Never deletes or overwrites anything."""
    from ledger import faults

    lock = None
    try:
        import fcntl

        lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
    except (ImportError, OSError):
        lock = None
    try:
        # Under the lock, look again: a concurrent hook may have replaced it already.
        try:
            probe = sqlite3.connect(path, timeout=busy_timeout_ms() / 1000)
            try:
                probe.execute("PRAGMA user_version").fetchone()
                if probe.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok":
                    return None
            finally:
                probe.close()
        except sqlite3.DatabaseError as exc:
            if not faults.is_corrupt(exc):
                raise
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target = "%s.corrupt-%s" % (path, stamp)
        n = 1
        while os.path.exists(target):
            n += 1
            target = "%s.corrupt-%s-%d" % (path, stamp, n)
        os.rename(path, target)
        for suffix in ("-wal", "-shm", "-journal"):
            if os.path.exists(path + suffix):
                os.rename(path + suffix, target + suffix)
        faults.add("corrupt", "%s was not a usable SQLite database; moved to %s" % (path, target))
        try:
            import sys

            sys.stderr.write("evidence-ledger: the ledger was damaged; moved it to %s and started "
                             "a new one (run `ledger doctor`)\n" % target)
        except Exception:
            pass
        return target
    finally:
        if lock is not None:
            os.close(lock)


def _ensure_file(path):
    folder = os.path.dirname(path)
    if folder and not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    if not os.path.exists(path):
        # Create it ourselves so the mode is 0600 from the first byte; sqlite would use the umask.
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.close(fd)


def _locked_retry(step, timeout_ms):
    """Run `step`, retrying while the file is locked.

    SQLite's busy handler covers ordinary lock waits, but not every lock taken while a brand-new
    file is switched to WAL and given its schema: parallel hooks racing to create the ledger
    could get "database is locked" at once and lose their entry. Retry those, bounded by the
    same busy timeout.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    delay = 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if ("locked" not in text and "busy" not in text) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _upgrade(conn):
    from ledger import migrations

    # WAL is persistent in the file, so it is set once here, not on every connection.
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    try:
        migrations.migrate(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def cap_output(text, limit=None):
    """Keep the head and the tail of an over-long output; return (text, truncated)."""
    limit = limit or max_output()
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    half = limit // 2
    omitted = len(data) - 2 * half
    head = data[:half].decode("utf-8", "ignore")
    tail = data[-half:].decode("utf-8", "ignore")
    marker = "\n[... %d bytes omitted by evidence-ledger ...]\n" % omitted
    return head + marker + tail, True


def max_output():
    try:
        return int(os.environ.get("LEDGER_MAX_OUTPUT", DEFAULT_MAX_OUTPUT))
    except ValueError:
        return DEFAULT_MAX_OUTPUT


def _redact_large(text, limit):
    # Redacting 50 MB costs seconds; only what will be kept needs it. Cut with a margin first so
    # a secret that straddles the cut is still seen whole by the redactor.
    data_len = len(text)
    margin = 8192
    if data_len > 2 * (limit + margin):
        keep = limit // 2 + margin
        text = text[:keep] + "\n" + text[-keep:]
    return redact(text)


def entry_hash(prev_hash, row, hasher=sha256):
    """sha256 over the previous entry's hash and this entry's fields: the session's chain.

    `hasher` is any sha256 constructor: verify passes OpenSSL's, faster on a session of MiBs."""
    payload = jsonc.dumps([prev_hash or ""] + [row.get(f) for f in HASHED_FIELDS],
                         ensure_ascii=False, separators=(",", ":"))
    return hasher(payload.encode("utf-8")).hexdigest()


def record(conn, ev):
    """Insert one evidence entry (see ARCHITECTURE.md for the keys) and return its id, `E<n>`."""
    raw_output = ev.get("output") or ""
    if not isinstance(raw_output, str):
        raw_output = str(raw_output)
    raw_bytes = raw_output.encode("utf-8", "replace")
    limit = max_output()
    output, truncated = cap_output(_redact_large(raw_output, limit), limit)
    tool_input = ev.get("tool_input")
    if tool_input is not None and not isinstance(tool_input, str):
        # Redact the strings before encoding: in JSON a newline becomes `\n`, and the `n` glued
        # to the front of a key would hide it from the redactor's word boundary.
        tool_input = jsonc.dumps(_redact_tree(tool_input), ensure_ascii=False, default=str)
    if tool_input is not None:
        tool_input, _ = cap_output(redact(tool_input), limit)
    command = ev.get("command")
    if command is not None:
        command, _ = cap_output(redact(str(command)), limit)
    row = {
        "session_id": str(ev.get("session_id") or "unknown"),
        "agent": ev.get("agent"),
        "turn_id": _str_or_none(ev.get("turn_id")),
        "tool_use_id": _str_or_none(ev.get("tool_use_id")),
        "agent_id": _str_or_none(ev.get("agent_id")),
        "event": ev.get("event"),
        "tool_name": _str_or_none(ev.get("tool_name")),
        "tool_input": tool_input,
        "command": command,
        "output": output,
        "failed": 1 if ev.get("failed") else 0,
        "exit_code": _int_or_none(ev.get("exit_code")),
        "interrupted": 1 if ev.get("interrupted") else 0,
        "duration_ms": _int_or_none(ev.get("duration_ms")),
        "cwd": _redacted(ev.get("cwd")),
        "recorded_at": round(time.time(), 6),
        "output_sha256": sha256(raw_bytes).hexdigest(),
        "output_length": len(raw_bytes),
        "truncated": 1 if truncated else 0,
    }
    conn.execute("BEGIN IMMEDIATE")
    try:
        prev = conn.execute(
            "SELECT hash FROM evidence WHERE session_id = ? ORDER BY num DESC LIMIT 1",
            (row["session_id"],),
        ).fetchone()
        row["prev_hash"] = prev[0] if prev else None
        row["hash"] = entry_hash(row["prev_hash"], row)
        columns = ", ".join(row)
        marks = ", ".join("?" * len(row))
        cursor = conn.execute(
            "INSERT INTO evidence (%s) VALUES (%s)" % (columns, marks), tuple(row.values())
        )
        _touch_session(conn, row["session_id"], ev)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return "E%d" % cursor.lastrowid


def _touch_session(conn, session_id, ev):
    now = time.time()
    conn.execute(
        """INSERT INTO sessions (id, agent, project_dir, cwd, transcript_path, first_seen, last_seen)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen,
               agent = COALESCE(sessions.agent, excluded.agent),
               project_dir = COALESCE(sessions.project_dir, excluded.project_dir),
               transcript_path = COALESCE(excluded.transcript_path, sessions.transcript_path)""",
        (session_id, ev.get("agent"), _redacted(ev.get("project_dir")),
         _redacted(ev.get("cwd")), _redacted(ev.get("transcript_path")), now, now),
    )


def _redact_tree(value, depth=0):
    if isinstance(value, str):
        return redact(value)
    if depth > 50:
        return value
    if isinstance(value, dict):
        return {redact(str(k)): _redact_tree(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_tree(v, depth + 1) for v in value]
    return value


def _redacted(value):
    # Paths are text the agent controls too; a token in a folder name must not be stored.
    return None if value is None else redact(str(value))


def _str_or_none(value):
    return None if value is None else str(value)


def _int_or_none(value):
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


# The search index -----------------------------------------------------------------------------

# Past this many segments in the FTS index a Stop has it merged in the background (merge.py).
INDEX_MAX_SEGMENTS = 6


def index_segments(conn):
    """How many segments the FTS index holds, from its structure record; 0 when it cannot tell.
    Every term lookup looks the term up in each of them."""
    return _index_structure(conn)[0]


def _index_structure(conn):
    """(segments, whether a merge could make fewer): some level holds two or more segments, or
    a merge is under way. FTS5's structure record: a 4-byte cookie, then varints: levels,
    segments, a write counter, and per level the segments being merged, the segment count and
    three per segment (id, first and last page)."""
    try:
        row = conn.execute("SELECT block FROM evidence_fts_data WHERE id = 10").fetchone()
        block = row[0] if row else None
        if not isinstance(block, bytes) or len(block) < 7:
            return 0, False
        at = [4]

        def varint():
            value = 0
            for n in range(9):
                byte = block[at[0]]
                at[0] += 1
                if n == 8:
                    return (value << 8) | byte
                value = (value << 7) | (byte & 0x7F)
                if not byte & 0x80:
                    return value
            return value

        levels, segments = varint(), varint()
        varint()
        mergeable = False
        for _ in range(levels):
            merging, count = varint(), varint()
            if merging or count >= 2:
                mergeable = True
                break
            for _ in range(3 * count):
                varint()
        return segments, mergeable
    except Exception:
        return 0, False


def index_merge_due(conn):
    """Whether the index is deeper than it should be and a merge can make it shallower, and a
    merge may start (merge.py)."""
    if os.environ.get("LEDGER_INDEX_MERGE", "").strip().lower() in ("0", "off", "false", "no"):
        return False
    if not hasattr(os, "fork"):
        return False
    segments, mergeable = _index_structure(conn)
    return segments > INDEX_MAX_SEGMENTS and mergeable


# Reading -----------------------------------------------------------------------------------

_COLUMNS = (
    "num", "session_id", "agent", "turn_id", "tool_use_id", "agent_id", "event", "tool_name",
    "tool_input", "command", "output", "failed", "exit_code", "interrupted", "duration_ms", "cwd",
    "recorded_at", "output_sha256", "output_length", "truncated", "prev_hash", "hash",
)
EVIDENCE_COLUMNS = "'E' || e.num AS id, " + ", ".join("e." + c for c in _COLUMNS)
# session_evidence's order for the Stop (defer): see there.
_STOP_ORDER = ("num", "command", "output", "id", "tool_name", "hash", "prev_hash", "tool_input")
_STOP_ORDER += tuple(c for c in _COLUMNS if c not in _STOP_ORDER)


def session_evidence(conn, session_id, defer=None):
    """Every entry of one session, oldest first.

    `defer`: outputs of this many bytes or more (by output_length) are not read now; their rows
    are DeferredRow, which reads the output when it is first asked for (while `conn` is open).
    The Stop hook asks for a big log's output only where it needs it: a detector that finds the
    quotes in newer entries never reads it, and the suggestions need its last lines."""
    if not defer:
        return conn.execute(
            "SELECT %s FROM evidence e WHERE e.session_id = ? ORDER BY e.num" % EVIDENCE_COLUMNS,
            (session_id,),
        ).fetchall()
    defer = int(defer)
    # The same columns, the ones the Stop reads most first: sqlite3.Row finds a column by
    # comparing its name with each one before it, and a Stop looks up ~3800 (num 1600 times,
    # command and output 500 each, id 400, the hashes 200 each): ~17000 comparisons fewer.
    columns = ", ".join(
        "CASE WHEN e.output_length >= %d THEN NULL ELSE e.output END AS output" % defer if c == "output"
        else "'E' || e.num AS id" if c == "id" else "e." + c for c in _STOP_ORDER)
    rows = conn.execute(
        "SELECT %s FROM evidence e WHERE e.session_id = ? ORDER BY e.num" % columns, (session_id,),
    ).fetchall()
    for i, row in enumerate(rows):
        if row["output"] is None and (row["output_length"] or 0) >= defer:
            rows[i] = DeferredRow(conn, row)
    return rows


class DeferredRow:
    """A session row (sqlite3.Row) whose output, a big one, stays in the ledger until asked for.

    `row["output"]` reads it (once); `dict(row)` and `row.keys()` are a store row's. Without
    reading it as a str: `output_scan()` says whether it is ASCII and holds a FOLD_APART
    character, and `ascii_tail()` reads its end, from SQLite's incremental blob I/O in chunks
    (a 1 MiB log as a str and SQLite's copy of it cost a Stop ~500 fresh pages, ~2 ms)."""

    __slots__ = ("_conn", "_row", "_output", "_scan", "_end")

    # The scan of an ASCII output keeps its last this many bytes for `ascii_tail`: the
    # suggestions ask for the last 4 KiB, then for as far back as 2000 lines reach (~170 KB of a
    # log of 70-character lines; 250 KB unless its lines are longer). Read again from the
    # ledger, each tail cost a walk down the output's chain of overflow pages to its end (~260
    # page reads for 1 MiB, ~0.4 ms) on top of the scan's own.
    KEEP_END = 256 * 1024

    def __init__(self, conn, row):
        self._conn = conn
        self._row = row
        self._output = None
        self._scan = None
        self._end = None  # the scan's last KEEP_END bytes (or all) of an ASCII output

    def __getitem__(self, key):
        if key == "output":
            if self._output is None:
                found = self._conn.execute("SELECT output FROM evidence WHERE num = ?",
                                           (self._row["num"],)).fetchone()
                self._output = (found[0] if found else None, )
            return self._output[0]
        return self._row[key]

    def keys(self):
        return self._row.keys()

    def __len__(self):
        return len(self._row)

    @property
    def loaded(self):
        return self._output is not None

    def output_scan(self):
        """(byte length, whether the output is ASCII, whether it holds a FOLD_APART character);
        the length is None where it was read as text instead (no blob I/O, or it failed)."""
        if self._scan is None:
            try:
                self._scan = self._blob_scan()
            except Exception:
                text = self["output"] or ""
                self._scan = (None, text.isascii(), any(c in text for c in FOLD_APART))
        return self._scan

    def _blob_scan(self):
        if self.loaded:
            raise LookupError("read already")
        apart = [c.encode("utf-8") for c in FOLD_APART]
        with self._conn.blobopen("evidence", "output", self._row["num"], readonly=True) as blob:
            size = len(blob)
            # Chunks of 64 KiB up to the last KEEP_END bytes, then those in one read, kept when
            # the whole output is ASCII. (Where chunks end changes no answer: a character outside
            # ASCII is bytes of 0x80 and up, and no such byte is in an ASCII chunk.)
            last = max(0, size - self.KEEP_END)
            ascii, held, carry, at, end = True, False, b"", 0, None
            while True:
                final = at >= last
                chunk = blob.read(size - at if final else min(1 << 16, last - at))
                if not chunk:
                    break
                at += len(chunk)
                if ascii and not chunk.isascii():
                    ascii = False
                if not ascii:
                    piece = carry + chunk  # a character split between two chunks
                    if any(a in piece for a in apart):
                        held = True
                        break
                elif final:
                    end = chunk
                carry = chunk[-1:]
        if ascii and end is not None and at == size and len(end) == size - last:
            self._end = end
        return size, ascii, held

    def ascii_tail(self):
        """(length, tail) for an ASCII output not read yet: tail(k) is `output[-k:]` (k > 0), read
        from the ledger's end of it; None otherwise."""
        if self.loaded:
            return None
        size, ascii, _ = self.output_scan()
        if size is None or not ascii:
            return None

        end = self._end  # the last KEEP_END bytes, or all of them, or None

        def tail(k):
            if end is not None and (k <= len(end) or len(end) == size):
                return str(memoryview(end)[-k:], "ascii")
            with self._conn.blobopen("evidence", "output", self._row["num"], readonly=True) as blob:
                blob.seek(max(0, size - k))
                return blob.read(min(k, size)).decode("ascii")

        return size, tail


def get_evidence(conn, evidence_id):
    num = parse_id(evidence_id)
    if num is None:
        return None
    return conn.execute(
        "SELECT %s FROM evidence e WHERE e.num = ?" % EVIDENCE_COLUMNS, (num,)
    ).fetchone()


def parse_id(evidence_id):
    text = str(evidence_id).strip().upper()
    if text.startswith("E"):
        text = text[1:]
    return int(text) if text.isdigit() else None


def terms(text):
    """The words of `text` FTS can match: 3+ characters, punctuation trimmed, each once."""
    terms = []
    for term in text.split():
        term = term.strip("\"'`()[]{}.,;:!?。、「」")
        if len(term) >= 3 and term not in terms:
            terms.append(term)
    return terms


def fts_query(text):
    """Turn free text into an FTS5 query: each term of 3+ characters quoted, OR-ed together.

    The trigram tokenizer cannot match shorter terms, and quoting keeps user punctuation
    (`--lr`, `loss=nan`) from being read as FTS syntax.
    """
    return " OR ".join('"%s"' % t.replace('"', '""') for t in terms(text))


def search(conn, query, session_id=None, limit=5, phrase=False):
    """Full-text search over outputs and commands, best match first."""
    if phrase:
        match = '"%s"' % query.replace('"', '""')
    else:
        match = fts_query(query)
    if not match:
        return []
    words = [query] if phrase else terms(query)
    if session_id:
        return _search_session(conn, match, words, session_id, limit)
    # bm25 reads every match of every term in the whole ledger (0.5-1 s at 100k entries).
    # FTS5 returns the newest matches cheaply (it walks the index backwards and stops), so take
    # the newest few for the whole phrase, for all the words and for any word, and rank those.
    queries = [match]
    if len(words) > 1:
        queries = ['"%s"' % query.replace('"', '""'), " AND ".join(match.split(" OR ")), match]
    nums = set()
    for q in queries:
        nums.update(r[0] for r in conn.execute(
            "SELECT rowid FROM evidence_fts WHERE evidence_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            (q, SEARCH_CANDIDATES)))
    if not nums:
        return []
    found = conn.execute(
        "SELECT %s FROM evidence e WHERE e.num IN (%s)" % (EVIDENCE_COLUMNS, ",".join("?" * len(nums))),
        sorted(nums),
    ).fetchall()
    return rank(found, words, limit, phrase=query)


# Newest matches per query that `search` ranks: enough for a person's screenful and for the
# Stop hook's three suggestions, few enough to read in milliseconds.
SEARCH_CANDIDATES = 100


def _search_session(conn, match, terms, session_id, limit):
    nums = session_matches(conn, match, session_id)
    if not nums:
        return []
    found = conn.execute(
        "SELECT %s FROM evidence e WHERE e.session_id = ? AND e.num IN (%s)"
        % (EVIDENCE_COLUMNS, ",".join("?" * len(nums))), [session_id] + sorted(nums),
    ).fetchall()
    return rank(found, terms, limit)


def session_matches(conn, match, session_id):
    """The numbers of one session's entries that an FTS5 query matches.

    bm25 reads every matching row of the whole ledger for each term (its IDF), so a ranked
    search grows with the ledger. Bounding the match by the session's id range (two index
    lookups) makes FTS5 read only that stretch of each term's list; `rank` orders the rest.
    """
    low, high = conn.execute(
        "SELECT MIN(num), MAX(num) FROM evidence WHERE session_id = ?", (session_id,)
    ).fetchone()
    if low is None:
        return set()
    return {r[0] for r in conn.execute(
        "SELECT rowid FROM evidence_fts WHERE evidence_fts MATCH ? AND rowid BETWEEN ? AND ?",
        (match, low, high))}


def term_matches(conn, terms, low, high):
    """{term: numbers of the entries in [low, high] whose command or output holds it}, from the
    FTS index in one statement (each term a quoted phrase, so it matches as a substring).

    The Stop hook asks this for the terms of its suggestions: the trigram index answers from a
    few pages, where looking a term up in the text reads all of it (0.6 ms per MiB and term)."""
    found = {t: set() for t in terms}
    terms = list(found)
    # SQLite allows 500 terms in a compound SELECT.
    for start in range(0, len(terms), 100):
        chunk = terms[start:start + 100]
        sql = " UNION ALL ".join(
            "SELECT %d, rowid FROM evidence_fts WHERE evidence_fts MATCH ? AND rowid BETWEEN ? AND ?" % i
            for i in range(len(chunk)))
        args = []
        for t in chunk:
            args += ['"%s"' % t.replace('"', '""'), low, high]
        for i, num in conn.execute(sql, args):
            found[chunk[i]].add(num)
    return found


# The two characters for which "the lowered text holds an ASCII term" and "the FTS index (its
# case folding) matches it" part: Python lowers "İ" to "i" + a combining dot, FTS leaves it;
# FTS folds "ſ" to "s", Python leaves it. tests/test_suggestions.py checks this against the
# SQLite in use. A row holding either is looked up in its text.
FOLD_APART = ("\u0130", "\u017f")


def _fts_exact(row):
    if isinstance(row, DeferredRow) and not row.loaded:  # the same answer, without the str
        command = row["command"]
        if command and not command.isascii() and any(c in command for c in FOLD_APART):
            return False
        _, ascii, held = row.output_scan()
        return ascii or not held
    for text in (row["command"], row["output"]):
        if text and not text.isascii() and any(c in text for c in FOLD_APART):
            return False
    return True


def rank(rows, terms, limit, folded=None, phrase=None, holds=None, conn=None):
    """Best first: rows holding the whole `phrase`, then by the terms each row's command and
    output hold, a term counting more the fewer rows hold it, newest first among equals.
    `folded` caches lower-cased text by row number. `holds` maps lower-cased ASCII terms to the
    numbers of the rows that hold them, from the FTS index (`term_matches`); a row's text is
    read only for the other terms (and for rows FTS folds differently, see FOLD_APART).
    `conn`, an open ledger, computes the terms' weights (see `_logs`)."""
    if folded is None:
        folded = {}
    holds = holds or {}
    terms = [t.lower() for t in terms]
    # "The" and "the" are one term once lowered: look each up once per row (an absent term
    # costs ~0.5 ms per MiB of output) and count it as often as before.
    unique = list(dict.fromkeys(terms))
    known = [t for t in unique if t in holds]
    whole = phrase.lower() if phrase and len(terms) > 1 else None

    def text_of(r):
        text = folded.get(r["num"])
        if text is None:
            text = folded[r["num"]] = ((r["command"] or "") + "\n" + (r["output"] or "")).lower()
        return text

    if not whole and known and all(map(_fts_exact, rows)):
        return _rank_by_index(rows, terms, unique, holds, limit, text_of, conn)
    texts = [text_of(r) for r in rows] if whole else None
    held_rows = []
    for r in rows:
        if known and _fts_exact(r):
            held = {t: r["num"] in holds[t] for t in known}
            if len(held) < len(unique):
                text = text_of(r)
                held.update({t: t in text for t in unique if t not in held})
        else:
            text = text_of(r)
            held = {t: t in text for t in unique}
        held_rows.append([held[t] for t in terms])
    dfs = [sum(1 for h in held_rows if h[i]) for i in range(len(terms))]
    logs = iter(_logs(conn, [1 + len(rows) / df for df in dfs if df]))
    weight = [next(logs) if df else 0.0 for df in dfs]
    order = sorted(range(len(rows)),
                   key=lambda j: (not (whole and whole in texts[j]),
                                  -sum(w for w, h in zip(weight, held_rows[j]) if h), -rows[j]["num"]))
    return [rows[j] for j in order[:limit]]


def _rank_by_index(rows, terms, unique, holds, limit, text_of, conn):
    """`rank` without a phrase, for rows the FTS index folds as lower() does: the same order,
    from each term's rows (the index's, or the text's for a term it was not asked about)
    instead of a table of every row and term. A row's score is the same sum, of the same
    weights in the same order."""
    position = {r["num"]: j for j, r in enumerate(rows)}
    holders = {}
    for t in unique:
        if t in holds:
            holders[t] = [position[n] for n in holds[t] if n in position]
        else:
            holders[t] = [j for j, r in enumerate(rows) if t in text_of(r)]
    parts = [[] for _ in rows]
    weights = iter(_logs(conn, [1 + len(rows) / len(holders[t]) for t in terms if holders[t]]))
    for t in terms:
        held = holders[t]
        if held:
            weight = next(weights)
            for j in held:
                parts[j].append(weight)
    scores = [sum(p) for p in parts]
    order = sorted(range(len(rows)), key=lambda j: (-scores[j], -rows[j]["num"]))
    return [rows[j] for j in order[:limit]]


def _logs(conn, values):
    """[math.log(v) for v in values], for floats above 0: through SQLite's ln() when `conn` is
    an open connection whose SQLite has it, which computes the same C log() of the same double
    (tests/test_suggestions.py holds them equal), so the Stop hook loads no `math`: a shared
    library, ~0.5 ms of a process, for two ranks' worth of weights. Elsewhere, math.log."""
    global _HAS_LN
    values = list(values)
    if not values:
        return []
    if conn is not None and _HAS_LN:
        try:
            found = []
            for start in range(0, len(values), 500):  # well under SQLite's bound on parameters
                chunk = values[start:start + 500]
                found.extend(conn.execute("SELECT " + ", ".join(["ln(?)"] * len(chunk)), chunk).fetchone())
            if len(found) == len(values) and all(type(v) is float for v in found):
                return found
        except sqlite3.Error:  # no ln(): a SQLite built without its math functions
            _HAS_LN = False
    import math  # not on the recording path

    return [math.log(v) for v in values]


_HAS_LN = True  # False once this process's SQLite turned out to lack ln()


def sessions(conn, limit=50):
    """Sessions, newest activity first, with counts of evidence, claims and blocks."""
    # Counted for the listed sessions only, one grouped query per table: counting in the
    # select list made SQLite count every session's entries before sorting (0.6 s at 100k).
    found = [dict(r) for r in conn.execute(
        "SELECT id, agent, project_dir, cwd, first_seen, last_seen FROM sessions"
        " ORDER BY last_seen DESC LIMIT ?", (limit,))]
    if not found:
        return found
    ids = [s["id"] for s in found]
    marks = ",".join("?" * len(ids))
    counts = {}
    for sql in (
        "SELECT session_id, COUNT(*), SUM(failed != 0) FROM evidence WHERE session_id IN (%s) GROUP BY session_id",
        "SELECT session_id, COUNT(*), 0 FROM claims WHERE session_id IN (%s) GROUP BY session_id",
        "SELECT session_id, COUNT(*), 0 FROM decisions WHERE session_id IN (%s) AND decision = 'block' GROUP BY session_id",
    ):
        counts[sql[:40]] = {r[0]: (r[1], r[2] or 0) for r in conn.execute(sql % marks, ids)}
    evidence, claims, blocks = counts.values()
    for s in found:
        s["evidence"], s["failed"] = evidence.get(s["id"], (0, 0))
        s["claims"] = claims.get(s["id"], (0, 0))[0]
        s["blocks"] = blocks.get(s["id"], (0, 0))[0]
    return found


# Judgements --------------------------------------------------------------------------------

def record_decision(conn, decision, claims=()):
    """Store one Stop decision and the claims it judged; returns the decision id, `D<n>`.

    `decision` keys: session_id, agent, turn_id, event, decision, mode, block_count, reason,
    system_message, message, lang, error, verified_num, verified_hash (the session's newest
    entry when its chain last checked clean, see `verified_upto`). Each claim: text, kind,
    cited, evidence, near_misses.
    """
    row = {
        "session_id": str(decision.get("session_id") or "unknown"),
        "agent": decision.get("agent"),
        "turn_id": _str_or_none(decision.get("turn_id")),
        "event": decision.get("event"),
        "decided_at": round(time.time(), 6),
        "decision": decision.get("decision") or "allow",
        "mode": decision.get("mode"),
        "block_count": int(decision.get("block_count") or 0),
        "reason": redact(decision.get("reason") or "") or None,
        "system_message": redact(decision.get("system_message") or "") or None,
        "message": redact(decision.get("message") or "") or None,
        "lang": decision.get("lang"),
        "error": decision.get("error"),
        "verified_num": _int_or_none(decision.get("verified_num")),
        "verified_hash": _str_or_none(decision.get("verified_hash")),
    }
    conn.execute("BEGIN IMMEDIATE")
    try:
        cursor = conn.execute(
            "INSERT INTO decisions (%s) VALUES (%s)" % (", ".join(row), ", ".join("?" * len(row))),
            tuple(row.values()),
        )
        num = cursor.lastrowid
        for claim in claims:
            conn.execute(
                "INSERT INTO claims (decision_num, session_id, text, kind, cited, evidence,"
                " near_misses) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (num, row["session_id"], redact(claim.get("text") or ""), claim.get("kind"),
                 1 if claim.get("cited") else 0, jsonc.dumps(list(claim.get("evidence") or [])),
                 jsonc.dumps(_redact_tree(list(claim.get("near_misses") or [])), ensure_ascii=False, default=str)),
            )
        _touch_session(conn, row["session_id"], decision)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return "D%d" % num


def blocks_in_turn(conn, session_id, turn_id):
    """How many times this turn's stop has been blocked already.

    With a turn id (Claude's prompt_id, Codex's turn_id, Gemini's derived key) count that turn's
    blocks since its last allowed stop: an allow ends the turn, and a key can come back (Gemini's
    fallback key is the prompt text, typed again). Without an id, count the session's blocks
    since its last allowed stop: consecutive blocks belong to one turn.
    """
    scope, args = "session_id = ?", [session_id]
    if turn_id:
        scope, args = "session_id = ? AND turn_id = ?", [session_id, str(turn_id)]
    last_allow = conn.execute(
        "SELECT MAX(num) FROM decisions WHERE %s AND decision != 'block'" % scope, args,
    ).fetchone()[0] or 0
    return conn.execute(
        "SELECT COUNT(*) FROM decisions WHERE %s AND num > ? AND decision = 'block'" % scope,
        args + [last_allow],
    ).fetchone()[0]


def verified_upto(conn, session_id):
    """(num, hash) of the session's newest entry at its last clean chain check, or None."""
    row = conn.execute(
        "SELECT verified_num, verified_hash FROM decisions WHERE session_id = ?"
        " AND verified_num IS NOT NULL ORDER BY num DESC LIMIT 1", (session_id,),
    ).fetchone()
    return (row[0], row[1]) if row else None


def session_decisions(conn, session_id):
    return conn.execute(
        "SELECT 'D' || num AS id, * FROM decisions WHERE session_id = ? ORDER BY num", (session_id,)
    ).fetchall()


def decision_claims(conn, decision_num):
    return conn.execute(
        "SELECT * FROM claims WHERE decision_num = ? ORDER BY num", (decision_num,)
    ).fetchall()
