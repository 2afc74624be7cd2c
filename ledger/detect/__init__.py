"""The claim detector and citation checker.

    from ledger.detect import analyze, Evidence
    report = analyze(message, evidence=[Evidence(id="E3", output="...", input_text="...")])
    report.claims   # [Claim(text, kind, cited, evidence, sentence_index, lang, near_misses, reason)]
    report.lang     # "en" | "ja"

Runs inside the Stop hook on every end of turn: standard library only, rules compiled once per
process (see rules.py), evidence touched only when a claim quotes something (see cite.py).
"""

from .. import diskcache
from . import classify as _classify
from . import markdown, sentences
from .cite import _CJK, Checker, normalize, quotes_in, too_short as _uncitable
from .decide import decision, DEFAULT_BLOCK_KINDS  # noqa: F401  (re-exported for the guard and the CLI)
from .rules import load_rules  # noqa: F401

__all__ = ["analyze", "Evidence", "Claim", "Report", "load_rules", "decision", "evidence_from_rows"]

_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u2032": "'"})
_EMPH = diskcache.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def _unemph(text):
    """`_EMPH.sub(r"\\2", text)`: the text inside **bold** and __bold__, without the markers. A
    function, not the template: a template would import `re` (it parses it), ~3.5 ms a Stop."""
    return _EMPH.sub(_inner, text)


def _inner(match):
    return match.group(2)


_LABEL = diskcache.compile(r"^\s*(?:\*\*|__)?((?:(?![.!?]\s)[^:：\n*_`|。]){1,48}?)(?:\*\*|__)?\s*(?:\(([^)\n]{0,40})\))?\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*")


class Evidence:
    """One recorded tool call: `output` as stored (already redacted), `input_text` everything the
    agent wrote for the call (command line, heredoc, Write/Edit content, tool_input values)."""

    __slots__ = ("id", "output", "input_text", "tool_name")

    def __init__(self, id, output="", input_text="", tool_name=None):
        self.id = id
        self.output = output or ""
        self.input_text = input_text or ""
        self.tool_name = tool_name

    def __repr__(self):
        return "Evidence(%r, %d chars)" % (self.id, len(self.output))


class Claim:
    __slots__ = ("text", "kind", "cited", "evidence", "sentence_index", "lang", "near_misses",
                 "reason", "quotes")

    def __init__(self, text, kind, cited=False, evidence=None, sentence_index=0, lang="en",
                 near_misses=None, reason="", quotes=None):
        self.text = text
        self.kind = kind
        self.cited = cited
        self.evidence = evidence or []
        self.sentence_index = sentence_index
        self.lang = lang
        self.near_misses = near_misses or []
        self.reason = reason
        self.quotes = quotes or []

    def to_dict(self):
        return {"text": self.text, "kind": self.kind, "cited": self.cited,
                "evidence": list(self.evidence), "sentence_index": self.sentence_index,
                "lang": self.lang, "reason": self.reason, "near_misses": list(self.near_misses)}

    def __repr__(self):
        return "Claim(%s, cited=%s, %r)" % (self.kind, self.cited, self.text[:60])


class Report:
    __slots__ = ("claims", "lang", "sentences")

    def __init__(self, claims, lang, sentences=0):
        self.claims = claims
        self.lang = lang
        self.sentences = sentences

    def to_dict(self):
        return {"lang": self.lang, "claims": [c.to_dict() for c in self.claims]}


class _DeferredEvidence(Evidence):
    """Evidence whose output is a store row's that has not been read yet (store.DeferredRow):
    read when the checker first looks at it. Most Stops never do for a big log: the quotes are
    found in newer entries first."""

    __slots__ = ("_row",)

    def __init__(self, id, row, input_text="", tool_name=None):
        self.id = id
        self._row = row
        self.input_text = input_text or ""
        self.tool_name = tool_name

    @property
    def output(self):
        return self._row["output"] or ""


def evidence_from_rows(rows):
    """Store rows (`ledger.store.session_evidence`) -> [Evidence]."""
    from .. import jsonc

    out = []
    for r in rows:
        parts = [r["command"] or ""]
        raw = r["tool_input"]
        if raw:
            try:
                parts.extend(_strings(jsonc.loads(raw)))
            except ValueError:
                parts.append(raw)
        if getattr(r, "loaded", True) is False:  # a store.DeferredRow: its output read on demand
            out.append(_DeferredEvidence(r["id"], r, "\n".join(p for p in parts if p), r["tool_name"]))
            continue
        out.append(Evidence(r["id"], r["output"] or "", "\n".join(p for p in parts if p),
                            r["tool_name"]))
    return out


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


# A line that introduces the list under it: "Here is my plan:", 「考えられる要因を挙げます。」
_BARE_LABEL = diskcache.compile(r"^(?:\s*[*_]*[^\n:：]{1,40}?[*_]*\s*[:：]\s*[*_]*\s*(?:\n|$))+$")
_HTML_COMMENT = diskcache.compile(r"<!--.*?(?:-->|\Z)", diskcache.DOTALL)


def _prep(text):
    if "<!--" in text:
        text = _HTML_COMMENT.sub("", text)  # invisible once rendered: template hints, not prose
    if not text.isascii():
        import unicodedata  # not for an ASCII message, the usual one

        text = unicodedata.normalize("NFKC", text)
    return text.translate(_CURLY).replace("\u2026", "...")


def _first_sentence(text):
    spans = sentences.split(text)
    return text[spans[0][0]:spans[0][1]] if spans else text


def _says_unknown(rules, sentence):
    """Is `sentence` a short "the cause is not known" ("Unknown so far.", 「原因は不明です。」)?"""
    if len(sentence.split()) > 8:
        return False
    return bool(rules.for_lang(sentences.lang_of(sentence)).unknown.search(_unemph(sentence)))


def _drop_mode(stack, mode):
    """The innermost enclosing heading with `mode` sets none any more."""
    for k in range(len(stack) - 1, -1, -1):
        if stack[k][1] == mode:
            stack[k] = (stack[k][0], None, stack[k][2])
            return


def _last_sentence(text):
    """"I looked into why it is slow. Findings:" -> "Findings:" (what heads the list below)."""
    spans = sentences.split(text)
    return text[spans[-1][0]:spans[-1][1]] if spans else text


def _heading_mode(r_for, text):
    """'assertion' | 'hypothesis' | 'finding' | 'observation' | 'ruled_out' | None for a heading
    or label text."""
    t = _unemph(text).strip(" *_#:")
    if not t:
        return None
    r = r_for(sentences.lang_of(t))
    if r.unknown.search(t):
        # "Root cause still unknown. What we know:" heads observations; "原因はまだ確定していません
        # が、以下が疑わしいと考えています。" heads suspects
        return "hypothesis" if r.hypothesis.search(t) else None
    if r.negated.search(t) or r.ruled_out.search(t):
        # "Ruled out so far:", 「原因ではなかったもの」: what follows is why each suspect is not the
        # cause ("- **Corrupted checkpoint**: the sha256 matches"), reported as ruled out.
        return "ruled_out"
    # "Confirmed" turns a heading about the cause into a claim ("Root cause (confirmed)",
    # "Confirmed hypothesis"); alone in a label such as "I verified the fix on the 4-GPU box:"
    # it says nothing about a cause.
    if r.confirmed.search(t) and (r.assertion.search(t) or r.hypothesis.search(t)) or r.discovery.search(t):
        return "assertion"
    if r.hypothesis.search(t):
        return "hypothesis"
    if r.assertion.search(t):
        return "assertion"
    if r.findings.search(t):
        return "finding"
    if r.observation.search(t):
        return "observation"
    if r.explainer.search(t):
        return "explainer"  # "## Why we chose FSDP", 「## キャッシュ層を入れた理由」
    return None


