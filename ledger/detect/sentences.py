"""Sentence splitting (English and Japanese) and language per sentence.

Inline code is masked before splitting and before cue matching, so `torch.cuda.OutOfMemoryError.`
or a `due_to` flag never ends a sentence or fires a cue. Splitting works on offsets, so the
masked text and the original stay aligned.
"""


from .. import diskcache

_INLINE = diskcache.compile(r"(`+)(.+?)\1", diskcache.DOTALL)
_CJK = diskcache.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f々〆ヵヶ]")
_LATIN = diskcache.compile(r"[A-Za-z]")
_JA_END = diskcache.compile(r"[。!?！？]+[」』)）\"']*")
# A lower-case start also ends a sentence after a plain word ("numbers jumped. the PR put ..."
# in chat-style text; "under the paper's. sacrebleu is ..."), or a setting ("... with fused AdamW. eps=1e-8 underflows to zero");
# a number with its unit ("NaN at step 8k. fp16 overflow in ..."); a two-letter word too ("ok found
# it. fp16 overflow in ..."), or before a dotted name ("... shows up. torch.compile recompiles");
# abbreviations are kept whole below.
_EN_END = diskcache.compile(r"(?<=[.!?])[\"')\]*_]*(?=\s+(?:[\"'(\[*_`]*[A-Z0-9]|/\w)|\s*$)|(?:(?<=[A-Za-z]{2}[.!?])|(?<=[A-Za-z]'[a-z][.!?]))(?=\s+[a-z][a-zA-Z0-9]+(?:'[a-z]{1,2})?\s|\s+[a-z][a-z0-9_]*=[\w.+-]+\s|\s+[a-z][a-z0-9_]*(?:\.[a-z_]\w*)+(?:\(\))?\s)|(?<=[A-Za-z0-9)]{2}[.!?])(?=\s+`+x+`+\s+[a-z])|(?<=\d[A-Za-z][.!?])(?=\s+[a-z][a-z0-9]+\s)")
_BREAK_RUN = diskcache.compile(r"\s*\n\s*")
_DIGIT_DOT = diskcache.compile(r"\d\.$")
_DIGIT_NEXT = diskcache.compile(r"\s*\d")
_ABBREV = diskcache.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|fig|figs|no|nos|mr|mrs|ms|dr|st|al|incl|resp|ca|ver|vol|eq|sec|ch|pp|ref|refs|viz|esp|min|max|avg|std|approx|est|dept|univ|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)|\b[A-Z]|\.\.)\.$",
    diskcache.IGNORECASE,
)


class _Meter:
    """Characters the splitter has examined, summed over the process. Tests compare it for n
    and 4n sentences: splitting must stay linear in the message (a slice of everything before
    each period once made a 60,000-sentence message take minutes)."""

    chars = 0


meter = _Meter()


def mask_code(text):
    """`text` with the content of inline code spans replaced by `x` (same length), and the spans."""
    spans = []
    out = []
    last = 0
    for m in _INLINE.finditer(text):
        spans.append((m.start(2), m.end(2)))
        out.append(text[last:m.start(2)])
        out.append("x" * (m.end(2) - m.start(2)))
        last = m.end(2)
    out.append(text[last:])
    return "".join(out), spans


# Chat English drops apostrophes ("its the driver", "thats why", "doesnt"); the cues are written
# with them. "its" is put back only before words a possessive does not take ("its memory" stays).
_APOSTROPHE = diskcache.compile(
    r"\b(?:(?P<s>that|what|there|here|who)s|(?P<its>it)s(?=\s+(?:the|a|an|not|just|def|definitely|prob|"
    r"probably|likely|because|bc|cuz|due|from|caused|always|still|only|all|actually|really|literally|"
    r"clearly|obviously|also|never|now|why|how|exactly|almost|fine|ok|okay|broken|fixed|gone|been|"
    r"this|that|your|our|my|their|on|in|at|so|too|gonna|going|surely|certainly|coming|happening|"
    r"stuck)\b)|(?P<nt>is|was|are|were|does|do|did|has|have|had|ca|wo|could|should|would)nt"
    # "i dont think its fragmentation": after a verb of belief "its" opens a clause
    r"|(?:(?<=\bthink\s)|(?<=\bguess\s)|(?<=\bsure\s)|(?<=\bbet\s)|(?<=\bsuspect\s)|(?<=\bhope\s)|(?<=\bsay\s))its)\b",
    diskcache.IGNORECASE,
)


