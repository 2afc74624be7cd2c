"""Does a claim quote recorded tool output, or name an evidence id the session holds?

Both sides are normalised the same way (NFKC, ANSI escapes, curly quotes, whitespace runs; the
message side also goes through `ledger.redact.redact`, which the recorder already applied to every
stored output). A quote counts when it is an exact substring of one output, or when its
ellipsis-separated segments occur in order within one output, and when it is not contained in any
text the agent itself wrote during the session (a command line, a heredoc, Write/Edit content).

Cost: nothing is normalised unless a claim holds a quote. Then each output is first probed with
the quote's longest token using `in` on the raw text, which is exact for ASCII output without
escape codes, so only outputs that can match are normalised (once, cached on the Evidence).
"""

import re
import unicodedata

from ..redact import redact

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                        "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
_GUTTER = re.compile(r"^[ \t]*\d+(?:\u2192|\t|\s*\|\s)", re.M)
_ELLIPSIS = re.compile(r"\s*(?:\[\s*\.\.\.\s*\]|\(\s*\.\.\.\s*\)|\.{3,})\s*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_QUOTE_FORMS = [
    re.compile(r"(`+)(.+?)\1", re.S),
    re.compile(r'"([^"\n]{3,400})"'),
    re.compile(r"「([^」\n]{2,400})」"),
    re.compile(r"『([^』\n]{2,400})』"),
]


def normalize(text):
    """The one normalisation both sides go through (before this, the message side is redacted)."""
    if not text:
        return ""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_CURLY)
        text = text.replace("\u2026", "...")
    return " ".join(text.split())


def _norm_output(text):
    if text and _GUTTER.match(text):
        # Read views number their lines ("  12→", "12\t"); quotes of the file never include them.
        text = _GUTTER.sub("", text)
    return normalize(text)


def quotes_in(text):
    """Quoted spans of a prose block: `code`, "…", “…” (normalised to "…"), 「…」, 『…』."""
    found = []
    for pat in _QUOTE_FORMS:
        for m in pat.finditer(text):
            found.append(m.group(m.lastindex))
    return found


def split_segments(q):
    return [s for s in _ELLIPSIS.split(q) if s.strip()]


class _Side:
    """Normalised text of the outputs (or the inputs) that can contain a given probe."""

    def __init__(self, evidence, attr):
        self.evidence = evidence
        self.attr = attr
        self.norm = {}

    def text(self, i):
        got = self.norm.get(i)
        if got is None:
            raw = getattr(self.evidence[i], self.attr) or ""
            got = _norm_output(raw) if self.attr == "output" else normalize(raw)
            self.norm[i] = got
        return got

    def candidates(self, probe):
        for i, e in enumerate(self.evidence):
            raw = getattr(e, self.attr) or ""
            if not raw:
                continue
            if raw.isascii() and "\x1b" not in raw:
                if probe in raw:
                    yield i
            else:
                yield i


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
        """(status, evidence_ids, detail). status: verified | self | short | missing | near."""
        q = normalize(redact(raw_quote.replace("\x00", "")))
        if q in self._memo:
            return self._memo[q]
        got = self._check(q)
        self._memo[q] = got
        return got

    def _check(self, q):
        r = self.rules_for("ja" if _CJK.search(q) else "en")
        if self._too_short(q, r):
            return ("short", [], q)
        segs = split_segments(q)
        if not segs:
            return ("short", [], q)
        probe = max((t for s in segs for t in s.split()), key=len)
        hits = []
        for i in self.outputs.candidates(probe):
            if _in_order(segs, self.outputs.text(i)):
                hits.append(self.evidence[i].id)
                if len(hits) >= 5:
                    break
        if hits:
            for i in self.inputs.candidates(probe):
                if all(s in self.inputs.text(i) for s in segs):
                    return ("self", hits, "%s (written by the agent in %s)" % (q, self.evidence[i].id))
            return ("verified", hits, q)
        return self._near(q, segs, probe)

    def _too_short(self, q, r):
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

    def _near(self, q, segs, probe):
        """A quote that almost matches: reported so the agent can fix it, never accepted."""
        lowered = q.lower()
        best = (0, None)
        short_probe = probe[: max(4, len(probe) // 2)]
        for i in self.outputs.candidates(short_probe):
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
