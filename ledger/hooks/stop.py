"""The Stop guard: the agent's final message against the session's recorded evidence.

Fails open: an internal error allows the stop, is written to the ledger when it can be, and
leaves one line on stderr. A broken config file is the one failure the user is told about in
the session itself (a systemMessage), because silently running without it would surprise them.
"""

import os
from itertools import accumulate, repeat

from ledger import config as config_mod
from ledger import diskcache, guard, jsonc, store, verify
from ledger.hooks import note


def handle(event, adapter):
    global merge_due
    merge_due = False
    project_dir = os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("GEMINI_PROJECT_DIR") or event.get("cwd")
    try:
        config, _ = config_mod.load(project_dir)
    except config_mod.ConfigError as exc:
        note("config error, guard off until fixed: %s" % exc)
        return adapter.stop_output(guard.Verdict(
            "allow", system_message="evidence-ledger: broken config, the guard is off: %s (run `ledger doctor`)" % exc))

    session_id = str(event.get("session_id") or "unknown")
    message = event.get("message")
    if message is None and event.get("transcript_path"):
        message, problem = read_transcript(event["transcript_path"])
        if problem:
            note(problem + "; stop allowed")
            from ledger import faults  # loaded where a fault is told, not by every Stop

            faults.add("transcript", problem, session_id=session_id, once=True)
    message = _bounded(message)
    try:
        conn = store.connect(cache_kib=STOP_CACHE_KIB)
    except Exception as exc:
        from ledger.hooks import fault

        fault(exc, session_id, "the Stop guard could not open the ledger, stop allowed")
        return _output(adapter, guard.Verdict("allow"), session_id)
    checkpoint = []
    try:
        try:
            verdict, report, blocks = judge(conn, event, session_id, message or "", config, project_dir,
                                            checkpoint)
        except Exception as exc:
            note("internal error in the Stop guard, stop allowed: %s: %s" % (exc.__class__.__name__, exc))
            _record(conn, event, session_id, guard.Verdict("allow"), None, 0, config, message,
                    error="%s: %s" % (exc.__class__.__name__, exc))
            return _output(adapter, guard.Verdict("allow"), session_id)
        _record(conn, event, session_id, verdict, report, blocks, config, message, checkpoint=checkpoint)
        # Whether the search index has grown deep enough to merge, after the verdict is out
        # (ledger/merge.py): one read of its structure record.
        merge_due = store.index_merge_due(conn)
    finally:
        conn.close()
    return _output(adapter, verdict, session_id)


# Set by handle(): the caller starts the index merge once the verdict is written.
merge_due = False


# SQLite's page cache for the Stop's connection (store.connect): it reads each page about once.
STOP_CACHE_KIB = 512

# Outputs this big or bigger are read only where the Stop needs them (see judge).
DEFER_OUTPUT_BYTES = 256 * 1024

# Final answers are a few KB; a message past this is judged on its head and tail (where a
# diagnosis sits), so the hook finishes well inside the agent's hook timeout.
MAX_MESSAGE = 64 * 1024