def _asks_why(rules, sentence):
    """Is `sentence` the writer's own question why something failed ("Why did rollouts get 5x
    slower?"), not an asker's ("Why does my model OOM?", whose next sentences describe their
    setup)?"""
    t = _unemph(sentence).strip()
    if not t.endswith(("?", "？")):
        return False
    r = rules.for_lang(sentences.lang_of(t))
    return bool(r.why_question.search(t)) and not (r.first_person and r.first_person.search(t)) \
        and _heading_mode(rules.for_lang, t) == "assertion"


def _label_mode(rules, lab):
    """The mode a `_LABEL` match sets: "Root cause: ..." or "Hypothesis (unconfirmed): ..."."""
    return _heading_mode(rules.for_lang, lab.group(1) + " " + (lab.group(2) or ""))


def _explains(rules, blocks):
    """Does the message open by explaining how something works, or answer a quoted question
    about a design choice (`headings.explainer`)?"""
    for b in blocks:
        if b.kind == "heading":
            continue
        if b.kind == "quote":
            return bool(rules.for_lang(sentences.lang_of(b.text)).explainer.search(_unemph(b.text)))
        if b.kind in ("para", "item"):
            spans = sentences.split(b.text)
            first = b.text[spans[0][0]:spans[0][1]] if spans else b.text
            return bool(rules.for_lang(sentences.lang_of(first)).explainer.search(_unemph(first)))
        return False
    return False


def _defect_before_failure(r, lang, masked, following, rules):
    """A sentence that names a defect as fact, right before one that states a failure: the
    mirror of the failure-then-defect order classify() reads. A Verdict, or None."""
    d = r.defect.search(masked) if r.defect else None
    if d is None or _classify.failure_term(r, masked[:d.start()] + " " + masked[d.end():]):
        return None  # a failure of its own besides the defect: a symptom, which classify() read
    if not _classify.stated(r, masked) or r.rationale.search(masked):
        return None
    nxt = _unemph(following)
    rn = rules.for_lang(sentences.lang_of(nxt))
    if not _classify._symptom(rn, sentences.lang_of(nxt), nxt) or rn.not_a.search(nxt) \
            or (rn.generic_when and rn.generic_when.search(nxt)):
        return None  # "..., not a PyTorch bug", "if True, the scale is halved whenever a step produces inf"
    return _classify.Verdict(_classify.ASSERTION, "names a defect (%r) right before a failure (%r)" % (
        d.group(0).strip()[-40:], _classify.failure_term(rn, nxt)))


def _culprit(r, lang, masked, plain, before, following, rules):
    """"It's the tokenizer. Llama's tokenizer has no pad token, ...": a sentence that only names
    the culprit (`culprit`) claims when a failure is stated in it or right before or after it.
    A Verdict, or None."""
    near = [plain] + [t for t in (before, following) if t]
    fail = next((f for f in (_classify.failure_term(rules.for_lang(sentences.lang_of(t)), _unemph(t)) for t in near) if f), None)
    if fail is None and following and sentences.lang_of(following) == lang and r.defect:
        # "It's the padding side. The tokenizer pads on the right, and generation reads the pad
        # tokens as part of the prompt.": what goes wrong is told as a defect, with no failure word
        d = r.defect.search(_unemph(following))
        fail = d and "a defect next: %r" % d.group(0).strip()[-40:]
    if not fail:
        return None
    body = masked.strip()
    if r.question.search(body) or r.conditional.search(body) or r.unknown.search(body) or r.instruction.search(body):
        return None
    h = r.hedge.search(body)
    if h is not None:
        return _classify.Verdict(_classify.HYPOTHESIS, "hedged (%r) culprit" % h.group(0).strip())
    if r.negated.search(body):
        return None
    return _classify.Verdict(_classify.ASSERTION, "names the culprit (%r) of a failure (%r)" % (
        r.culprit.search(masked).group(0).strip(), fail))


class _Unit:
    """A sentence to classify, with where it sits."""

    __slots__ = ("text", "block", "mode", "mode_label", "prev", "bare_ok")

    def __init__(self, text, block, mode, mode_label, prev, bare_ok=True):
        self.text, self.block, self.mode, self.mode_label, self.prev = text, block, mode, mode_label, prev
        self.bare_ok = bare_ok


