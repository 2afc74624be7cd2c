"""What `ledger show` and `ledger search` print: tables a person reads in a terminal, or JSON.

Human-facing only (the hooks never import this), so click is fine here. Colour goes through
click.style and click.echo, which drop it when stdout is not a terminal.
"""

import datetime
import json
import re
import shutil

import click

from ledger import store


class NotFound(click.ClickException):
    """An id or prefix that names nothing; exit 1 with the message, no traceback."""


def open_ledger(path=None):
    try:
        return store.connect(path, readonly=True)
    except store.LedgerError as exc:
        raise click.ClickException(str(exc))


# Formatting ----------------------------------------------------------------------------------

def when(ts, with_date=True):
    if ts is None:
        return "-"
    moment = datetime.datetime.fromtimestamp(ts)
    return moment.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


def size(n):
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0


def one_line(text, width):
    """Collapse whitespace and cut to `width` characters, marking the cut with an ellipsis."""
    text = " ".join(str(text or "").split())
    if width and len(text) > width:
        return text[: max(width - 1, 0)] + "…"
    return text


def status(row):
    if row["interrupted"]:
        return "interrupted"
    if row["exit_code"] is not None:
        return "exit %d" % row["exit_code"]
    return "failed" if row["failed"] else "ok"


def _status_colour(text):
    if text in ("ok", "exit 0"):
        return "green"
    return "red"


