r"""Does a claim quote recorded tool output, or name an evidence id the session holds?

Both sides are normalised the same way (NFKC, ANSI escapes, curly quotes, whitespace runs; the
message side also goes through `ledger.redact.redact`, which the recorder already applied to every
stored output). A quote counts when it is an exact substring of one output, or when its
ellipsis-separated segments occur in order within one output, and when it is not contained in any
text the agent itself wrote during the session (a command line, a heredoc, Write/Edit content).

Cost: nothing is searched unless a claim holds a quote. Then every quote of the message is
looked for in one pass over the outputs, newest first: each output is probed with every pending
quote's longest tokens using `in` on the raw text (while it is in cache), and a quote stops being
looked for at its first hit; the pass ends when no quote is pending. Plain ASCII outputs are
searched with one regular expression per quote (tokens joined by `\s+`), so they are never
copied; only the others are normalised, once per analysis. A quote found nowhere costs one scan
of every output; its near-miss search is bounded (`NEAR_MISS_CANDIDATES`, `NEAR_MISS_BYTES`).
"""

from ..redact import redact
from .. import diskcache

_ANSI = diskcache.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                        "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
_GUTTER = diskcache.compile(r"^[ \t]*\d+(?:\u2192|\t|\s*\|\s)", diskcache.MULTILINE)
_ELLIPSIS = diskcache.compile(r"\s*(?:\[\s*\.\.\.\s*\]|\(\s*\.\.\.\s*\)|\.{3,})\s*")
_CJK = diskcache.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_QUOTE_FORMS = [
    diskcache.compile(r"(`+)(.+?)\1", diskcache.DOTALL),
    diskcache.compile(r'"([^"\n]{3,400})"'),
    diskcache.compile(r"「([^」\n]{2,400})」"),
    diskcache.compile(r"『([^』\n]{2,400})』"),
]


def normalize(text):
    """The one normalisation both sides go through (before this, the message side is redacted)."""
    if not text:
        return ""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if not text.isascii():
        import unicodedata  # only for text that is not ASCII

        text = unicodedata.normalize("NFKC", text).translate(_CURLY)
        text = text.replace("\u2026", "...")
    return " ".join(text.split())


def _norm_output(text):
    if text and _GUTTER.match(text):
        # Read views number their lines ("  12→", "12\t"); quotes of the file never include them.
        text = _GUTTER.sub("", text)
    return normalize(text)


def quotes_in(text, code=True):
    """Quoted spans of a prose block: `code`, "…", “…” (normalised to "…"), 「…」, 『…』; with
    `code=False` only those in quotation marks, what the writer says some output printed."""
    found = []
    for pat in _QUOTE_FORMS if code else _QUOTE_FORMS[1:]:
        for m in pat.finditer(text):
            found.append(m.group(m.lastindex))
    return found


def split_segments(q):
    return [s for s in _ELLIPSIS.split(q) if s.strip()]


NEAR_MISS_CANDIDATES = 20
# Bytes of raw output the near-miss search may scan, newest first: a near miss is advice.
NEAR_MISS_BYTES = 16 << 20