def analyze(message, evidence=None, rules=None):
    """Find the causal claims of `message` and check each one's citations against `evidence`."""
    if rules is None:
        rules = load_rules()
    message = _prep(message or "")
    blocks = markdown.parse(message)
    units = []
    stack = []  # (level, mode, label) of enclosing headings
    chars = {"en": 0, "ja": 0}  # sentences per language
    # A sentence without a causal cue counts as an assertion under a root-cause heading only in
    # the first paragraph or first list after it; later blocks need a cue of their own.
    first_group = False
    after_what_happened = False
    # the lists every language's rules hold (rules.BOTH_WAYS): any language's will do
    grammar = rules.for_lang("en")
    if _explains(rules, blocks):
        # "Here's how GradScaler works.", "> Why FSDP and not DeepSpeed?": the message explains
        stack.append((0, "explainer", "explanation"))
    elif blocks and blocks[0].kind == "quote" and grammar.why_question.search(_unemph(blocks[0].text)) \
            and _heading_mode(rules.for_lang, blocks[0].text) == "assertion":
        # "> why does my fine-tuned model score worse than the base model?": the answer below
        # is the diagnosis, as under a root-cause heading (its first paragraph or list)
        stack.append((0, "assertion", blocks[0].text.strip()[:60]))
        first_group = True
    for bi, b in enumerate(blocks):
        if b.kind == "heading":
            while stack and stack[-1][0] >= b.level:
                stack.pop()
            mode = _heading_mode(rules.for_lang, b.text)
            if mode is None and after_what_happened and grammar.why_heading.search(_unemph(b.text)):
                mode = "assertion"  # "## What happened ... ## Why": a post-mortem's cause section
            if grammar.what_happened.search(_unemph(b.text)):
                after_what_happened = True
            if b.level == 7 and first_group and stack and stack[-1][1] == "assertion" \
                    and _says_unknown(rules, _first_sentence(b.text)):
                # "## Root cause / Unknown so far. What I have:": a line ending in a colon that
                # opens the section by saying the cause is not known (as a paragraph can, below)
                _drop_mode(stack, "assertion")
            stack.append((b.level, mode, b.text.strip(" *_:")))
            if b.level < 7 or mode:
                # (a line that only ends in a colon, "while the installed build says:", is no new
                # section: the paragraph after it is not the first under the heading)
                first_group = True
            # A heading can itself state the claim: "## Root cause: the loader leaks".
            if b.level < 7:
                lab = _LABEL.match(b.text)
                if lab and b.text[lab.end():].strip():
                    # the label's own mode: "## Root cause: ..." claims, "### メモ: マルチノードで
                    # 遅い件" names a topic (its words after the label set no mode of their own)
                    units.append(_Unit(b.text[lab.end():], bi, _heading_mode(rules.for_lang, lab.group(1)),
                                       b.text[:lab.end()].strip(" *_:"), None))
            continue
        if b.kind not in ("para", "item", "row"):
            continue
        list_mode = None
        if b.kind == "para" and grammar.list_head.search(b.text) and "\n" not in b.text.strip() \
                and bi + 1 < len(blocks) and blocks[bi + 1].kind == "item":
            list_mode = _heading_mode(rules.for_lang, _last_sentence(b.text).rstrip(" :："))
        if list_mode:
            # "Here is my plan for the evaluation harness:" heads the list under it, as a heading would.
            while stack and stack[-1][0] >= 7:
                stack.pop()
            stack.append((7, list_mode, b.text.strip(" *_:：")))
            first_group = True
            if list_mode != "ruled_out":
                continue
            # "Things I've ruled out for the segfault:" rules causes out itself: reported too.
        mode, label = None, None
        for lvl, m, lab in reversed(stack):
            if m:
                mode, label = m, lab
                break
        text = b.text
        bare_ok = first_group
        if b.kind == "para" or b.kind == "row":
            first_group = False
        # "Root cause: ...", "Hypothesis 2: ...", "仮説：..." set the mode of the whole block.
        lab = _LABEL.match(text)
        if lab and b.kind != "row":
            lm = _label_mode(rules, lab)
            if lm:
                mode, label = lm, lab.group(1).strip()
                bare_ok = "label"
            b.label = lab.group(1).strip()
        if b.kind == "row":
            if b.header is True:
                continue  # "| Issue | Cause | Evidence |" names columns, it claims nothing
            cells = text.split(" | ")
            lm = _heading_mode(rules.for_lang, cells[0])
            if lm == "hypothesis" or (lm == "assertion" and len(cells) == 2):
                # "| Hypothesis | ... |"; in a two-column table of items and values, "| 原因 | ... |"
                # labels its value as "原因: ..." does
                mode, label = lm, cells[0]
                bare_ok = bare_ok or lm == "assertion"
            elif b.header and (hyp := next((c for c in b.header if c.strip()
                                            and _heading_mode(rules.for_lang, c) == "hypothesis"), None)):
                # "| 候補 | 根拠 | 確度 |", "| Hypothesis | Evidence so far |": each row is a candidate
                mode, label = "hypothesis", hyp
            elif b.header and mode != "hypothesis" and not _settings_table(rules, b.header):
                # A row of a table with a cause column ("| Symptom | Cause | Fix |") states a cause
                # (not "| 項目 | 値 | 理由 |": why each setting is what it is).
                for cell in b.header:
                    cr = rules.for_lang(sentences.lang_of(cell))
                    # ("| Symptom | Explanation |": a column that explains the failure beside it)
                    if _heading_mode(rules.for_lang, cell) == "assertion" or (
                            cr.cause_column and cr.cause_column.search(_unemph(cell))
                            and any(_classify.failure_term(cr, c) or _heading_mode(rules.for_lang, c) == "observation"
                                    for c in b.header if c is not cell)):
                        mode, label, bare_ok = "assertion", cell, True
                        break
        # Items of one list read like sentences in a row: "- Loss plateaued at 2.3." then "- The
        # scheduler stepped per epoch instead of per step." explains the item before it.
        # So do paragraphs in a row: "Perplexity was reported as 3.1 instead of ~11." then a
        # paragraph "The padding tokens were counted in the loss: ..." (not one that opens with
        # the fix, "Fix: the sync now waits ...": what changed, not what was wrong).
        prev = units[-1].text if (b.kind in ("item", "para") and units and units[-1].block == bi - 1
                                  and blocks[bi - 1].kind == b.kind
                                  and not (b.kind == "para" and _either_pack(text, "fix_label", rules))) else None
        line = None  # (mode, label) of a "**Expected:** ..." line inside the block
        for a, e in sentences.split(text):
            s = text[a:e]
            if not a and bare_ok is True and mode == "assertion" and _says_unknown(rules, s):
                # "## Root cause / Unknown so far. The job hangs on 1 in 5 launches ...": the
                # section opens by saying the cause is not known, as a heading saying so would;
                # what follows in it is observation
                _drop_mode(stack, mode)
                mode, label = None, None
            if a and "\n" in text[max(0, a - 3):a]:
                # A bug report's "**What happened:** ... / **Expected:** ..." lines, one paragraph:
                # each line's label sets the mode of that line, as a block's first label does
                line = None
                lab = _LABEL.match(s)
                if lab:
                    lm = _label_mode(rules, lab)
                    if lm:
                        line = (lm, lab.group(1).strip())
            if line:
                units.append(_Unit(s, bi, line[0], line[1], prev, "label"))
            else:
                units.append(_Unit(s, bi, mode, label, prev, bare_ok))
            if not a and mode is None and b.kind == "para" and _asks_why(rules, s):
                # "Why did rollouts get 5x slower? The reward model gets reloaded on every
                # batch.": a paragraph that opens by asking why something failed and goes on
                # answers it, as the section under such a heading would
                mode, label, bare_ok = "assertion", s.strip()[:60], True
            prev = s

    claims = []
    for idx, u in enumerate(units):
        lang = sentences.lang_of(u.text)
        chars[lang] += 1
        r = rules.for_lang(lang)
        plain = _unemph(u.text)
        prev = _unemph(u.prev) if u.prev else None
        if lang == "en":  # what classify reads; the claim keeps the writer's own words
            plain = sentences.apostrophes(plain)
            prev = prev and sentences.apostrophes(prev)
        masked, _ = sentences.mask_code(plain)
        mode, mode_label, bare_ok = u.mode, u.mode_label, u.bare_ok
        if mode is None and idx and units[idx - 1].block >= u.block - 1:
            # "Found it. The collate fn pads to the whole dataset." The sentence right after an
            # announced finding (in its paragraph, or the next one) states that finding.
            before = _unemph(units[idx - 1].text).strip()
            # (code masked: "I looked into why `pip install -e .` fails." has a period in its code)
            if rules.for_lang(sentences.lang_of(before)).discovery.search(sentences.mask_code(before)[0]):
                mode, mode_label, bare_ok = "assertion", before.rstrip(".!:。！："), True
        if _BARE_LABEL.match(plain):
            continue  # "- 原因:" / "**Root cause:**" with nothing after it: an empty template field
        v = _classify.classify(r, lang, masked, plain, prev, mode, mode_label, bare_ok)
        b = blocks[u.block]
        if v is None and mode == "ruled_out" and b.kind == "item" and b.label \
                and (idx == 0 or units[idx - 1].block != u.block):
            # "## What I ruled out / - **Gradient clipping:** the threshold is never reached": each
            # labelled item names a suspect that was cleared; reported, so the audit shows it
            v = _classify.Verdict(_classify.NEGATED, "under a ruled-out heading: %r" % b.label)
        if v is None and mode is None and idx + 1 < len(units) and units[idx + 1].block <= u.block + 1 \
                and not (blocks[u.block].kind == "item" and units[idx + 1].block != u.block
                         and blocks[units[idx + 1].block].kind == "item"):
            # "`set_epoch()` is never called. Every epoch sees the same order and the curve goes
            # flat." A defect stated as fact, then the failure it explains: read as one diagnosis,
            # like the failure-then-defect order classify() handles. (Not one list item, then
            # the next: "1. Host memory fragmentation ... 2. A slow node joining ..." are two
            # entries of a list, each its own.)
            v = _defect_before_failure(r, lang, masked, units[idx + 1].text, rules)
        if v is None and mode is None and r.culprit and r.culprit.search(masked):
            v = _culprit(r, lang, masked, plain, prev if idx and units[idx - 1].block >= u.block - 1 else None,
                         units[idx + 1].text if idx + 1 < len(units) and units[idx + 1].block <= u.block + 1 else None,
                         rules)
        said = u.text
        if v is None and lang == "en" and idx and units[idx - 1].block == u.block \
                and masked.lstrip(" >*_").startswith("`") \
                and not (claims and claims[-1][0].sentence_index == idx - 1):
            # "LoRA isn't learning. `target_modules` are BERT names; ..., so nothing gets
            # wrapped." The splitter ends a sentence before code that opens the next one (the
            # second can be a claim of its own), but the two may also be one diagnosis: read
            # together as well, the way they were read before that cut.
            said = units[idx - 1].text.rstrip() + " " + u.text.lstrip()
            both = _unemph(said)
            earlier = _unemph(units[idx - 1].prev) if units[idx - 1].prev else None
            v = _classify.classify(r, lang, sentences.mask_code(both)[0], both, earlier, mode, mode_label, bare_ok)
        if v is not None and v.kind == _classify.ASSERTION and idx + 1 < len(units) and units[idx + 1].block == u.block:
            after = sentences.mask_code(_unemph(units[idx + 1].text))[0]  # the next sentence of the block
            if v.bare and r.explains_before and r.explains_before.search(after) and _classify.failure_term(r, plain):
                # "## 原因 / H100 でだけ `illegal memory access` が出ます。これは〜未対応なためです。": the
                # first sentence is the symptom, the next one the cause it names
                v = None
            elif r.when_only and _dated_only(r, masked) and r.unknown.search(after):
                # "The CTR model's calibration broke after Tuesday's retrain. I haven't found the
                # cause.": when it broke, and the writer says why is still open
                v = None
        if v is None:
            continue
        claims.append((Claim(said.strip(), v.kind, sentence_index=idx, lang=lang, reason=v.reason), u.block))

    lang = "ja" if chars["ja"] > chars["en"] else "en"
    if claims:
        checker = Checker(evidence, rules.for_lang)
        # Claims of one block share its scope: find its ids and quotes once, not once per
        # claim (a long paragraph of claims was quadratic).
        scopes = {}
        keys = []
        claim_at = {claim.sentence_index for claim, _ in claims}
        for claim, bi in claims:
            key = (bi, claim.lang)
            sep = rules.for_lang(claim.lang).separate_issue
            if sep and sep.search(_unemph(claim.text)):
                # "Two problems here. First, ... `Missing key(s)`. Second, the accuracy drop comes
                # from the resize": a second, separate finding does not share the first one's
                # quote because they sit in one paragraph; it cites within its own sentence
                # (or in what is attached after it, when it ends the block)
                key = (bi, claim.lang, claim.sentence_index)
                if key not in scopes:
                    last = claim.sentence_index + 1 >= len(units) or units[claim.sentence_index + 1].block != bi
                    scopes[key] = _sentence_citations(claim.text, bi, blocks, rules, claim.lang, last)
            elif (tail := _symptom_quoted_head(claim, rules)) is not None:
                # "Training goes NaN at step 3117 — `step 3117 | loss nan | ...` — and the culprit
                # is the RMSNorm epsilon": the quote before the cue shows the failure, and the
                # cause after it cites from there on
                key = (bi, claim.lang, claim.sentence_index, "tail")
                if key not in scopes:
                    later = [units[k].text for k in range(claim.sentence_index + 1, len(units)) if units[k].block == bi]
                    scopes[key] = _with_attached([tail] + later, bi, blocks, rules, claim.lang)
            elif _symptom_quotes_before(claim, bi, units, claim_at, rules, checker):
                # "The run dies with `CUDA out of memory ...` at the first eval. The reason is
                # that the eval batch is derived from ...": the quote shows the symptom, in a
                # sentence that claims nothing; the cause after it cites from its own sentence on
                key = (bi, claim.lang, claim.sentence_index, "from")
                if key not in scopes:
                    scopes[key] = _citations_from(claim.sentence_index, bi, units, blocks, rules, claim.lang)
            elif key not in scopes:
                scopes[key] = _scope_citations(bi, blocks, rules, claim.lang)
            keys.append(key)
        # Every quote of the message in one pass over the outputs (see cite.py).
        checker.check_all([q for _, quotes in scopes.values() for q in quotes])
        # Every claim of one scope gets the same answer: work it out once per scope. The lists
        # are shared between those claims (a report is read, never edited).
        cited = {}
        for (claim, bi), key in zip(claims, keys):
            if key not in cited:
                cited[key] = _cite(scopes[key], checker)
            claim.quotes, claim.evidence, claim.near_misses = cited[key]
            claim.cited = bool(claim.evidence)
            if claim.cited:
                made_up = [e for e in _ids_in([claim.text], rules.for_lang(claim.lang)) if not checker.known_id(e)]
                if made_up:
                    # "... falls back to the math kernel (E3)." when the session has no E3: the
                    # claim names its own evidence, and that evidence does not exist; other
                    # entries around it (a symptom's E1 below) do not stand in for it
                    claim.evidence, claim.cited = [], False
                elif (wrong := _misquoted(claim.text, checker)):
                    # "... climbs from "allocated=21.4GB after eval 1" to "allocated=38.2GB after
                    # eval 12" (E1)" where E1 says 28.2GB: a quote in the claim's own sentence
                    # that no output holds is output made up or altered, whatever else is cited
                    claim.evidence, claim.cited = [], False
                    claim.near_misses = (list(claim.near_misses or []) + wrong)[:5]
        for claim, bi in claims:
            if claim.cited or claim.kind != "assertion":
                continue
            # "## Summary" states the cause and "## Details" right after it quotes what shows
            # it: the summary draws on the details, when what they cite bears on the claim
            r = rules.for_lang(claim.lang)
            # (or the paragraph counts them: "Resuming silently restarts the LR schedule and the
            # data order. Three separate problems, all visible in the resume logs.")
            counts = r.counts_causes
            back = bool(r.follow_on and r.follow_on.search(_unemph(claim.text))) \
                or bool(counts and counts.search(_unemph(claim.text))) \
                or bool(counts and blocks[bi].kind == "para"
                        and any(counts.search(_unemph(u.text)) for u in units if u.block == bi))
            details = _details_citations(bi, blocks, rules, claim.lang, back)
            if details is None:
                continue
            checker.check_all(details[1])
            quotes, ev, near = _cite(details, checker)
            verified = [q for q in quotes if checker.check_quote(q)[0] == "verified"]
            # (a claim that points back, 「この 2 つが重なって」, is about what it points at)
            if ev and (back or _bears_on(claim, [e for e in ev if e in details[0]], verified, checker, r)):
                claim.quotes, claim.evidence, claim.cited = quotes, ev, True
                claim.reason += "; drawn from the details it sums up"
        _follow_on(claims, units, blocks, rules)
        _announced(claims, rules)
    return Report([c for c, _ in claims], lang, len(units))


