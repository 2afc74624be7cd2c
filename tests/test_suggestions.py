"""The entries a block suggests (store.rank) and the line it shows (stop.best_line) are the same
as the plain versions these were sped up from, kept here as the reference."""

import math
import os
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import store
from ledger.hooks import stop


def reference_best_line(output, claim_text, scan=2000):
    terms = {t for t in stop._words(claim_text) if len(t) >= 3}
    has_term = re.compile("|".join(map(re.escape, sorted(terms, key=len, reverse=True)))).search if terms else None
    best, best_score = "", -1
    for line in output.splitlines()[-scan:]:
        stripped = line.strip()
        if not stripped:
            continue
        lowered = stripped.lower()
        score = 4 * len(terms.intersection(stop._words(lowered))) if has_term and has_term(lowered) else 0
        score += 2 if stop._ALARM_RE.search(lowered) else 0
        if score >= best_score:
            best, best_score = stripped, score
    return best[:200]


def reference_rank(rows, terms, limit, phrase=None):
    texts = [((r["command"] or "") + "\n" + (r["output"] or "")).lower() for r in rows]
    terms = [t.lower() for t in terms]
    holds = [[t in text for t in terms] for text in texts]
    weight = []
    for i in range(len(terms)):
        df = sum(1 for h in holds if h[i])
        weight.append(math.log(1 + len(rows) / df) if df else 0.0)
    whole = phrase.lower() if phrase and len(terms) > 1 else None
    order = sorted(range(len(rows)),
                   key=lambda j: (not (whole and whole in texts[j]),
                                  -sum(w for w, h in zip(weight, holds[j]) if h), -rows[j]["num"]))
    return [rows[j]["num"] for j in order[:limit]]


WORDS = ["step", "loss", "NaN", "nan", "error", "Error:", "rank3", "the", "The", "oom", "OOM",
         "grad_norm=1.5", "timed out", "warmup", "lr=3e-4", "...", "a.b.", "エラー", "失敗", "İstanbul",
         "ß", "x", "killed", "fail", "4000", "checkpoint"]
SEPARATORS = ["\n", "\r\n", "\r", " ", "  ", "\t", "\x0b", "\u2028", "\n\n", "\x85"]

text = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(SEPARATORS), st.text(max_size=6)),
                max_size=120).map("".join)
claim = st.lists(st.sampled_from(WORDS + ["because", "was", "corrupt"]), max_size=10).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(output=text, claim_text=claim, scan=st.integers(1, 12))
def test_best_line_is_the_reference(output, claim_text, scan):
    assert stop.best_line(output, claim_text, scan) == reference_best_line(output, claim_text, scan)


@settings(max_examples=400, deadline=None)
@given(output=text.map(lambda t: t.encode("ascii", "ignore").decode()), claim_text=claim,
       scan=st.integers(1, 12))
def test_best_line_on_ascii_output_is_the_reference(output, claim_text, scan):
    # ASCII output takes its own path in best_line (the terms and alarm words the block holds).
    assert stop.best_line(output, claim_text, scan) == reference_best_line(output, claim_text, scan)


def test_best_line_on_a_long_log_is_the_reference():
    lines = []
    for i in range(30000):
        lines.append("12:00:%02d step %d loss=%.3f grad_norm=0.9 lr=3.00e-04" % (i % 60, i, i / 7))
        if i % 997 == 0:
            lines.append("[rank3] WARNING grad_norm 88.4 above clip threshold 1.0")
        if i % 4111 == 0:
            lines.append("RuntimeError: NCCL error: unhandled system error, loss is nan")
    for sep in ("\n", "\r\n"):
        output = sep.join(lines) + sep
        for claim_text in ("The loss became NaN at step 4000 because of the NCCL error.",
                           "The checkpoint is corrupt.", "grad_norm blew up on rank3", ""):
            assert stop.best_line(output, claim_text) == reference_best_line(output, claim_text)


def _row(num, command, output):
    return {"num": num, "command": command, "output": output}


@settings(max_examples=200, deadline=None)
@given(outputs=st.lists(text, min_size=1, max_size=8), claim_text=claim,
       limit=st.integers(1, 4), phrase=st.booleans())