def _bounded(message):
    if not isinstance(message, str) or len(message) <= MAX_MESSAGE:
        return message
    half = MAX_MESSAGE // 2
    head = message[:half].rsplit("\n", 1)[0]
    tail = message[-half:].split("\n", 1)[-1]
    note("final message is %d characters; judging its first and last %d KB" % (len(message), half // 1024))
    return head + "\n\n" + tail


def _output(adapter, verdict, session_id):
    """The adapter's output, plus one systemMessage naming our own faults not yet reported.

    A block carries only the reason (the agent reads it, not the user), so faults wait for the
    next stop that is allowed.
    """
    if verdict.decision != "block":
        from ledger import faults

        try:
            waiting = faults.pending(session_id)
        except Exception:
            waiting = []
        if waiting:
            text = faults.summary(waiting)
            verdict.system_message = verdict.system_message + "\n" + text if verdict.system_message else text
            faults.mark_reported(waiting, session_id)
    return adapter.stop_output(verdict)


def read_transcript(path):
    """(final message, problem): problem says why the transcript could not be used."""
    from ledger import transcript

    if not isinstance(path, str):
        return None, "transcript_path %r is not a path, so the final message was not checked" % (path,)
    if not os.path.isfile(path):
        return None, "transcript %s does not exist, so the final message was not checked" % path
    try:
        size = os.path.getsize(path)
        message = transcript.final_message(path)
        partial = _tail_is_partial(path)
    except (OSError, ValueError, RecursionError) as exc:
        return None, "transcript %s could not be read (%s), so the final message was not checked" % (path, exc)
    if partial:
        # final_message already waited for the client's flush; a line still cut short means the
        # newest message may be the broken one, and judging an older one risks a false block.
        return None, "transcript %s ends in a partial line, so the final message was not checked" % path
    if message is None and size > transcript.MAX_BACK:
        return None, ("transcript %s is %d MB and its final message is not in the last %d MB, so it "
                      "was not checked" % (path, size // 2**20, transcript.MAX_BACK // 2**20))
    return message, None


def _tail_is_partial(path, window=1024 * 1024):
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - window))
        data = f.read()
    if not data or data.endswith(b"\n"):
        return False
    if b"\n" not in data and size > window:
        return False  # one enormous line: cannot tell, do not guess
    last = data.rsplit(b"\n", 1)[-1]
    if not last.strip():
        return False
    try:
        jsonc.loads(last)
    except ValueError:
        return True
    return False


def judge(conn, event, session_id, message, config, project_dir, checkpoint=None):
    """(verdict, report, blocks). `checkpoint`, a list, receives [num, hash] of the session's
    newest entry when its chain checked clean (the decision records it for the next Stop)."""
    from ledger.detect import analyze, evidence_from_rows, load_rules
    from ledger.detect.rules import forget_texts

    if checkpoint is None:
        checkpoint = []

    # A big output (a 1 MiB log) stays in the ledger until something reads it (store.DeferredRow).
    rows = store.session_evidence(conn, session_id, defer=DEFER_OUTPUT_BYTES)
    # Entries that fail the hash chain (edited, added by hand) are not evidence; the reason names
    # them and the user hears about it once. Only what the last clean check did not cover is
    # re-hashed: the newer entries now, the older ones a claim cites once the detector has run.
    problems, untrusted, upto = verify.check_since(rows, store.verified_upto(conn, session_id))
    trusted = [r for r in rows if r["id"] not in untrusted] if untrusted else rows
    rules = load_rules(project_dir)
    # The same conversion `ledger check` uses, so the command and the hook judge alike.
    report = analyze(message, evidence=evidence_from_rows(trusted), rules=rules)
    rehashed = set()
    while upto is not None:
        cited = {e for c in report.claims for e in c.evidence}
        older = [r for r in trusted if r["num"] <= upto and r["id"] in cited and r["id"] not in rehashed]
        if not older:
            break
        rehashed.update(r["id"] for r in older)
        more, bad = verify.rehash(older)
        if not bad:
            break
        # A cited entry was edited in place: judge again without it (and whatever it hid).
        problems += more
        untrusted += bad
        trusted = [r for r in trusted if r["id"] not in bad]
        report = analyze(message, evidence=evidence_from_rows(trusted), rules=rules)
    forget_texts()  # the detector's memo of its sentences: freed for what follows
    if untrusted:
        detail = "session %s: %s" % (session_id, "; ".join(p.detail for p in problems)[:400])
        note("ignored evidence that failed the integrity check: " + detail)
        from ledger import faults

        faults.add("tampered", detail, session_id=session_id, once=True)
    # What the next Stop may take as checked: this session's newest entry, when nothing failed.
    checkpoint[:] = [rows[-1]["num"], rows[-1]["hash"]] if rows and not problems else []
    rows = trusted
    blocks = store.blocks_in_turn(conn, session_id, event.get("turn_id"))

    folded = {}
    # Which entries hold each term, from the FTS index, asked once per term for all claims.
    # The session's rows are in hand, so its id range bounds the search (bm25 would read what
    # the whole ledger holds), and the ranking happens here.
    matched = {}
    low, high = (rows[0]["num"], rows[-1]["num"]) if rows else (0, -1)

    def related(claim):
        words = store.terms(claim.text)
        # FTS folds ASCII case as lower() does: one lookup for "The" and "the".
        keys = {w: w.lower() if w.isascii() else w for w in words}
        missing = [k for k in dict.fromkeys(keys.values()) if k not in matched]
        if missing and rows:
            matched.update(store.term_matches(conn, missing, low, high))
        nums = set().union(*(matched.get(k, ()) for k in keys.values()))
        # An ASCII term's FTS match is exactly "the lowered text holds it"; other terms are
        # looked up in the text, as before.
        holds = {w.lower(): matched.get(keys[w], set()) for w in words if w.isascii()}
        hits = store.rank([r for r in rows if r["num"] in nums], words, 3, folded, holds=holds, conn=conn)
        if not hits:  # nothing shares a term: point at the latest failures, then the latest calls
            hits = sorted(rows, key=lambda r: (not r["failed"], -r["num"]))[:3]
        # The terms FTS says a row lacks are in no line of its output: best_line need not look
        # for them (a 1 MiB log's last 2000 lines are 140 KB, 60 us a term).
        return [(h["id"], _summary(h, claim.text, _lacks(h, holds))) for h in hits]

    verdict = guard.decide(report, config, blocks_so_far=blocks, related=related,
                           ignored_evidence=untrusted)
    return verdict, report, blocks


def _lacks(row, holds):
    """The lower-cased ASCII terms `row` holds nowhere in its command or output, by the FTS
    index (`holds`: term -> numbers of the rows holding it), where its folding is lower()'s."""
    if not holds or not store._fts_exact(row):
        return frozenset()
    num = row["num"]
    return frozenset(t for t, nums in holds.items() if num not in nums)


def _summary(row, claim_text="", lacks=frozenset()):
    status = "exit %s" % row["exit_code"] if row["exit_code"] not in (None, 0) else ("failed" if row["failed"] else "ok")
    target = row["command"] or row["tool_name"] or ""
    # An ASCII output still in the ledger (store.DeferredRow): only its end is read.
    end = row.ascii_tail() if isinstance(row, store.DeferredRow) else None
    if end is not None:
        line = _best_of(_last_lines("", 2000, *end), claim_text, lacks)
    else:
        line = best_line(row["output"] or "", claim_text, lacks=lacks)
    return "%s: %s (%s) -> %s" % (row["tool_name"] or "tool", target, status, line)


# Words that make a line worth showing even when it shares no term with the claim.
_ALARM = ("nan", "inf", "error", "exception", "traceback", "killed", "oom", "out of memory",
          "fail", "timeout", "timed out", "fatal", "panic", "segmentation", "abort", "エラー", "失敗")
# re.escape(word) for each: only the spaces need a backslash (tests/test_suggestions.py).
_ALARM_RE = diskcache.compile("|".join(w.replace(" ", "\\ ") for w in _ALARM))
_ALARM_LETTERS = [(w, frozenset(w)) for w in _ALARM]


def best_line(output, claim_text, scan=2000, lacks=frozenset()):
    """The output line the agent most likely needs: most terms shared with the claim, then an
    alarm word, then the last line. Quoting it verbatim is what the guard accepts.

    `lacks`: lower-cased terms known to be nowhere in `output` (see _lacks); a line cannot hold
    them, so they are not looked for. The line is the same either way."""
    return _best_of(_last_lines(output, scan), claim_text, lacks)


def _best_of(lines, claim_text, lacks=frozenset()):
    """best_line, given the lines it looks at (the output's last `scan`)."""
    terms = {t for t in _words(claim_text) if len(t) >= 3}
    if lacks:
        terms -= lacks
    block = "\n".join(lines)
    if block.isascii():
        # The lowered block replaces the block, which is freed before the search allocates (a
        # 1 MiB log's last 2000 lines are 140 KB: ~35 fresh pages less at the Stop's peak).
        block = block.lower()
        return _best_ascii_line(lines, block, terms)
    best, best_score = "", -1
    # Read from the end: the first line seen with the top score is the latest one, which is the
    # one to show (logs end where things went wrong), so a line must beat the best, not tie it.
    for line in reversed(lines):
        stripped = line.strip()
        if not stripped:
            continue
        lowered = stripped.lower()
        # A line holding none of the terms as a substring shares no word with the claim, and
        # only lines that hold some are split into words (most of the cost: a log line often
        # holds one term, "step"). Terms that are words of the line are among those it holds as
        # substrings (for ASCII, where lowering again changes nothing), so an ASCII line that
        # cannot beat the best even with an alarm word and all of them as words is passed over
        # before any regex runs.
        held = sum(map(lowered.__contains__, terms))
        ascii_line = lowered.isascii()
        if ascii_line and 2 + 4 * held <= best_score:
            continue
        score = 2 if _ALARM_RE.search(lowered) else 0
        if held:
            if ascii_line and score + 4 * held <= best_score:
                continue
            score += 4 * len(terms.intersection(_words(lowered)))
        if score > best_score:
            best, best_score = stripped, score
    return best[:200]


def _best_ascii_line(lines, lowered_block, terms):
    """`best_line` for ASCII lines (`lowered_block`: them joined by "\n", lowered): the same line.

    Lowering ASCII works character by character, so the block split at "\n" gives each line
    lowered, and neither a term nor an alarm word holds a "\n": the lines that hold a term, or
    an alarm word, are found by searching the whole block (in C), not line by line. Only those
    lines can score above 0 (2 for an alarm word, 4 per term that is one of its words, a term
    that is a word being a term it holds); they are scored from the highest bound down, latest
    first, until no line left can beat the best. Every other line scores 0, so when no line
    scores more the latest line that is not blank is the one (a 1 MiB log whose every line holds
    "step" splits one or two lines into words, not two thousand).
    """
    # The lines holding each term the block holds. A word is looked for (a scan of the block,
    # ~60 us for a 1 MiB log's 140 KB) only when the block holds each of its letters: a
    # one-character search stops at the first one, and the one a block lacks ("x" of
    # "exception" in a training log) rules the word out in a memchr.
    holding = [_lines_holding(lowered_block.split(term)) for term in terms
               if _letters_in(lowered_block, set(term)) and term in lowered_block]
    alarmed = set()  # the lines _ALARM_RE finds a match in: those holding one of its words
    for word, letters in _ALARM_LETTERS:
        if _letters_in(lowered_block, letters) and word in lowered_block:
            alarmed.update(_lines_holding(lowered_block.split(word)))
    best, best_score, best_at = "", 0, -1
    # Highest bound first, then latest: a line whose bound and index are below the best's can
    # neither beat its score nor tie it later in the output.
    for bound, i in _by_bound(holding, alarmed):
        if (bound, i) < (best_score, best_at):
            break
        stripped = lines[i].strip()
        score = 2 if i in alarmed else 0
        if bound > score:
            score += 4 * len(terms.intersection(_words(stripped.lower())))
        if score and (score, i) > (best_score, best_at):
            best, best_score, best_at = stripped, score, i
    if best_score:
        return best[:200]
    for i in range(len(lines) - 1, -1, -1):
        stripped = lines[i].strip()
        if stripped:
            return stripped[:200]
    return ""


def _by_bound(holding, alarmed):
    """(bound, line index) of every line that holds a term or an alarm word, highest bound
    first, then latest first; a line's bound is 4 per term it holds (`holding`: the set of lines
    holding each term) and 2 for an alarm word (`alarmed`). Worked out with set operations on
    the lines of each count and sorted one group at a time, as far as the caller reads: a
    1 MiB log whose every line holds "step" has one group of 2000, and the first line of it
    is the one (a dict of every line's bound, sorted whole, cost ~1.5 ms of a Stop)."""
    levels = [set()]  # levels[k]: the lines holding exactly k of the terms seen so far
    seen = set()
    for lines in holding:
        levels.append(set())
        for k in range(len(levels) - 1, 1, -1):  # from the top: a line moves up once
            up = levels[k - 1] & lines
            if up:
                levels[k - 1] -= up
                levels[k] |= up
        levels[1] |= lines - seen
        seen |= lines
    for k in range(len(levels) - 1, 0, -1):
        if levels[k]:
            for group, bound in ((levels[k] & alarmed, 4 * k + 2), (levels[k] - alarmed, 4 * k)):
                for i in sorted(group, reverse=True):
                    yield bound, i
    for i in sorted(alarmed - seen, reverse=True):
        yield 2, i


def _letters_in(block, letters):
    return all(map(block.__contains__, letters))


def _lines_holding(parts):
    """The indexes of the lines that hold a match, from the block split at each match (a match
    holds no "\n"): match k sits on the line after the "\n"s of the first k + 1 parts."""
    return set(accumulate(map(str.count, parts[:-1], repeat("\n"))))


def _last_lines(text, count, length=None, tail=None):
    """`text.splitlines()[-count:]` without splitting all of a 1 MiB output to keep its end.

    Or, given `length` and `tail` (`tail(k)`: the text's last k characters, all of it when k is
    more), the same for a text of which only that much is read (store.DeferredRow.ascii_tail)."""
    if tail is None:
        length = len(text)

        def tail(k):
            return text[-k:]
    size = 128 * count
    if length > size:
        # As far back as the last 4 KiB's lines say `count` lines reach, and a fifth more: a log
        # of 70-character lines is not sliced and split twice as far back as it needs.
        end = tail(4096)
        size = min(size, int(len(end) / (end.count("\n") + 1) * (count + 1) * 1.2) + 256)
    while size < length:
        lines = tail(size).splitlines()
        if len(lines) > count:  # the first may be cut short (or be the "\n" of a "\r\n"); not kept
            return lines[-count:]
        size *= 2
    return tail(length).splitlines()[-count:] if length else []


def _words(text):
    # One regex pass, not a loop per character: best_line calls this for up to 2000 lines of
    # each suggested entry, and the loop cost ~45 ms per 1 MiB log. [\w.] is isalnum, "_", ".".
    return {w.strip(".") for w in _WORD.findall(text.lower())}


_WORD = diskcache.compile(r"[\w.]+")


def _record(conn, event, session_id, verdict, report, blocks, config, message, error=None, checkpoint=()):
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
        "verified_num": checkpoint[0] if checkpoint else None,
        "verified_hash": checkpoint[1] if checkpoint else None,
    }, claims)