def _settings_table(rules, header):
    """Does a table's header name settings and values ("| 項目 | 値 | 理由 |", "| Option |
    Default | Why |") rather than failures? Its reason column gives motives, not causes."""
    if any(_classify.failure_term(rules.for_lang(sentences.lang_of(cell)), cell) for cell in header if cell.strip()):
        return False  # "| 設定 | tokens/s | 遅い理由 |": why each one is slow
    return any(rules.for_lang(sentences.lang_of(cell)).settings_column.search(_unemph(cell))
               for cell in header if cell.strip() and rules.for_lang(sentences.lang_of(cell)).settings_column)


def _follow_on(claims, units, blocks, rules):
    """「この状態で 16 ワーカーを立てているので、4.82 s/it まで落ちています。」 after a cited
    diagnosis: a sentence whose cause is "this", the finding just stated and cited, draws on
    that finding's evidence. Only the next claim after a cited one, in the same section, opening
    its paragraph (or right after it in one): "That's because ..." points at an effect and names
    a new cause, so it is not among `follow_on`'s openings, nor is "The other failure ..."."""
    prev = None  # (claim, block) of the claim before
    for claim, bi in claims:
        last, prev = prev, (claim, bi)
        if claim.cited or claim.kind != "assertion" or last is None:
            continue
        before, pbi = last
        if not (before.cited and before.kind == "assertion") or pbi > bi:
            continue
        if any(blocks[k].kind == "heading" and blocks[k].level < 7 for k in range(pbi + 1, bi + 1)):
            continue
        idx = claim.sentence_index
        first = idx == 0 or units[idx - 1].block != units[idx].block
        if not (first or before.sentence_index == idx - 1):
            continue
        if blocks[bi].kind == "item" and pbi != bi:
            continue  # "1. ... 2. ...": each item of a findings list stands on its own
        r = rules.for_lang(claim.lang)
        if not (r.follow_on and r.follow_on.search(_unemph(claim.text))):
            continue
        claim.evidence, claim.quotes = list(before.evidence), before.quotes
        claim.cited = True
        claim.reason += "; draws on the cited claim before it"
        prev = (claim, bi)