class _Side:
    """The outputs (or the inputs) of a session, searched without normalising what need not be.

    For ASCII text with no escape codes and no line-number gutter, "the normalised quote is a
    substring of the normalised text" is the same as "the quote's tokens occur in the raw text
    separated by whitespace runs", which one regular expression finds without copying the text.
    Anything else is normalised once and cached.
    """

    def __init__(self, evidence, attr):
        self.evidence = evidence
        self.attr = attr
        self.norm = {}
        self.plain = {}
        self._joined = None  # (the plain entries joined by "\n", the others' indexes)

    def raw(self, i):
        return getattr(self.evidence[i], self.attr) or ""

    def _is_plain(self, i):
        got = self.plain.get(i)
        if got is None:
            raw = self.raw(i)
            got = raw.isascii() and "\x1b" not in raw and not (self.attr == "output" and _GUTTER.match(raw))
            self.plain[i] = got
        return got

    def text(self, i):
        got = self.norm.get(i)
        if got is None:
            raw = self.raw(i)
            got = _norm_output(raw) if self.attr == "output" else normalize(raw)
            self.norm[i] = got
        return got

    def candidates_nocase(self, token):
        """Entries (newest first, within `NEAR_MISS_BYTES`) that may hold `token`, any case."""
        import re  # a near miss, rare: re is not loaded otherwise

        pat = re.compile(re.escape(token), re.IGNORECASE)
        budget = NEAR_MISS_BYTES
        for i in range(len(self.evidence) - 1, -1, -1):
            raw = self.raw(i)
            if not raw:
                continue
            budget -= len(raw)
            if budget < 0:
                return
            if not self._is_plain(i) or pat.search(raw):
                yield i

    def holds(self, i, probes, segs, patterns):
        """Does entry i hold the quote? Probes first: a cheap `in` that rules most entries out."""
        raw = self.raw(i)
        if not raw:
            return False
        if self._is_plain(i) and not all(p in raw for p in probes):
            return False
        return self.contains(i, segs, patterns)

    def might_hold(self, probes):
        """The entries that may hold a quote with these probes, in order: a plain entry holds a
        quote only if it holds every probe (see `holds`), and a probe, a run without spaces,
        is in some plain entry exactly when it is in all of them joined by newlines."""
        if self._joined is None:
            plain = [i for i in range(len(self.evidence)) if self._is_plain(i)]
            others = sorted(set(range(len(self.evidence))) - set(plain))
            self._joined = ("\n".join(self.raw(i) for i in plain), others)
        joined, others = self._joined
        if all(p in joined for p in probes):
            return range(len(self.evidence))
        return others

    def contains(self, i, segs, patterns):
        """Do the segments occur, in order, in entry i (normalised)?"""
        if self._is_plain(i):
            raw = self.raw(i)
            # A segment is its tokens joined by single spaces (normalised), so finding it as it
            # is finds a match of its pattern; only a miss (or an ordered pair) needs the regex.
            if len(segs) == 1 and segs[0] in raw:
                return True
            pos = 0
            for pat in patterns:
                m = pat.search(raw, pos)
                if m is None:
                    return False
                pos = m.end()
            return True
        return _in_order(segs, self.text(i))


def too_short(q, r):
    """Is quote `q` too short or too generic to cite anything on its own (rules `r`)?"""
    dense = "".join(q.split())
    if _CJK.search(q):
        if len(dense) < r.min_quote_chars:
            return True
    else:
        if len(dense) < r.min_quote_chars:
            return True
        if len(q.split()) < 2 and len(dense) < r.min_single_token_chars:
            return True
    for g in r.generic_quote.each():
        if g.search(q.strip().lower()):
            return True
    return False


def _norm_quote(raw_quote):
    return normalize(redact(raw_quote.replace("\x00", "")))


def _probes(segs):
    """The longest few distinct tokens of a quote: cheap `in` tests before any real search."""
    tokens = sorted({t for s in segs for t in s.split()}, key=len, reverse=True)
    return tokens[:4]


def _patterns(segs):
    return [_Pattern(s) for s in segs]


class _Pattern:
    r"""A segment's tokens joined by `\s+`, compiled on its first search: a quote found as it
    stands (`_Side.contains`) never needs it, and compiling costs a fresh process ~0.3 ms each."""

    __slots__ = ("segment", "compiled")

    def __init__(self, segment):
        self.segment = segment
        self.compiled = None

    def search(self, text, pos=0):
        if self.compiled is None:
            import re

            self.compiled = re.compile(r"\s+".join(re.escape(t) for t in self.segment.split()))
        return self.compiled.search(text, pos)


# A search command on a line of the agent's input: grep, rg, ag, ack, git grep, findstr, ...
_SEARCH = diskcache.compile(r"(?:^|[\s|;&(`])(?:grep|egrep|fgrep|zgrep|rg|ag|ack|findstr|Select-String|git\s+grep)\b",
                            diskcache.IGNORECASE)


def _searched_for(input_text, segment):
    """Is `segment` part of a search command's arguments in `input_text` (a line that runs grep,
    rg, ... and holds it after the command's name)?"""
    first = segment.split()[0] if segment.split() else segment
    for line in input_text.splitlines():
        m = _SEARCH.search(line)
        if m is not None and first in line[m.end():]:
            return True
    return False


