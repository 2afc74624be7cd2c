"""The Stop guard: the agent's final message against the session's recorded evidence.

Fails open: an internal error allows the stop, is written to the ledger when it can be, and
leaves one line on stderr. A broken config file is the one failure the user is told about in
the session itself (a systemMessage), because silently running without it would surprise them.
"""

import json
import os

from ledger import config as config_mod
from ledger import guard, store
from ledger.hooks import note


def handle(event, adapter):
    project_dir = os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("GEMINI_PROJECT_DIR") or event.get("cwd")
    try:
        config, _ = config_mod.load(project_dir)
    except config_mod.ConfigError as exc:
        note("config error, guard off until fixed: %s" % exc)
        return adapter.stop_output(guard.Verdict(
            "allow", system_message="evidence-ledger: broken config, the guard is off: %s (run `ledger doctor`)" % exc))

    session_id = event.get("session_id") or "unknown"
    message = event.get("message")
    if message is None and event.get("transcript_path"):
        from ledger import transcript

        message = transcript.final_message(event["transcript_path"])
    conn = store.connect()
    try:
        try:
            verdict, report, blocks = judge(conn, event, session_id, message or "", config, project_dir)
        except Exception as exc:
            note("internal error in the Stop guard, stop allowed: %s: %s" % (exc.__class__.__name__, exc))
            _record(conn, event, session_id, guard.Verdict("allow"), None, 0, config, message,
                    error="%s: %s" % (exc.__class__.__name__, exc))
            return None
        _record(conn, event, session_id, verdict, report, blocks, config, message)
    finally:
        conn.close()
    return adapter.stop_output(verdict)


def judge(conn, event, session_id, message, config, project_dir):
    from ledger.detect import Evidence, analyze, load_rules

    rows = store.session_evidence(conn, session_id)
    evidence = [Evidence(id=r["id"], output=r["output"] or "", input_text=_input_text(r)) for r in rows]
    report = analyze(message, evidence=evidence, rules=load_rules(project_dir))
    blocks = store.blocks_in_turn(conn, session_id, event.get("turn_id"))

    def related(claim):
        hits = store.search(conn, claim.text, session_id=session_id, limit=3)
        if not hits:  # nothing shares a term: point at the latest failures, then the latest calls
            hits = sorted(rows, key=lambda r: (not r["failed"], -r["num"]))[:3]
        return [(h["id"], _summary(h)) for h in hits]

    verdict = guard.decide(report, config, blocks_so_far=blocks, related=related)
    return verdict, report, blocks


def _input_text(row):
    parts = [row["command"] or ""]
    raw = row["tool_input"]
    if raw:
        try:
            parts.extend(_strings(json.loads(raw)))
        except ValueError:
            parts.append(raw)
    return "\n".join(p for p in parts if p)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _summary(row):
    status = "exit %s" % row["exit_code"] if row["exit_code"] not in (None, 0) else ("failed" if row["failed"] else "ok")
    target = row["command"] or row["tool_name"] or ""
    first = next((line for line in (row["output"] or "").splitlines() if line.strip()), "")
    return "%s: %s (%s) -> %s" % (row["tool_name"] or "tool", target, status, first)


def _record(conn, event, session_id, verdict, report, blocks, config, message, error=None):
    claims = []
    if report is not None:
        for c in report.claims:
            claims.append({"text": c.text, "kind": c.kind, "cited": c.cited,
                           "evidence": list(c.evidence or []),
                           "near_misses": list(getattr(c, "near_misses", None) or [])})
    store.record_decision(conn, {
        "session_id": session_id,
        "agent": event.get("agent"),
        "turn_id": event.get("turn_id"),
        "event": event.get("event"),
        "decision": verdict.decision,
        "mode": config.get("mode"),
        "block_count": blocks + (1 if verdict.decision == "block" else 0),
        "reason": verdict.reason,
        "system_message": verdict.system_message,
        "message": message,
        "lang": getattr(report, "lang", None),
        "error": error,
        "cwd": event.get("cwd"),
        "project_dir": event.get("cwd"),
        "transcript_path": event.get("transcript_path"),
    }, claims)