def _announced(claims, rules):
    """"I found the root cause of the hang." / 「〜の件、原因を特定しました。」: a sentence that only
    announces a finding is as well founded as the finding it announces, the next claim after it:
    cited when that claim is (uncited, that claim blocks on its own)."""
    for i, (claim, _) in enumerate(claims):
        if claim.cited or claim.kind != "assertion" or not _either_pack(claim.text, "discovery", rules):
            continue
        nxt = next((c for c, _ in claims[i + 1:] if c.kind == "assertion"), None)
        if nxt is not None and nxt.cited:
            claim.evidence, claim.quotes, claim.cited = list(nxt.evidence), nxt.quotes, True
            claim.reason += "; announces the cited finding after it"


def _scope(bi, blocks, rules):
    """Prose, quotes and fences that a claim in block `bi` may cite: its own block and the
    blocks attached right after it (a fence, a block quote, an "Evidence:" line)."""
    b = blocks[bi]
    prose = [b.text]
    material = list(b.codes)
    if bi and b.kind in ("para", "item") and blocks[bi - 1].kind in ("fence", "quote"):
        r = rules.for_lang(sentences.lang_of(b.text[:40]))
        if r.back_reference and r.back_reference.search(_unemph(b.text)):
            # 「> ValueError: ...」 then 「とあるので、〜が原因です」: the paragraph points at the
            # block right above it, which it cites as if that block followed it
            j = bi - 1
            while j >= 0 and blocks[j].kind in ("fence", "quote"):
                material.append(blocks[j].text)
                j -= 1
    if b.kind == "heading" and bi + 1 < len(blocks) and blocks[bi + 1].kind in ("para", "item"):
        prose.append(blocks[bi + 1].text)
    j = bi + 1
    if b.kind in ("para", "item") and b.text.rstrip().endswith((":", "：")) and j < len(blocks) \
            and blocks[j].kind in ("para", "item"):
        # 「nvcc が次のエラーで止まっています：」 then the quoted line as its own paragraph
        prose.append(blocks[j].text)
        material.extend(blocks[j].codes)
        j += 1
    while j < len(blocks):
        nb = blocks[j]
        if nb.kind in ("fence", "quote"):
            material.append(nb.text)
        elif nb.kind in ("para", "item") and (_is_evidence_line(nb.text, rules) or _only_quote(nb.text)):
            # (「rank=3 batches=1247」 alone in a paragraph under the claim is a quote of output)
            prose.append(nb.text)
            material.extend(nb.codes)
        elif nb.kind == "heading" and nb.level == 7 and _is_evidence_line(nb.text, rules):
            pass  # "Evidence:" alone on a line, its fence or quote follows
        elif nb.kind in ("item", "row") and b.kind in ("para", "heading"):
            # 「…ためです。」 then a list (or table) whose every item names the evidence it shows:
            # "- rank 0 timed out in the collective (E1)"
            run = _run_of(blocks, j)
            if not all(_names_evidence(x.text, rules) or x.kind == "row" and x.header is True for x in run):
                after = j + len(run)
                if run[0].kind == "row" and after < len(blocks) and blocks[after].kind == "para" \
                        and _names_evidence(blocks[after].text, rules) and (
                            _points_back(blocks[after].text, rules) or _is_evidence_line(blocks[after].text, rules)):
                    # 「…ためです。」, a table of the numbers, then 「`logged_loss=9.21 …` の通り、
                    # ちょうど 4 倍です (E1)」 or "From the sweep: `…`": the paragraph under the
                    # table quotes the output the table sums up, for the claim above it
                    for x in run + [blocks[after]]:
                        prose.append(x.text)
                        material.extend(x.codes)
                    j = after + 1
                    continue
                break
            for x in run:
                prose.append(x.text)
                material.extend(x.codes)
            j += len(run)
            continue
        else:
            break
        j += 1
    # "## 結論 ... ## 根拠 - E1 に `...`": a section headed as evidence right after the claim's
    # section is that section's evidence block, however many paragraphs lie in between.
    while j < len(blocks) and blocks[j].kind != "heading":
        j += 1
    if j < len(blocks) and blocks[j].level < 7 and _is_evidence_line(blocks[j].text, rules):
        more_prose, more_material = _section(j, blocks)
        prose += more_prose
        material += more_material
    return prose, material


def _section(j, blocks, level=None):
    """(prose, quotes and fences) of the blocks after block `j` up to the next heading of depth
    `level` or shallower: by default `j`'s own, the section it heads."""
    prose, material = [], []
    level = blocks[j].level if level is None else level
    j += 1
    while j < len(blocks) and not (blocks[j].kind == "heading" and blocks[j].level <= level):
        nb = blocks[j]
        if nb.kind in ("fence", "quote"):
            material.append(nb.text)
        elif nb.kind in ("para", "item", "row"):
            prose.append(nb.text)
            material.extend(nb.codes)
        j += 1
    return prose, material


def _details_citations(bi, blocks, rules, lang, back=False):
    """(evidence ids, quotes) of the details that the section holding block `bi` sums up: the
    details section after a summary ("## Summary" then "## Details", 「## 概要」 then 「## 詳細」),
    the subsections of the section it opens, or the findings before a root cause; or None.
    `back`: the claim opens by pointing at what came before (「この 2 つが重なって」)."""
    opening = bi == 0 or (bi == 1 and blocks[0].kind == "heading")
    if opening and blocks[bi].kind == "para" and bi + 1 < len(blocks) and blocks[bi + 1].kind == "para":
        # 「Pod が CrashLoopBackOff になっていた件、ドライバが古いのが原因です。」 as the message's
        # opening paragraph, then a paragraph that shows it with evidence ids (E1, E2): the
        # conclusion first, its grounds right after
        nxt = blocks[bi + 1]
        r = rules.for_lang(lang)
        if r.evidence_id and r.evidence_id.search(_unemph(nxt.text)):
            return _citations([nxt.text], list(nxt.codes), r)
    j = bi + 1
    while j < len(blocks) and not (blocks[j].kind == "heading" and blocks[j].level < 7):
        j += 1
    if j < len(blocks) and _summary_then_details(bi, j, blocks, rules):
        prose, material = _section(j, blocks)
    elif j < len(blocks) and _section_heading(bi, blocks) < 0 and blocks[j].level < 7 \
            and _either_pack(blocks[j].text, "details_heading", rules):
        # the message's opening paragraph, under no heading, right before "## Findings": the
        # summary in all but name
        prose, material = _section(j, blocks)
    elif j < len(blocks) and _opens_subsections(bi, j, blocks):
        # "## Root cause / <the cause in one paragraph> / ### 1. ... / ### 2. ...": the paragraph
        # that opens a section sums up the subsections under it, which hold the details
        prose, material = _section(bi, blocks, level=blocks[bi - 1].level)
    else:
        # "## Findings / 1. ... (E1) / 2. ... (E2) / ## Root cause / <what they add up to>": the
        # conclusion draws on the findings section right before it
        f = _findings_before(bi, blocks, rules, back)
        if f is not None:
            prose, material = _section(f, blocks)
        else:
            # "## Findings / 1. ... (E1) / 2. ... (E2) / So the hang is ...": a paragraph that
            # points back closes the findings section it sits in, and draws on what it lists
            k = _section_heading(bi, blocks)
            if not (back and k >= 0 and blocks[bi].kind == "para" and bi - k > 1
                    and _either_pack(blocks[k].text, "details_heading", rules)):
                return None
            prose, material = _section(k, blocks)
            mine = set(blocks[bi].codes)
            prose = [t for t in prose if t != blocks[bi].text]
            material = [t for t in material if t not in mine]
    return _citations(prose, material, rules.for_lang(lang))