def apostrophes(text):
    """English `text` with the apostrophes chat style leaves out put back (same meaning)."""
    if "s " not in text and "nt" not in text:
        return text
    return _APOSTROPHE.sub(_apostrophe, text)


def _apostrophe(m):
    word = m.group(0)
    if m.group("nt"):
        return word[:-1] + "'" + word[-1]
    return word[:-1] + "'s"


def is_cjk(ch):
    return bool(_CJK.match(ch))


def lang_of(text):
    # "en" unless two CJK characters or more, and at least one for every eight Latin letters:
    # ASCII text holds no CJK character, and the Latin letters are counted only when there are
    # two (the detector asks about every sentence, each part of one it looks at, every heading).
    if text.isascii():
        return "en"
    cjk = len(_CJK.findall(text))
    if cjk < 2:
        return "en"
    latin = len(_LATIN.findall(text))
    if cjk * 8 >= latin:
        return "ja"
    return "en"


def split(text):
    """[(start, end)] sentence spans of a prose block (offsets into `text`)."""
    masked, _ = mask_code(text)
    meter.chars += len(masked)
    spans = []
    # Line breaks end a sentence next to Japanese, after a colon, or before a list-like line;
    # in English prose they are soft wraps.
    starts = [0]
    # One match per whitespace run holding a line break: every break in a run sees the same
    # characters on either side, and the blank spans between them are dropped below anyway.
    for m in _BREAK_RUN.finditer(masked):
        a = masked[m.start() - 1] if m.start() > 0 else ""
        b = masked[m.end()] if m.end() < len(masked) else ""
        # (after Japanese punctuation and symbols too: 「…わかりました〜」 then a line in English)
        if (a and (is_cjk(a) or a in "。:：!?" or "\u3000" <= a <= "\u303f" or "\uff01" <= a <= "\uff60")) or (b and is_cjk(b)):
            starts.append(m.end())
    starts.append(len(masked) + 1)
    for k in range(len(starts) - 1):
        seg_start, seg_end = starts[k], min(starts[k + 1], len(masked))
        _split_segment(masked, seg_start, seg_end, spans)
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


def _word_before(seg, end):
    """The run of non-space characters ending at `end`. Every cut point is followed by
    whitespace, so each word is walked at most once per segment: linear in all."""
    k = end
    while k > 0 and not seg[k - 1].isspace():
        k -= 1
    meter.chars += end - k
    return seg[k:end]


def _split_segment(masked, start, end, spans):
    cuts = []
    seg = masked[start:end]
    meter.chars += len(seg)
    for m in _JA_END.finditer(seg):
        cuts.append(m.end())
    for m in _EN_END.finditer(seg):
        word = _word_before(seg, m.start())
        # ("the paper's." ends on a possessive, not on an initial like "J.")
        if word.endswith(".") and _ABBREV.search(word) and not seg.endswith(("'s.", "’s."), 0, m.start()):
            continue
        # 2.1.3, train.py, 0.5.: digits or a file name right before the period do not end it
        if _DIGIT_DOT.search(word) and _DIGIT_NEXT.match(seg, m.end()):
            continue
        cuts.append(m.end())
    cuts = sorted(set(c for c in cuts if 0 < c < len(seg)))
    prev = 0
    for c in cuts:
        spans.append((start + prev, start + c))
        prev = c
    spans.append((start + prev, end))