def table(headers, rows, styles=None, flex=None):
    """Aligned columns. `flex` names the one column that is cut to fit the terminal."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    if flex is not None:
        others = sum(w + 2 for i, w in enumerate(widths) if i != flex)
        room = max(shutil.get_terminal_size((120, 24)).columns - others, 20)
        widths[flex] = min(widths[flex], room)
    last = len(headers) - 1
    lines = ["  ".join(click.style(h if i == last else h.ljust(w), bold=True)
                       for i, (h, w) in enumerate(zip(headers, widths)))]
    for row in rows:
        cells = []
        for i, (cell, w) in enumerate(zip(row, widths)):
            cell = one_line(cell, w) if i == flex else cell
            text = cell.ljust(w) if i != len(row) - 1 else cell
            colour = styles(i, cell) if styles else None
            cells.append(click.style(text, fg=colour) if colour else text)
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def as_json(value):
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


# Lookups -------------------------------------------------------------------------------------

def resolve_session(conn, prefix):
    found = [r[0] for r in conn.execute(
        "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY last_seen DESC",
        (len(prefix), prefix)).fetchall()]
    if not found:
        raise NotFound("no session, evidence entry or decision matches %r (see `ledger show`)" % prefix)
    if len(found) > 1 and prefix not in found:
        raise NotFound("%r matches %d sessions: %s; give more of the id"
                       % (prefix, len(found), ", ".join(found[:5])))
    return prefix if prefix in found else found[0]


def _evidence_dict(row):
    data = dict(row)
    if data.get("tool_input"):
        try:
            data["tool_input"] = json.loads(data["tool_input"])
        except ValueError:
            pass
    for flag in ("failed", "interrupted", "truncated"):
        data[flag] = bool(data.get(flag))
    return data


def _decision_dict(conn, row):
    data = dict(row)
    data["claims"] = [_claim_dict(c) for c in store.decision_claims(conn, row["num"])]
    return data


def _claim_dict(row):
    data = dict(row)
    data["cited"] = bool(data.get("cited"))
    for key in ("evidence", "near_misses"):
        try:
            data[key] = json.loads(data.get(key) or "[]")
        except ValueError:
            pass
    return data


# Views ---------------------------------------------------------------------------------------

def sessions_view(conn, limit, json_out):
    found = [dict(r) for r in store.sessions(conn, limit=limit)]
    if json_out:
        return as_json(found)
    if not found:
        return "No sessions recorded yet. Install the hooks with `ledger install`."
    rows = [[s["id"], s["project_dir"] or s["cwd"] or "-", s["agent"] or "-", when(s["first_seen"]),
             str(s["evidence"]), str(s["failed"]), str(s["claims"]), str(s["blocks"])]
            for s in found]

    def styles(i, cell):
        if i == 5 and cell != "0":
            return "red"
        if i == 7 and cell != "0":
            return "yellow"
        return None

    return table(["SESSION", "PROJECT", "AGENT", "STARTED", "EVIDENCE", "FAILED", "CLAIMS",
                  "BLOCKS"], rows, styles=styles, flex=1)


def session_view(conn, session_id, json_out):
    session = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    evidence = store.session_evidence(conn, session_id)
    decisions = store.session_decisions(conn, session_id)
    if json_out:
        timeline = [dict(_evidence_dict(e), type="evidence", time=e["recorded_at"]) for e in evidence]
        timeline += [dict(_decision_dict(conn, d), type="decision", time=d["decided_at"])
                     for d in decisions]
        timeline.sort(key=lambda item: (item["time"], item["type"] == "decision"))
        return as_json({"session": dict(session) if session else {"id": session_id},
                        "timeline": timeline})
    head = "%s  %s  %s  %s" % (
        click.style(session_id, bold=True),
        (session["agent"] if session else None) or "-",
        (session["project_dir"] or session["cwd"] or "-") if session else "-",
        when(session["first_seen"]) if session else "-",
    )
    items = [(e["recorded_at"], 0, e) for e in evidence] + [(d["decided_at"], 1, d) for d in decisions]
    items.sort(key=lambda item: (item[0], item[1]))
    rows, notes = [], {}
    for _, is_decision, row in items:
        if not is_decision:
            rows.append([row["id"], when(row["recorded_at"], with_date=False), row["tool_name"] or "-",
                         row["command"] or "", status(row),
                         size(row["output_length"]) + (" (cut)" if row["truncated"] else "")])
        else:
            claims = store.decision_claims(conn, row["num"])
            rows.append([row["id"], when(row["decided_at"], with_date=False), "decision",
                         row["reason"] or row["error"] or "", row["decision"],
                         "%d claim%s" % (len(claims), "" if len(claims) == 1 else "s")])
            notes[len(rows) - 1] = claims
    if not rows:
        return head + "\n(no entries)"

    def styles(i, cell):
        if i == 4:
            if cell in ("block",):
                return "red"
            if cell in ("allow",):
                return "green"
            if cell == "warn":
                return "yellow"
            return _status_colour(cell)
        if i == 0:
            return "cyan"
        return None

    lines = table(["ID", "TIME", "TOOL", "COMMAND / TARGET", "STATUS", "SIZE"], rows,
                  styles=styles, flex=3).split("\n")
    out = [head, lines[0]]
    width = shutil.get_terminal_size((120, 24)).columns
    for index, line in enumerate(lines[1:]):
        out.append(line)
        for claim in notes.get(index, ()):
            cited = json.loads(claim["evidence"] or "[]")
            mark = click.style("cited", fg="green") if claim["cited"] else click.style("uncited", fg="red")
            tail = (" -> " + ", ".join(cited)) if cited else ""
            out.append("      %s %s %s%s" % (claim["kind"], mark, one_line(claim["text"], max(width - 40, 30)), tail))
    return "\n".join(out)


def evidence_view(conn, row, json_out):
    data = _evidence_dict(row)
    if json_out:
        return as_json(data)
    fields = [
        ("session", data["session_id"]), ("agent", data["agent"]), ("event", data["event"]),
        ("tool", data["tool_name"]), ("command", data["command"]), ("status", status(row)),
        ("recorded", when(data["recorded_at"])), ("duration", "%s ms" % data["duration_ms"]
                                                  if data["duration_ms"] is not None else None),
        ("cwd", data["cwd"]), ("turn", data["turn_id"]), ("tool_use_id", data["tool_use_id"]),
        ("subagent", data["agent_id"]),
        ("size", size(data["output_length"]) + (" (stored head and tail only)" if data["truncated"] else "")),
        ("sha256", data["output_sha256"]),
    ]
    out = [click.style(data["id"], bold=True, fg="cyan")]
    out += ["%-12s %s" % (k + ":", v) for k, v in fields if v not in (None, "")]
    if data["tool_input"] and not data["command"]:
        out.append("%-12s %s" % ("input:", json.dumps(data["tool_input"], ensure_ascii=False)))
    out.append(click.style("output:", bold=True))
    out.append(data["output"] or "(empty)")
    return "\n".join(out)


def decision_view(conn, row, json_out):
    data = _decision_dict(conn, row)
    if json_out:
        return as_json(data)
    colour = {"block": "red", "allow": "green", "warn": "yellow"}.get(data["decision"])
    out = ["%s  %s" % (click.style(data["id"], bold=True, fg="cyan"),
                       click.style(data["decision"], fg=colour, bold=True))]
    for key in ("session_id", "agent", "event", "turn_id", "mode", "block_count", "lang", "error"):
        if data.get(key) not in (None, ""):
            out.append("%-12s %s" % (key.replace("_id", "") + ":", data[key]))
    out.append("%-12s %s" % ("decided:", when(data["decided_at"])))
    for key in ("reason", "system_message", "message"):
        if data.get(key):
            out.append(click.style(key.replace("_", " ") + ":", bold=True))
            out.append(data[key])
    out.append(click.style("claims:", bold=True) + ("" if data["claims"] else " none"))
    for claim in data["claims"]:
        mark = click.style("cited", fg="green") if claim["cited"] else click.style("uncited", fg="red")
        cites = (" -> " + ", ".join(claim["evidence"])) if claim["evidence"] else ""
        out.append("  - %s %s%s: %s" % (claim["kind"], mark, cites, claim["text"]))
    return "\n".join(out)


def get_decision(conn, ident):
    text = ident.strip().upper()
    if not re.fullmatch(r"D\d+", text):
        return None
    return conn.execute("SELECT 'D' || num AS id, * FROM decisions WHERE num = ?",
                        (int(text[1:]),)).fetchone()


def show(conn, ident, limit=50, json_out=False):
    if ident is None:
        return sessions_view(conn, limit, json_out)
    text = ident.strip()
    if re.fullmatch(r"[Ee]\d+", text):
        row = store.get_evidence(conn, text)
        if row is not None:
            return evidence_view(conn, row, json_out)
        if not _any_session(conn, text):
            raise NotFound("no evidence entry %s in this ledger" % text.upper())
    if re.fullmatch(r"[Dd]\d+", text):
        row = get_decision(conn, text)
        if row is not None:
            return decision_view(conn, row, json_out)
        if not _any_session(conn, text):
            raise NotFound("no decision %s in this ledger" % text.upper())
    return session_view(conn, resolve_session(conn, text), json_out)


def _any_session(conn, prefix):
    return conn.execute("SELECT 1 FROM sessions WHERE substr(id, 1, ?) = ? LIMIT 1",
                        (len(prefix), prefix)).fetchone() is not None


def snippet(text, query, width=70):
    """The part of `text` around the first term of `query` it contains, on one line."""
    flat = " ".join((text or "").split())
    lower = flat.lower()
    at = -1
    for term in [query] + query.split():  # the whole phrase where it occurs, else a word
        at = lower.find(term.lower())
        if at >= 0:
            break
    if at < 0:
        return one_line(flat, width)
    start = max(at - width // 3, 0)
    piece = flat[start:start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def search_view(conn, query, session_id, limit, json_out):
    found = store.search(conn, query, session_id=session_id, limit=limit)
    if json_out:
        return as_json([_evidence_dict(r) for r in found])
    if not found:
        return None
    rows = [[r["id"], r["session_id"][:12], r["tool_name"] or "-", one_line(r["command"], 40),
             snippet(r["output"], query)] for r in found]
    return table(["ID", "SESSION", "TOOL", "COMMAND / TARGET", "MATCH"], rows,
                 styles=lambda i, cell: "cyan" if i == 0 else None, flex=4)