def _findings_before(bi, blocks, rules, back=False):
    """The heading of a findings section ("## Findings", 「## 調査結果」) right before the
    root-cause section that holds block `bi`, or None. With `back`, any section right before
    it whose findings are subsections ("## Summary / ### 1. ... / ### 2. ..."): the claim
    points at them (「この 2 つが重なって TTFT が悪化しています」)."""
    k = _section_heading(bi, blocks)
    if k <= 0 or _heading_mode(rules.for_lang, blocks[k].text) != "assertion":
        return None
    f = k - 1
    while f >= 0 and not (blocks[f].kind == "heading" and blocks[f].level <= blocks[k].level):
        f -= 1
    if f < 0 or blocks[f].level != blocks[k].level:
        return None
    if not _either_pack(blocks[f].text, "details_heading", rules) and not (
            back and any(b.kind == "heading" and blocks[k].level < b.level < 7 for b in blocks[f + 1:k])):
        return None
    return f


def _opens_subsections(bi, j, blocks):
    """Is block `bi` the one paragraph between a section's heading and its first subsection
    (a deeper heading, at `j`)?"""
    k = bi - 1
    if k < 0 or blocks[k].kind != "heading" or blocks[k].level >= 7:
        return False
    return j == bi + 1 and blocks[j].level > blocks[k].level


_ACRONYM = diskcache.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])")
# Words too common to show that an output bears on a claim.
_COMMON = frozenset("because every with that this from when after before which there their into only "
                    "also than then they were have been does each while where what about some same".split())


def _bears_on(claim, evidence_ids, quotes, checker, r):
    """Does what the details section cites share a word with the summary's claim (its failure
    words aside)? "Training is slow because torch.compile recompiles" is not shown by step times."""
    plain = _without_failures(r, claim.text)
    # (and three-letter acronyms: 「原因は CPU 側の前処理律速でした」 is shown by a `top` line)
    words = (_words_of(plain) | {a.lower() for a in _ACRONYM.findall(plain)}) - _COMMON
    texts = [q.lower() for q in quotes]
    texts += [checker.output_of(eid).lower() for eid in evidence_ids]
    if any(w in t for w in words for t in texts):
        return True
    # the summary in general terms, the details in specifics: "limited by the input pipeline"
    # and `num_workers: 2` (citation.related_terms, one group per entry)
    groups = r.related_terms.each() if r.related_terms else ()
    return any(g.search(plain) and any(g.search(t) for t in texts) for g in groups)


def _summary_then_details(bi, j, blocks, rules):
    """Is block `bi` in a section headed as a summary ("## Summary", 「## 概要」) whose next section
    of the same depth, headed at `j`, gives the details ("## Details", 「## 詳細」)?"""
    k = _section_heading(bi, blocks)
    if k < 0 or blocks[k].level != blocks[j].level:
        return False
    return _either_pack(blocks[k].text, "summary_heading", rules) \
        and _either_pack(blocks[j].text, "details_heading", rules)


def _section_heading(bi, blocks):
    """The index of the heading (a real one, not a label line) whose section holds block `bi`,
    or -1."""
    k = bi
    while k >= 0 and not (blocks[k].kind == "heading" and blocks[k].level < 7):
        k -= 1
    return k


def _either_pack(text, name, rules):
    """Does the list `name` of the English or the Japanese pack match `text` (emphasis removed)?"""
    t = _unemph(text)
    return any(getattr(rules.for_lang(lang), name) and getattr(rules.for_lang(lang), name).search(t)
               for lang in ("en", "ja"))


def _only_quote(text):
    """Is a paragraph nothing but one or more quotes (「…」, “…”, "…", `…`)?"""
    t = _unemph(text).strip()
    if not t or len(t) > 400:
        return False
    qs = quotes_in(t)
    rest = t
    for q in qs:
        rest = rest.replace(q, "", 1)
    return bool(qs) and not rest.strip(" \t\n「」『』“”\"`'、,。.:：")


def _names_evidence(text, rules):
    """Does a list item or table row name evidence: an id, or a quote of output?"""
    return any(rules.for_lang(lang).evidence_id.search(text) for lang in ("en", "ja")) or bool(quotes_in(text))


def _points_back(text, rules):
    """Does a paragraph open by pointing at what came before it (`back_reference`)?"""
    return _either_pack(text, "back_reference", rules)


def _run_of(blocks, j):
    """The list items (or table rows) of one run starting at block `j`."""
    kind = blocks[j].kind
    k = j
    while k < len(blocks) and blocks[k].kind == kind:
        k += 1
    return blocks[j:k]


def _is_evidence_line(text, rules):
    t = _unemph(text).lstrip(" *_")
    if not t:
        return False
    # 「grep の結果：「DataLoader(...」」 reads as English by its first characters: ask both
    first = sentences.lang_of(t[:40])
    return any(rules.for_lang(lang).evidence.search(t) for lang in (first, "ja" if first == "en" else "en"))


def _scope_citations(bi, blocks, rules, lang):
    """(evidence ids, quotes) that a claim of language `lang` in block `bi` may cite."""
    prose, material = _scope(bi, blocks, rules)
    return _citations(prose, material, rules.for_lang(lang))


# A cue that points back at what came before it ("which is where ...", "that's why ...")
_POINTS_BACK = diskcache.compile(r"\W*(?:which|that|this|it)\b", diskcache.IGNORECASE)
# A quoted span inside a sentence (the quote forms of cite.quotes_in, inline)
_QUOTED = diskcache.compile(r"`[^`]*`|\"[^\"]*\"|“[^”]*”|「[^」]*」")


def _dated_only(r, masked):
    """Is every cause cue of the sentence a causal verb that only says when ("broke after")?"""
    verbs = list(r.cause_verb.finditer(masked))
    return bool(verbs) and all(r.when_only.search(m.group(0)) for m in verbs) \
        and not r.cause_frame.search(masked) and not r.connective.search(masked) \
        and not (r.result and r.result.search(masked))


