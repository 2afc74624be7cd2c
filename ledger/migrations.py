"""The ledger's schema, one small named function per version.

`store.connect` compares `PRAGMA user_version` with `len(MIGRATIONS)` (one cheap query) and
only then imports this module, so the hook path never runs migration code on a current file.
Append new functions; never edit one that has shipped.
"""

import sqlite3


def m001_initial(conn):
    _run(
        conn,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            agent TEXT,
            project_dir TEXT,
            cwd TEXT,
            transcript_path TEXT,
            first_seen REAL,
            last_seen REAL
        );
        CREATE TABLE evidence (
            num INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            agent TEXT,
            turn_id TEXT,
            tool_use_id TEXT,
            agent_id TEXT,
            event TEXT,
            tool_name TEXT,
            tool_input TEXT,
            command TEXT,
            output TEXT,
            failed INTEGER NOT NULL DEFAULT 0,
            exit_code INTEGER,
            interrupted INTEGER NOT NULL DEFAULT 0,
            duration_ms INTEGER,
            cwd TEXT,
            recorded_at REAL NOT NULL,
            output_sha256 TEXT,
            output_length INTEGER,
            truncated INTEGER NOT NULL DEFAULT 0,
            prev_hash TEXT,
            hash TEXT
        );
        CREATE INDEX evidence_session ON evidence (session_id, num);
        -- trigram: substring search that works for Japanese too, where words have no spaces.
        CREATE VIRTUAL TABLE evidence_fts USING fts5(
            command, output, content='evidence', content_rowid='num', tokenize='trigram'
        );
        CREATE TRIGGER evidence_ai AFTER INSERT ON evidence BEGIN
            INSERT INTO evidence_fts (rowid, command, output) VALUES (new.num, new.command, new.output);
        END;
        CREATE TRIGGER evidence_ad AFTER DELETE ON evidence BEGIN
            INSERT INTO evidence_fts (evidence_fts, rowid, command, output)
                VALUES ('delete', old.num, old.command, old.output);
        END;
        CREATE TABLE decisions (
            num INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            agent TEXT,
            turn_id TEXT,
            event TEXT,
            decided_at REAL NOT NULL,
            decision TEXT NOT NULL,
            mode TEXT,
            block_count INTEGER NOT NULL DEFAULT 0,
            reason TEXT,
            system_message TEXT,
            message TEXT,
            lang TEXT,
            error TEXT
        );
        CREATE INDEX decisions_session ON decisions (session_id, num);
        CREATE TABLE claims (
            num INTEGER PRIMARY KEY AUTOINCREMENT,
            decision_num INTEGER NOT NULL REFERENCES decisions (num),
            session_id TEXT NOT NULL,
            text TEXT NOT NULL,
            kind TEXT NOT NULL,
            cited INTEGER NOT NULL,
            evidence TEXT,
            near_misses TEXT
        );
        CREATE INDEX claims_decision ON claims (decision_num);
        """
    )


def m002_gc_log(conn):
    # What `ledger gc` deleted, so `ledger verify` can tell its gaps in the ids from deletions
    # by hand. IF NOT EXISTS: gc created this table itself before it was a migration.
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS gc_log (
            num INTEGER PRIMARY KEY AUTOINCREMENT,
            ran_at REAL NOT NULL,
            first_num INTEGER NOT NULL,
            last_num INTEGER NOT NULL,
            sessions INTEGER NOT NULL,
            reason TEXT
        );
        """
    )


def m003_claims_by_session(conn):
    # `ledger show` counts claims per session; without this it scans every claim.
    conn.execute("CREATE INDEX IF NOT EXISTS claims_session ON claims (session_id)")


def m004_verified_checkpoint(conn):
    # The Stop hook's last clean chain check of the session: its newest entry then, and that
    # entry's hash. The next Stop re-hashes only what came after (verify.check_since).
    conn.execute("ALTER TABLE decisions ADD COLUMN verified_num INTEGER")
    conn.execute("ALTER TABLE decisions ADD COLUMN verified_hash TEXT")


def m005_decisions_by_turn(conn):
    # The Stop hook counts this turn's blocks since its last allowed stop (store.blocks_in_turn)
    # on every end of turn; by session alone that read every decision of the session (1.3 ms
    # at 880 of them), by session and turn it reads this turn's.
    conn.execute("CREATE INDEX IF NOT EXISTS decisions_turn ON decisions (session_id, turn_id, num)")


def _run(conn, script):
    # Not executescript(): it commits first, which would drop the caller's write lock.
    statement = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""


MIGRATIONS = [m001_initial, m002_gc_log, m003_claims_by_session, m004_verified_checkpoint,
              m005_decisions_by_turn]


def migrate(conn):
    """Bring `conn` up to date. The caller holds a write lock (BEGIN IMMEDIATE)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for number, migration in enumerate(MIGRATIONS, start=1):
        if number > version:
            migration(conn)
            conn.execute("PRAGMA user_version = %d" % number)