def test_rank_is_the_reference(outputs, claim_text, limit, phrase):
    rows = [_row(n + 1, "cmd %d" % n, out) for n, out in enumerate(outputs)]
    terms = store.terms(claim_text)
    got = [r["num"] for r in store.rank(rows, terms, limit, phrase=claim_text if phrase else None)]
    assert got == reference_rank(rows, terms, limit, phrase=claim_text if phrase else None)


@settings(max_examples=400, deadline=None)
@given(output=st.lists(st.one_of(text, st.sampled_from(SEPARATORS)), max_size=30).map("".join),
       count=st.integers(1, 4))
def test_last_lines_are_the_last_of_splitlines(output, count):
    assert stop._last_lines(output, count) == output.splitlines()[-count:]


def test_fts_folds_ascii_as_lower_does_but_for_two_characters():
    # rank takes "a row holds an ASCII term" from the FTS index; that is "the lowered text holds
    # it" for every character but those in store.FOLD_APART (with this SQLite's fold tables).
    import sqlite3
    import string

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='trigram')")
    cased = [c for c in map(chr, range(0x80, 0x110000))
             if not 0xD800 <= ord(c) <= 0xDFFF and (c.lower() != c or c.upper() != c)]
    conn.executemany("INSERT INTO f (rowid, t) VALUES (?, ?)", [(ord(c), "q%sq" % c) for c in cased])
    fts = {}
    for x in string.ascii_lowercase:
        for (cp,) in conn.execute("SELECT rowid FROM f WHERE f MATCH ?", ('"q%sq"' % x,)):
            fts[chr(cp)] = x
    apart = {c for c in cased if fts.get(c, "") != "".join(ch for ch in c.lower() if ch.isascii())}
    assert apart <= set(store.FOLD_APART), sorted(apart)


_ledgers = []


@settings(max_examples=60, deadline=None)
@given(outputs=st.lists(text, min_size=1, max_size=8), claim_text=claim, limit=st.integers(1, 4))
def test_rank_with_the_fts_index_is_rank_on_the_text(outputs, claim_text, limit):
    # The Stop hook's suggestions: candidates and ASCII terms from FTS, the rest from the text.
    import tempfile

    if not _ledgers:
        _ledgers.append(tempfile.mkdtemp(prefix="rank-fts-"))
    path = "%s/l%d.db" % (_ledgers[0], len(os.listdir(_ledgers[0])))
    conn = store.connect(path)
    try:
        for n, out in enumerate(outputs):
            store.record(conn, {"session_id": "s", "tool_name": "Bash", "command": "cmd %d" % n,
                                "output": out + ("ſtep İs \u212aill" if n == 1 else "")})
        rows = store.session_evidence(conn, "s")
        words = store.terms(claim_text)
        keys = {w: w.lower() if w.isascii() else w for w in words}
        matched = store.term_matches(conn, list(dict.fromkeys(keys.values())), rows[0]["num"], rows[-1]["num"])
        nums = set().union(*matched.values()) if matched else set()
        candidates = [r for r in rows if r["num"] in nums]
        holds = {w.lower(): matched[keys[w]] for w in words if w.isascii()}
        got = [r["num"] for r in store.rank(candidates, words, limit, holds=holds)]
        assert got == reference_rank(candidates, words, limit)
        # As the Stop calls it: the weights' logarithms from SQLite's ln() (store._logs).
        assert [r["num"] for r in store.rank(candidates, words, limit, holds=holds, conn=conn)] == got
    finally:
        conn.close()


def test_sqlite_ln_is_math_log():
    # The Stop's ranking takes its weights' logarithms from SQLite (store._logs): the same C
    # log() of the same double, so the same floats, bit for bit, as math.log gives rank's
    # reference. Where this SQLite has no ln(), _logs is math.log itself.
    import random

    rng = random.Random(3)
    values = [1 + n / d for n in range(1, 260) for d in range(1, 260, 7)]
    values += [1 + rng.random() * 10 ** rng.randint(-12, 12) for _ in range(3000)]
    conn = store.sqlite3.connect(":memory:")
    try:
        assert store._logs(conn, values) == [math.log(v) for v in values]
        assert store._logs(None, values[:50]) == [math.log(v) for v in values[:50]]
        assert store._logs(conn, []) == []
    finally:
        conn.close()