def _symptom_quoted_head(claim, rules):
    """The part of an assertion after its cause cue, when every quote before the cue is an error
    message sharing no word with that part and the block names no evidence id before it; else
    None. Such quotes show what failed, not the cause named after them."""
    # (In English only, by the cue: a Japanese sentence puts the reason first, 「「OSError: ...」で
    # 失敗しているので、〜」. It marks the clause that only shows the log, `shown_clause`.)
    if claim.kind != "assertion":
        return None
    r = rules.for_lang(claim.lang)
    plain = _unemph(claim.text)
    masked = sentences.mask_code(plain)[0]
    if claim.lang != "en":
        return _shown_clause_tail(r, plain, masked)
    cues = [m for m in (r.cause_frame.search(masked), r.connective.search(masked)) if m is not None]
    if not cues:
        return None
    cue = min(cues, key=lambda m: m.start())
    if _POINTS_BACK.match(cue.group(0)) or r.look_back.search(cue.group(0)):
        return None  # "X — dedup reports `...` — which is why ...": the cause comes before the cue
    head, tail = plain[:cue.start()], plain[cue.end():]
    # the head states the failure in words of its own, the quote only shows it ("`OSError: No
    # space left on device` is the root cause of the crash" quotes the cause itself)
    if not _classify.failure_term(r, _QUOTED.sub(" ", head)) or not _quotes_show_failure_only(r, head, tail):
        return None
    return tail


def _quotes_show_failure_only(r, head, tail):
    """Does `head` quote error messages only (at least one, with no evidence id beside them) that
    share no word with `tail`, the cause named after them?"""
    quoted = [q for q in quotes_in(head) if not _uncitable(q, r)]
    if not quoted or r.evidence_id.search(head) or not all(_classify.failure_term(r, q) for q in quoted):
        return False
    shown = set().union(*(_shown_by(r, q) for q in quoted))
    return not (_words_of(tail) & shown)


def _shown_clause_tail(r, plain, masked):
    """「ログでは `step 20010 | loss nan` となっており、warmup がスキップされたことが原因です」:
    the part after a clause that only shows the failure in a quote of the log (`shown_clause`),
    when the rest names the cause by a `cause_frame` and shares no word with the quote; else
    None."""
    m = r.shown_clause.search(masked) if r.shown_clause else None
    if m is None:
        return None
    head, tail = plain[:m.end()], plain[m.end():]
    if not r.cause_frame.search(masked[m.end():]):
        return None  # (「ログに `OutOfMemoryError ...` と出ており、〜載り切らずに落ちていました」: the quote is the ground)
    return tail if _quotes_show_failure_only(r, head, tail) else None


def _symptom_quotes_before(claim, bi, units, claim_at, rules, checker=None):
    """Are the quotes of the claim's block before it only error messages, in sentences that
    claim nothing (the symptom), with at least one there, and no evidence id whose output shares
    a word with the claim? Then they show what failed, not the cause the claim names after
    them."""
    idx = claim.sentence_index
    found = False
    j = idx - 1
    while j >= 0 and units[j].block == bi:
        text = _unemph(units[j].text)
        r = rules.for_lang(sentences.lang_of(text))
        # (a quote too short to cite anything, `generate()`, neither shows a cause nor a symptom)
        quoted = [q for q in quotes_in(text) if not _uncitable(q, r)]
        if r.evidence_id.search(text):
            # an id names a whole output: it may hold the cause too, unless nothing in it bears
            # on the claim (「loss が NaN になっています: `step 3417 loss=nan` (E1)。原因は長さ 0
            # の音声ファイルが…」: E1 is the training log, the symptom)
            ids = _ids_in([text], r)
            if checker is None or not ids:
                return False
            # (nor by a word the symptom's sentence says itself: "The job dies on an NCCL timeout
            # — "... OpType=BROADCAST" (E1). This happens because ... NCCL falls back to TCP ...
            # for the 7B broadcast" shares only what was shown as the failure)
            said = _words_of(_without_failures(r, claim.text)) - _COMMON - _words_of(text)
            # (not a line's prefix: "[rank0]: Traceback ..." says who printed it)
            # (nor by the hint lines a tool prints with every such error, `boilerplate`)
            outputs = [_LINE_PREFIX.sub("", _without_boilerplate(rules, checker.output_of(i))).lower() for i in ids]
            if any(w in out for out in outputs for w in said):
                return False
        if quoted:
            # only error messages: a quote of anything else (an address, a config line, a
            # profile) is evidence the claim after it may draw on
            if j in claim_at:
                return False
            masked = sentences.mask_code(text)[0]
            states_failure = _classify.failure_term(r, _QUOTED.sub(" ", text))
            claim_masked = sentences.mask_code(_unemph(claim.text))[0]
            if not all(_classify.failure_term(r, q) for q in quoted) and not (
                    # 「eval が遅い件、`avg tokens/s: 41.2` しか出ていないことは確認しました。原因は
                    # 〜」: a measured value, in a sentence that calls it the failure, is the
                    # symptom too, when the claim after it opens by naming the cause anew (not
                    # 「これだと〜ので」, which builds on that value)
                    (states_failure
                     # ("The load test confirms it: `p50=947ms ...`" after "Latency regressed
                     # from 180 ms to 950 ms": `restates` points at the failure said before)
                     or (r.restates and r.restates.search(masked) and j > 0 and units[j - 1].block == bi
                         and _classify.failure_term(r, _unemph(units[j - 1].text))))
                    and (_opens_with_cause(claim, rules)
                         # (「メインスレッドが `_try_get_data (...dataloader.py:1133)` で待ち続けて
                         # います (E1)。ワーカー内で OpenCV と fork がデッドロックしているのが原因」:
                         # where it waits, and a cause that shares no word with that quote, named
                         # afresh rather than read off it)
                         or (states_failure
                             and not _DEMONSTRATIVE.match(claim_masked.lstrip(" *_-・"))
                             and r.cause_frame.search(claim_masked)
                             and not (_words_of(claim.text) - _COMMON) & set().union(*(_words_of(q) for q in quoted))))):
                return False
            if r.connective.search(masked) or r.cause_frame.search(masked) \
                    or (r.found_opener and r.found_opener.search(masked)):
                return False  # a sentence that gives a reason, or reports a finding, is no bare symptom
            # A quote that shares a word with the claim may show the cause ("... has 17 NaN
            # values in pixel_values" for "the NaN in the data broke the gradients")
            # (not the failure itself: "CUDA out of memory" and "multiplies memory by eight"
            # share only the symptom)
            shown = set().union(*(_shown_by(r, q) for q in quoted))
            if _words_of(claim.text) & shown:
                return False
            found = True
        j -= 1
    return found


def _without_boilerplate(rules, output):
    """`output` less the hint lines its tool prints with every error of a kind (en `boilerplate`)."""
    pattern = rules.for_lang("en").boilerplate
    return _blanked(pattern, output) if pattern else output


def _opens_with_cause(claim, rules):
    """Does the claim open with a cause frame or connective that names the cause afresh ("The
    reason memory grows is ...", 「原因は〜」), not one that points back ("That's why", 「そのため」)?"""
    r = rules.for_lang(claim.lang)
    masked = sentences.mask_code(_unemph(claim.text))[0]
    lead = len(masked) - len(masked.lstrip(" *_-・"))
    if _THIS_FAILURE_IS.match(masked, lead) and (r.cause_frame.search(masked) or r.connective.search(masked)):
        # 「これは optimizer state を bf16 で持っているせいで〜ためです」, "This is because ...":
        # the failure just shown, then why, named afresh (not 「これだと〜ので」)
        return True
    for pat in (r.cause_frame, r.connective):
        m = pat.search(masked)
        # (after a short 「遅さの」「NaN の」: what the cause is of, named first)
        before = masked[lead:m.start()] if m is not None else ""
        if m is not None and (len(before) <= 2 or (
                before.rstrip().endswith("の") and len(before) <= 15 and not _DEMONSTRATIVE.match(before))):
            cue = m.group(0)
            return not (_POINTS_BACK.match(cue) or r.look_back.search(cue) or _DEMONSTRATIVE.match(cue))
    return False