class Checker:
    """Checks quotes and ids for one message against one session's evidence."""

    def __init__(self, evidence, rules_for):
        self.evidence = list(evidence or [])
        self.ids = {}
        for i, e in enumerate(self.evidence):
            self.ids[str(e.id).upper()] = i
        self.outputs = _Side(self.evidence, "output")
        self.inputs = _Side(self.evidence, "input_text")
        self.rules_for = rules_for
        self._memo = {}

    # -- quotes -------------------------------------------------------------------------------

    def check_quote(self, raw_quote):
        """(status, evidence_ids, detail). status: verified | self | short | missing | near | own
        (own: a pattern the agent searched for, in no output)."""
        q = _norm_quote(raw_quote)
        got = self._memo.get(q)
        if got is None:
            self.check_all([raw_quote])
            got = self._memo[q]
        return got

    def check_all(self, raw_quotes):
        """Check many quotes with one pass over the outputs; the answers are memoised for
        `check_quote`. Returns how many outputs were looked at (tests count it)."""
        pending = {}
        for raw_quote in raw_quotes:
            q = _norm_quote(raw_quote)
            if q in self._memo or q in pending:
                continue
            r = self.rules_for("ja" if _CJK.search(q) else "en")
            segs = [] if too_short(q, r) else split_segments(q)
            if not segs:
                self._memo[q] = ("short", [], q)
                continue
            pending[q] = (_probes(segs), segs, _patterns(segs))
        if not pending:
            return 0
        hits = {q: None for q in pending}
        left = list(pending)
        looked = 0
        # Newest first: the output an agent quotes is usually its latest run.
        for i in range(len(self.evidence) - 1, -1, -1):
            if not left:
                break
            looked += 1
            found = [q for q in left if self.outputs.holds(i, *pending[q])]
            for q in found:
                hits[q] = i
                left.remove(q)
        for q, (probes, segs, patterns) in pending.items():
            self._memo[q] = self._finish(q, probes, segs, patterns, hits[q])
        return looked

    def _finish(self, q, probes, segs, patterns, hit):
        if hit is not None:
            ids = [self.evidence[hit].id]
            for i in self._inputs_holding(probes, segs, patterns):
                return ("self", ids, "%s (written by the agent in %s)" % (q, self.evidence[i].id))
            return ("verified", ids, q)
        for i in self._inputs_holding(probes, segs, patterns):
            if _searched_for(self.evidence[i].input_text, segs[0]):
                # `grep -e "pin_memory=False"` printed no such line: the quote is what the agent
                # searched for, and no output holds it (not a command or a flag it names)
                return ("own", [], "%s (only the agent's own search pattern in %s, in no output)" % (q, self.evidence[i].id))
        return self._near(q, segs, probes[0])

    def _inputs_holding(self, probes, segs, patterns):
        """The entries whose input (the agent's own command, heredoc, written file) holds every
        segment of the quote."""
        for i in self.inputs.might_hold(probes):
            if all(self.inputs.holds(i, probes, [s], [p]) for s, p in zip(segs, patterns)):
                yield i

    def _near(self, q, segs, probe):
        """A quote that almost matches: reported so the agent can fix it, never accepted."""
        lowered = q.lower()
        best = (0, None)
        # Only outputs that hold the quote's first token are compared, and at most a few of
        # them: a near miss is advice for the agent, not worth a pass over a huge session.
        first = q.split()[0] if q.split() else probe
        for n, i in enumerate(self.outputs.candidates_nocase(first)):
            if n >= NEAR_MISS_CANDIDATES:
                break
            out = self.outputs.text(i)
            if len(segs) == 1 and lowered in out.lower():
                return ("near", [], "%s (matches %s only if case is ignored)" % (q, self.evidence[i].id))
            k = _common_prefix(q, out)
            if k > best[0]:
                best = (k, self.evidence[i].id)
        if best[1] and best[0] >= max(8, len(q) // 2):
            return ("near", [], "%s (%s has the first %d of %d characters, then differs)"
                    % (q, best[1], best[0], len(q)))
        return ("missing", [], q)

    # -- ids ----------------------------------------------------------------------------------

    def known_id(self, eid):
        return eid.upper() in self.ids

    def output_of(self, eid):
        """The recorded output of evidence `eid` ("" when the session has none)."""
        i = self.ids.get(eid.upper())
        return "" if i is None else (self.evidence[i].output or "")


def _in_order(segs, text):
    if len(segs) == 1:
        return segs[0] in text
    pos = text.find(segs[0])
    while pos >= 0:
        at = pos + len(segs[0])
        ok = True
        for s in segs[1:]:
            at = text.find(s, at)
            if at < 0:
                ok = False
                break
            at += len(s)
        if ok:
            return True
        pos = text.find(segs[0], pos + 1)
    return False


def _common_prefix(q, text):
    """Length of the longest prefix of `q` found in `text` (binary search on `in`)."""
    lo, hi = 0, len(q)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if q[:mid] in text:
            lo = mid
        else:
            hi = mid - 1
    return lo