def test_alarm_words_are_escaped_as_re_escapes_them():
    assert stop._ALARM_RE.pattern == "|".join(map(re.escape, stop._ALARM))


@settings(max_examples=300, deadline=None)
@given(output=text, claim_text=claim, scan=st.integers(1, 12), data=st.data())
def test_best_line_skips_only_terms_the_output_lacks(output, claim_text, scan, data):
    # What the FTS index says a row lacks is nowhere in its output: leaving those terms out
    # changes nothing (stop._lacks passes only ASCII terms of rows FTS folds as lower() does).
    lowered = output.lower()
    absent = [t for t in stop._words(claim_text) if t.isascii() and t not in lowered]
    lacks = frozenset(data.draw(st.lists(st.sampled_from(absent), unique=True)) if absent else [])
    assert stop.best_line(output, claim_text, scan, lacks=lacks) == stop.best_line(output, claim_text, scan)


def test_last_lines_of_long_outputs_whatever_their_line_lengths():
    # _last_lines guesses how far back `count` lines reach from the last 4 KiB; a wrong guess
    # (short lines at the end, long ones before them, "\r\n", no newline at all) costs a retry.
    import random

    rng = random.Random(7)
    for _ in range(60):
        parts = []
        for block in range(rng.randint(1, 4)):
            width = rng.choice([0, 1, 5, 70, 300, 5000])
            sep = rng.choice(["\n", "\r\n", "\r", "\x0b", "\u2028"])
            parts.extend("x" * rng.randint(0, width) + sep for _ in range(rng.randint(0, 400)))
        output = "".join(parts) + rng.choice(["", "tail"])
        for count in (1, 3, 50, 2000):
            assert stop._last_lines(output, count) == output.splitlines()[-count:]


@settings(max_examples=300, deadline=None)
@given(outputs=st.lists(text, min_size=1, max_size=8), claim_text=claim, limit=st.integers(1, 4),
       asked=st.floats(0, 1))
def test_rank_with_the_index_is_the_reference(outputs, claim_text, limit, asked):
    # The Stop hands rank what FTS says each ASCII term's rows are (`holds`); for terms it was
    # not asked about, rank reads the text. Either way, the reference's order.
    rows = [_row(n + 1, "cmd %d" % n, out) for n, out in enumerate(outputs)]
    terms = store.terms(claim_text)
    texts = {r["num"]: (r["command"] + "\n" + r["output"]).lower() for r in rows}
    ascii_terms = sorted({t.lower() for t in terms if t.isascii()})
    holds = {t: {n for n, tx in texts.items() if t in tx} for t in ascii_terms[:int(len(ascii_terms) * asked) + 1]}
    exact = all(store._fts_exact(r) for r in rows)
    got = [r["num"] for r in store.rank(rows, terms, limit, holds=holds)]
    if exact:
        assert got == reference_rank(rows, terms, limit)
    assert got == [r["num"] for r in store.rank(rows, terms, limit)]


@settings(max_examples=300, deadline=None)
@given(holding=st.lists(st.sets(st.integers(0, 40), min_size=1), max_size=5),
       alarmed=st.sets(st.integers(0, 40)))
def test_lines_come_by_bound_as_a_sort_of_every_lines_bound_would_give_them(holding, alarmed):
    # best_line on ASCII output reads the lines highest bound first, then latest first: 4 per
    # term a line holds, 2 for an alarm word. stop._by_bound gives that order from set
    # operations; here, the dict of every line's bound it replaced, sorted whole.
    held = {}
    for lines in holding:
        for i in lines:
            held[i] = held.get(i, 0) + 4
    for i in alarmed:
        held[i] = held.get(i, 0) + 2
    assert list(stop._by_bound(holding, alarmed)) == sorted(zip(held.values(), held), reverse=True)