_THIS_FAILURE_IS = diskcache.compile(
    r"(?:これは|それは|この(?:発散|エラー|失敗|現象|症状|落ち方|遅さ)は|(?:this|that|it)(?:'s|\s+is|\s+was|\s+happens|\s+happened|\s+occurs|\s+occurred)\s+(?:because|due\s+to|caused\s+by)\b)",
    diskcache.IGNORECASE)
_DEMONSTRATIVE = diskcache.compile(r"\W*(?:これ|それ|この|その|そう|あれ|(?:hence|thus|so)\b)", diskcache.IGNORECASE)


# What a log line opens with to say who printed it: "[rank0]: ", "[2024-05-01 12:00:01] "
_LINE_PREFIX = diskcache.compile(r"(?m)^[ \t]*\[[^\]\n]{1,40}\]:?")
# The name of a logged value: "loss=nan", "grad_norm: inf", "| loss nan |", "loss 1.48"
_LOG_KEY = diskcache.compile(r"([A-Za-z_][\w/.-]*)(?=\s*[=:]|\s+(?:[-+]?\d|nan\b|inf\b|NaN\b))")


def _shown_by(r, quote):
    """The words a quoted error shows beyond its failure: neither failure words nor the names of
    logged values ("loss=nan grad_norm=inf" shows that the loss went NaN, nothing of why)."""
    # (a key's parts too: "eval/loss: nan" names the eval loss, it shows nothing about the eval set)
    keys = _LOG_KEY.findall(quote)
    return _words_of(_without_failures(r, quote)) - {k.lower() for k in keys} - set().union(*(_words_of(k) for k in keys))


def _without_failures(r, text):
    """`text` with each failure word of it blanked out."""
    return _blanked(r.failure, text)


def _blanked(pattern, text):
    """`text` with each match of `pattern` replaced by one space."""
    for m in reversed(list(pattern.finditer(text))):
        text = text[:m.start()] + " " + text[m.end():]
    return text


def _words_of(text):
    """Lower-cased words of 4+ letters (ASCII), and runs of 2+ katakana or kanji: what a quote
    and a claim may share. Code is read as words too."""
    out = set()
    word = []
    kind = None
    for ch in text.lower() + " ":
        k = "a" if ("a" <= ch <= "z" or ch == "_") else "k" if "\u30a1" <= ch <= "\u30fa" or ch == "ー" \
            else "h" if "\u4e00" <= ch <= "\u9fff" else None
        if k == kind and k is not None:
            word.append(ch)
            continue
        if kind == "a" and len(word) >= 4 or kind in ("k", "h") and len(word) >= 2:
            out.add("".join(word))
        word, kind = [ch], k
    return out


def _citations_from(idx, bi, units, blocks, rules, lang):
    """(evidence ids, quotes) of the sentences of block `bi` from sentence `idx` on, and of the
    blocks attached after it."""
    prose = [units[k].text for k in range(idx, len(units)) if units[k].block == bi]
    return _with_attached(prose, bi, blocks, rules, lang)


def _with_attached(prose, bi, blocks, rules, lang):
    """(evidence ids, quotes) of `prose` (part of block `bi`) and of the blocks attached after
    the block, without the rest of the block."""
    attached, everything = _scope(bi, blocks, rules)
    own = set(blocks[bi].codes)
    material = [block for block in everything if block not in own]
    return _citations(prose + attached[1:], material, rules.for_lang(lang))  # [0] is the whole block


def _sentence_citations(text, bi, blocks, rules, lang, last):
    """(evidence ids, quotes) of one sentence, and of the blocks attached after its block when
    it is the block's last sentence."""
    if last:
        return _with_attached([text], bi, blocks, rules, lang)
    return _citations([text], [], rules.for_lang(lang))


def _ids_in(prose, r):
    """The evidence ids named in `prose`, each once, in order."""
    ids = []
    seen = set()
    for text in prose:
        for m in r.evidence_id.finditer(text):
            eid = (m.group(1) if m.lastindex else m.group(0)).upper()
            if eid not in seen:
                seen.add(eid)
                ids.append(eid)
    return ids


def _citations(prose, material, r):
    """The evidence ids named in `prose` (each once, in order) and the quotes a claim may cite:
    those in `prose`, and each block of `material` whole and line by line."""
    ids = _ids_in(prose, r)
    quotes = []
    for text in prose:
        quotes.extend(quotes_in(text))
    for block in material:
        quotes.append(block)
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if len(lines) > 1:
            quotes.extend(lines)
    return ids, quotes


def _cite(scope, checker):
    """(quotes, evidence ids cited, near misses) for the claims of one scope."""
    ids, quotes = scope
    near, cited_by, seen = [], [], set()
    for eid in ids:
        if checker.known_id(eid):
            cited_by.append(eid)
            seen.add(eid)
        else:
            near.append({"quote": eid, "evidence": None, "why": "no such evidence id in this session"})
    verified = unfounded = False
    for q in quotes:
        status, hits, detail = checker.check_quote(q)
        if status == "verified":
            verified = True
            for h in hits:
                if h not in seen:
                    seen.add(h)
                    cited_by.append(h)
            continue
        if status in ("missing", "near") and _classify.failure_term(checker.rules_for(sentences.lang_of(q)), q):
            # 「ログに「NCCL timeout in AllGather on rank 5」と出ていました（E2）」 where E2 holds no
            # such line: an error message no tool printed, beside an id, is a made-up quote, and
            # the id does not vouch for it
            unfounded = True
        if status == "own":
            # "the loader is built with `pin_memory=False` (E1)" where E1 grepped for that string
            # and printed something else: the quote is the agent's own search, and the id beside
            # it does not vouch for what no output holds
            unfounded = True
            if len(near) < 5:
                near.append({"quote": q[:200], "evidence": _ev_of(detail), "why": "written by the agent itself, in no output"})
            continue
        if status in ("self", "near") and len(near) < 5:
            why = "written by the agent itself, not tool output" if status == "self" else "close to recorded output but not exact"
            near.append({"quote": q[:200], "evidence": hits[0] if hits else _ev_of(detail), "why": detail if status == "near" else why})
        elif status == "missing" and unfounded and len(near) < 5:
            near.append({"quote": q[:200], "evidence": None, "why": "an error message that no recorded output holds"})
    if unfounded and not verified and cited_by:
        cited_by = []
    return quotes, cited_by, near


def _misquoted(text, checker):
    """The near-miss entries for the quotes in quotation marks of sentence `text` that no
    recorded output holds (altered, reworded or only searched for); [] when every one is found.
    Backticks are left out: they mark names and code as often as output."""
    wrong = []
    for q in quotes_in(normalize(text), code=False):
        if not (any(c.isdigit() for c in q) or len(q.split()) >= 4 or len(q) >= 15 and _CJK.search(q)):
            continue  # "Hello world", "continue fine-tuning": a name or an input, not a line of output
        status, hits, detail = checker.check_quote(q)
        if status in ("missing", "near", "own"):
            wrong.append({"quote": q[:200], "evidence": hits[0] if hits else _ev_of(detail),
                          "why": "in quotation marks, but no recorded output holds it"})
    return wrong


def _ev_of(detail):
    import re

    m = re.search(r"\b(E\d+)\b", detail or "")
    return m.group(1) if m else None
