"""Is a sentence a claim about why something went wrong, and if so which kind?

A sentence is causal when a `cause_frame` fires ("the root cause is"), or a `cause_verb` or
`connective` fires while the sentence (or, for "This is because ...", the one before it) uses
failure vocabulary. Then, inside the clause that holds the cue, in this order:

    question, conditional  -> hypothesis
    unknown ("not known")  -> not a claim
    instruction            -> not a claim (unless a frame)
    hedge                  -> hypothesis
    negation               -> negated (unless "not X but Y": assertion)
    otherwise              -> assertion (hypothesis under a hypothesis heading or label)

A connective in a sentence where the agent explains its own change (`rationale`: "I renamed it
because ...") is motivation, not diagnosis, and is skipped. Under a root-cause heading or label
(or right after "Found it.", see analyze) a plain declarative sentence is an assertion even
without a cue. With no cue at all, two structures still claim: "<failure stated>: <clause that
explains it>" (`explanation`), and a sentence naming a `defect` right after one that plainly
states a failure ("The second node hangs at init. NCCL_SOCKET_IFNAME points to docker0.").
"""

from .. import diskcache

ASSERTION, HYPOTHESIS, NEGATED = "assertion", "hypothesis", "negated"
# A negated frame in a sentence like these rules a cause out even without failure words.
_RANK = {ASSERTION: 3, NEGATED: 2, HYPOTHESIS: 1}
# The first words of a yes/no question, which proposes a cause rather than states one
_YES_NO = {"could", "can", "is", "are", "was", "were", "might", "would", "does", "did", "do", "has", "have", "should"}


def _spans(matches):
    return [(m.start(), m.end()) for m in matches]


def _outside(m, spans):
    return not any(a <= m.start() and m.end() <= b for a, b in spans)


_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xFF66, 0xFF9F))
_cjk_to_space = None  # built on first use: an English-only message never needs its 28k entries


def _cjk_table():
    global _cjk_to_space
    if _cjk_to_space is None:
        _cjk_to_space = {c: " " for a, b in _CJK_RANGES for c in range(a, b + 1)}
    return _cjk_to_space


def failure_term(r, text):
    """The first failure word in `text` that is not part of a `not_failure` phrase, or None.

    English terms sit right next to Japanese in a Japanese sentence ("ImportErrorが"), where
    `\\b` cannot see a boundary, so they are also looked for with the Japanese blanked out.
    """
    if not text:
        return None
    found = _failure(r, text)
    if found is None and not text.isascii():
        # Same offsets (one character for one), so the phrases masked in the original still
        # mask: 「OOM を避けるため」 keeps its OOM out.
        found = _failure(r, text.translate(_cjk_table()), text)
    return found


def _failure(r, text, mask_text=None):
    masks = _spans(r.not_failure.finditer(mask_text or text)) if r.not_failure else []
    for m in r.failure.finditer(text):
        if _outside(m, masks):
            return m.group(0)
    return None


class _Shifted:
    """A match found in a slice of the sentence, with the sentence's offsets."""

    def __init__(self, m, offset):
        self._m, self._offset = m, offset

    def start(self):
        return self._m.start() + self._offset

    def end(self):
        return self._m.end() + self._offset

    def span(self):
        return self.start(), self.end()

    def group(self, *args):
        return self._m.group(*args)


# Where an English clause starts afresh after a contrast: "Could partly be the augmentation,
# but the main slowdown is that ..."
_CONTRAST_OPEN = diskcache.compile(r"[,;]\s+(?:but|however,?)\s+|;\s+(?=[a-z])")


def _frames(r, lang, text):
    """The cause frames of `text`, and (English) those that open a clause after a contrast: a
    frame written for the start of a sentence starts that clause as it would a sentence."""
    found = list(r.cause_frame.finditer(text))
    if lang == "en":
        for c in _CONTRAST_OPEN.finditer(text):
            m = r.cause_frame.search(text[c.end():])
            if m is not None and not any(f.start() <= m.start() + c.end() < f.end() for f in found):
                found.append(_Shifted(m, c.end()))
        found.sort(key=lambda m: m.start())
    return found


def _names_masked_failure(r, plain, m):
    """Does the frame `m` name its failure only inside a `not_failure` phrase (a sentence that
    calls the behaviour intended, "OOM を避けるため")?"""
    inside = [f for f in r.failure.finditer(plain) if m.start() <= f.start() and f.end() <= m.end()]
    if not inside or not r.not_failure:
        return False
    masks = _spans(r.not_failure.finditer(plain))
    return not any(_outside(f, masks) for f in inside)


def _clauses(r, text):
    cuts = [0]
    for m in r.clause_break.finditer(text):
        if m.start() > 0:
            cuts.append(m.start())
    cuts.append(len(text))
    return [(cuts[k], cuts[k + 1]) for k in range(len(cuts) - 1) if cuts[k + 1] > cuts[k]]


def _clause_at(clauses, pos):
    for a, b in clauses:
        if a <= pos < b:
            return a, b
    return clauses[-1]


def _strip_lead(text):
    """Clause text without the break that starts it (", but", ";") and leading markup."""
    t = text.lstrip(" ,;:—–-")
    for w in ("but ", "however ", "however, ", "although ", "though ", "whereas ", "so ", "otherwise ", "otherwise, "):
        if t.lower().startswith(w):
            t = t[len(w):]
            break
    return t.lstrip(" ,")


class Verdict:
    # `bare`: an assertion only by the heading it is under, with no cue of its own
    __slots__ = ("kind", "reason", "bare")

    def __init__(self, kind, reason, bare=False):
        self.kind = kind
        self.reason = reason
        self.bare = bare


def classify(r, lang, masked, plain, prev_plain=None, mode=None, mode_label=None, bare_ok=True):
    """Kind of one sentence (`Verdict`) or None when it is not a claim.

    `r` is the LangRules for `lang`; `masked` has inline code masked (cue matching), `plain`
    keeps it (failure words such as `OutOfMemoryError` may sit in code); `mode` is "assertion",
    "hypothesis" or None, from the enclosing heading or the block's label.
    """
    text = masked
    if not text.strip():
        return None
    if r.mechanism_end and r.mechanism_end.search(text):
        return None  # 「〜 skip して scale を下げる仕組みです」: how it works, not what went wrong
    if prev_plain and r.mechanism_end and r.mechanism_end.search(prev_plain):
        # 「〜仕組みです。そのため系列長に比例してメモリを使います」: what the mechanism entails
        opener = r.connective.search(text)
        if opener is not None and opener.start() <= 1 and not r.cause_frame.search(text):
            return None
    # Under "Symptoms" / 「症状：」 sentences report what was seen: "loss plateaus, then val
    # accuracy stops moving" is two symptoms in a row. Only a frame that names a cause claims.
    observed = mode in ("observation", "explainer")
    # A message that explains how something works gives reasons, not diagnoses: a frame that only
    # ends a sentence with a reason (「〜ためです」) claims nothing there.
    explaining = mode == "explainer"
    ruled_out = mode == "ruled_out"
    if observed or ruled_out:
        mode = mode_label = None
    # Under "What I found" a causal sentence claims as under "Root cause", but a bare statement
    # claims only when it names a defect: "The OOM happens only on the first eval" is a symptom,
    # "the container was started without --gpus all" is a finding.
    finding = mode == "finding"
    if finding:
        mode = ASSERTION
    failure = failure_term(r, plain)
    own_failure = failure
    if not failure and prev_plain and r.anaphora.search(text) \
            and prev_plain.lstrip(" >*_").split(" ", 1)[0].lower() not in _YES_NO:
        # (not after "Could the drop be X?": "That's the only change" gives grounds for the question)
        failure = failure_term(r, prev_plain)
    if not failure and r.commit_head:
        # "fix(eval): f1 used average='micro', which is why it always matched accuracy": a fix
        # commit's subject says the effect it looks back on ("which is why", "hence") is a bug,
        # so the cause given is a diagnosis (not when it names the fix: "fix: move eval out of
        # the loop", `commit_fix`, or what the fix now does)
        ch = r.commit_head.search(text)
        if ch is not None and not (r.commit_fix and r.commit_fix.search(text[ch.end():])) \
                and r.look_back and r.look_back.search(text, ch.end()) and not _CHANGED.search(text):
            failure = "(the bug a fix commit names)"
    if not failure and mode in (ASSERTION, HYPOTHESIS) and not finding:
        # under "Findings" a connective still needs a failure word: "register() → inserts a row"
        failure = "(%s section)" % (mode_label or mode)

    cues = []
    clauses = _clauses(r, text)
    # A Japanese sentence that is only a reason (「〜ためです」, no topic は) gives the reason for
    # the sentence before it. After a ruled-out cause that is why it was ruled out (「X は関係ない
    # と思います。torch.load でも落ちるためです。」); after the agent's own change, with no failure or
    # defect of its own, the change's motive (「リトライ処理を追加しました。夜中に止まるのを避ける
    # ためです。」). Neither is a diagnosis.
    reason_for_prev = bool(
        # (a topic inside a quoted request does not count: 「〜たい、という要望が多かったためです」)
        lang == "ja" and prev_plain and r.reason_end.search(text)
        # (「理由は、〜ためです」: the reason named as the topic is still the sentence before's)
        and not r.topic.search(_REASON_TOPIC.sub("", text.rpartition("という")[2]))
        # after "not investigated yet" it says why not (「原因調査はまだです。学習を優先したためです」)
        # after a hypothesis it gives the grounds for it (「〜の可能性が高いと見ています。GPU
        # 使用率が波打っているためです。」)
        and (r.negated.search(prev_plain) or r.unknown.search(prev_plain) or r.hedge.search(prev_plain)
             # (a failure in a generic condition is no failure of this sentence: 「平均だけだと外れ値に
             # 引っ張られるせいで、体感と合わなくなるからです」)
             # (in a design note, 「〜にしています。これは過去実験で 32 以上では頭打ちだったからです」:
             # a failure seen in an experiment is the motive for the choice)
             or ((not own_failure or explaining or (r.generic_when and r.generic_when.search(text)))
                 and not _real_defect(r, text)
                 # 「issue に貼ってください。再現の手がかりになるためです。」: why to do as asked
                 and ((r.own_action and r.own_action.search(prev_plain)) or r.rationale.search(prev_plain)
                      or r.instruction.search(prev_plain) or _practice(r, prev_plain)))))
    for m in _frames(r, lang, text):
        if lang == "ja" and text.count("「", 0, m.start()) > text.count("」", 0, m.start()):
            continue  # 「原因はいいので、とりあえず戻してほしい」と依頼された: someone else's words, quoted
        # 「...からです」「...ためです」 gives a reason; it is a diagnosis only when a failure is
        # in this sentence or the one before (「落ちました。メモリ不足のためです。」), not for a
        # choice (「bf16 を使っています。指数範囲が同じだからです。」).
        if explaining and (_starts(r.reason_end, m.group(0)) or not failure):
            continue  # (「nvidia-smi 上の使用量が減らないのはこの仕組みによるもので」: how it works)
        if r.purpose_end and _starts(r.reason_end, m.group(0)) and r.purpose_end.search(text) \
                and not failure and not (r.defect and r.defect.search(text)):
            continue  # 「set_epoch() を毎 epoch 呼ぶのは、シードを変えるためです」: a purpose
        if _starts(r.reason_end, m.group(0)) and not text[:m.start()].endswith(("それ", "これ")) and (
                # 「warmup を 2000 にしたのは〜ためです」: the reason for the agent's own choice
                r.rationale.search(text[:m.start()])
                or reason_for_prev
                # 「BGR のまま返していて〜ためです」 names a defect: a diagnosis even with no failure word
                or (not r.topic.search(text[:m.start()]) and not (r.defect and r.defect.search(text))
                    and not (failure or (prev_plain and failure_term(r, prev_plain))))):
            continue
        if lang == "ja" and "理由" in m.group(0) \
                and any(x.start() < m.end() and x.end() > m.start() for x in r.rationale.finditer(text[:m.end()])):
            continue  # 「warmup を 2000 step にしている理由: 〜」: the frame names the reason for our choice
        if lang == "ja" and r.reason_end.search(text) and _our_choice_topic(r, text, plain, m.start()):
            # 「ZeRO-3 を使わなかった理由は、〜が律速になると分かっていたためです」: a frame inside
            # the reason for a choice of ours
            continue
        if r.change_topic and r.change_topic.search(text[:m.start()]) and not failure_term(r, plain[:m.start()]):
            continue  # 「ログの変更は、〜という要望によるものです」: the reason for a change of our own
        if _names_masked_failure(r, plain, m):
            continue  # "the drop you see is the scheduler doing what it was configured to do"
        if lang == "ja" and _POINTS_BACK.match(m.group(0)) and not failure \
                and not (r.defect and r.defect.search(text)) \
                and prev_plain and _NOT_THAT.search(prev_plain) \
                and not (failure_term(r, prev_plain) or (r.defect and r.defect.search(prev_plain))):
            # 「empty_cache() は未使用のキャッシュを返すだけなので、使用中のテンソルが解放されるわけ
            # ではありません。nvidia-smi の表示が減るのはそのためです」: pointing back at a
            # sentence that corrects a misreading of how a thing works, with no failure or defect
            # in either, says what that behaviour entails
            continue
        if reason_for_prev and _REASON_TOPIC.match(m.group(0)):
            continue  # 「r=16 にしています。これは〜頭打ちだったからです」: the motive for the choice before
        cues.append(("frame", m))
    if failure and not observed:
        for m in r.cause_verb.finditer(text):
            if _why_default(r, text, m) or _our_step(r, text, m) or _inside_failure(r, text, m):
                continue
            if _in_purpose(r, text, m.start()):
                continue  # "I set X=1 so that a stuck collective kills the job": what it is for
            re_ = r.reason_effect.search(text[m.start():]) if r.reason_effect else None
            if re_ is not None and re_.start() == 0 \
                    and not failure_term(r, _effect_clause(plain[m.start() + re_.end():])):
                continue  # "The reason for the 8-GPU minimum in the docs is that ...": a choice's reason
            if not _after_our_change(r, text, plain, m):
                cues.append(("verb", m))
        for m in r.connective.finditer(text):
            # 「この設定を有効にすると、…再計算します。そのため学習は遅くなります」: a connective
            # that opens the sentence looks back; after a conditional it gives the consequence
            # of a setting, not the cause of a failure that happened.
            if m.start() <= 1 and prev_plain and r.conditional.search(prev_plain):
                continue
            # 「seed を固定して…を有効にしました。これで CI では毎回同じ結果になります」: after a
            # change of ours, what it brings about
            if lang == "ja" and m.start() <= 1 and prev_plain and not own_failure \
                    and ((r.own_action and r.own_action.search(prev_plain)) or r.rationale.search(prev_plain)):
                continue
            # 「遅くなりますが、メモリに余裕ができるのでバッチを倍にできます」: a Japanese reason
            # attaches to the predicate after it; a failure in an earlier clause, across a
            # break, is not what it explains.
            # (unless the failure is the matter the sentence opens on: 「30 秒止まる件、`X=False` なので
            # epoch ごとに worker を作り直しています」 gives the reason for the matter)
            if lang == "ja" and own_failure and not failure_term(r, plain[_clause_at(clauses, m.start())[0]:]) \
                    and not _on_the_matter(r, plain, m):
                continue
            if reason_for_prev or _after_our_change(r, text, plain, m):
                continue
            # 「OOM が出たので、batch を半分にして再実行中です」: what we did about the failure, not why
            # it happened. Not when the reason holds more than the failure, a defect or a chain
            # (「padding_side が right のままで崩れていたので left に変更」「log(0) になって NaN が
            # 出ていたので eps を追加」); not what the system keeps doing (「〜作り直しています」).
            if lang == "ja" and _our_response(r, plain[m.end():]) and not failure_term(r, plain[m.end():]) \
                    and not (r.defect and r.defect.search(text[:m.start()])) \
                    and not (r.result and r.result.search(text[:m.start()])):
                continue
            # 「タイムアウトは既定で 900 秒なので、起動がずれても問題ありません」: why all is well
            # (the pack anchors it at the end: what the whole sentence comes to)
            if lang == "ja" and r.no_harm and r.no_harm.search(plain, m.end()):
                continue
            if lang == "en" and own_failure and not _effect_fails(r, plain, m) \
                    and not (r.defect and r.defect.search(text, m.end())):
                continue  # (unless the reason names a defect: "differ ... since dropout is still active")
            # "..., which is the reason the docs recommend leaving it off": "the reason" followed
            # by a clause names the effect right there, and that effect must be the failure
            if r.reason_effect and _starts(r.reason_effect, text[m.start():]) \
                    and not failure_term(r, _effect_clause(plain[m.end():])):
                continue
            cues.append(("connective", m))
    elif lang == "en" and not observed and r.defect:
        # "Validation loss tracks nowhere near training loss because dropout is still active
        # during eval": no failure word, but the reason given is a part set up wrong
        for m in r.connective.finditer(text):
            if r.defect.search(text, m.end()) and not reason_for_prev and not _after_our_change(r, text, plain, m):
                cues.append(("connective", m))
    # "X, so Y" / "therefore Y": Y must be the failure ("The run crashed, so the checkpoint at
    # step 400 is the latest" states a consequence, not a diagnosis).
    for m in r.result.finditer(text) if (r.result and failure and not observed) else ():
        if reason_for_prev or _after_our_change(r, text, plain, m):
            continue  # a reason for the sentence before, like the connectives above
        if r.purpose and (r.purpose.search(text[:m.end()])
                          # "Since the nodes get reimaged, we pin the image so ...": the clause
                          # after the last comma (a slice: the patterns are anchored)
                          or r.purpose.search(text[_clause_start(text, m.start()):m.end()])):
            continue  # "Added CUDA_LAUNCH_BLOCKING=1 so the traceback points at the kernel": a purpose
        if r.purpose_after and r.purpose_after.search(text[m.end():]) \
                and ((r.own_action and r.own_action.search(text[:m.start()])) or r.rationale.search(text[:m.start()])
                     or (lang == "en" and _CHANGED.search(text[:m.start()]))):
            # "I added a --resume_from flag, so a preempted job can pick up": what it is for
            # ("Trainer now logs grad_norm every 10 steps so it's easier to correlate spikes")
            continue
        after = plain[m.end():]
        # from the cue on, so that "so a bad export can't reach training" is read whole; to the
        # next semicolon ("...; pass drop_last=True if you would rather truncate" is advice)
        before_failure = failure_term(r, plain[:m.start()])
        end = plain.find(";", m.end()) if lang == "en" else -1
        end = len(plain) if end < 0 else end
        if failure_term(r, plain[m.start():end]) or (not after.strip(" .!,;)*_") and before_failure) or (
                # "The job died with X, so the vocab size is smaller than the tokenizer's": a
                # failure, then a defect inferred from it (the cause, read backwards)
                before_failure and r.defect and r.defect.search(text[m.end():])):
            cues.append(("result", m))
    if not failure and not observed and lang == "en" and r.result and r.defect:
        # "Labels are shifted twice ..., and the model ends up being trained to predict two tokens
        # ahead": a defect, then what it ends up doing (no failure word needed after "end up")
        for m in r.result.finditer(text):
            if m.group(0).rstrip().endswith(("end up", "ends up", "ended up")) and r.defect.search(text[:m.start()]) \
                    and not reason_for_prev and not _after_our_change(r, text, plain, m):
                cues.append(("result", m))
    # "Training is slow: the dataloader is the bottleneck": a failure stated, then a colon
    # and a clause that explains it.
    if not cues and own_failure and not observed:
        m = _explanation(r, lang, text, plain)
        if m is not None:
            cues.append(("explanation", m))
    # A negated frame in a sentence that names the cause ("原因から除外しました", "we excluded
    # the network as the cause") needs no failure word.
    for m in r.negated.finditer(text):
        if failure or r.names_cause.search(text):
            cues.append(("negated", m))
    pseudo = _spans(r.pseudo_negation.finditer(text)) if r.pseudo_negation else []
    best = None
    ruled_upto = None  # end of the clause that ruled a cause out, if one did
    # 「DataLoader は原因ではありません。全部メモリに載せても同じステップでハングしました。」: the
    # sentence after a ruled-out cause that reports the control is its evidence, not a claim
    # (a cause frame in it still claims: "Not the loader. The real cause is the optimizer step.")
    after_ruled_out = bool(prev_plain and r.control and r.negated.search(prev_plain) and r.control.search(text))
    for tier, m in sorted(cues, key=lambda c: c[1].start()):
        if after_ruled_out and tier not in ("frame", "negated"):
            continue  # (the control may rule the cause out in words of its own: "so X can be ruled out")
        if ruled_upto is not None and m.start() >= ruled_upto and _control(r, text, clauses, ruled_upto, m):
            continue
        v = _judge(r, lang, text, clauses, pseudo, tier, m, failure, mode, mode_label, plain)
        if v is not None and v.kind == NEGATED and ruled_upto is None:
            ruled_upto = _clause_at(clauses, m.start())[1]
        if v is not None and (best is None or _RANK[v.kind] > _RANK[best.kind]):
            best = v
        if best is not None and best.kind == ASSERTION:
            break
    # (under "Findings" too: "The optimizer dominates. AdamW is falling back to the for-loop"
    # after a table of step times, past the first paragraph the heading covers)
    if best is None and not cues and (mode is None or finding) and not observed and prev_plain and r.defect \
            and not (own_failure and _negation_outside_defect(r, text)) \
            and not (r.additive and r.additive.search(text)) \
            and r.defect.search(text) and _symptom(r, lang, prev_plain):
        # "The second node hangs at init. NCCL_SOCKET_IFNAME points to docker0 on that host."
        # A failure stated, then a sentence that names something set up wrong: the second
        # explains the first.
        if not (r.own_action and r.own_action.search(text)) and not r.rationale.search(text):
            v = _by_mode(r, lang, text, ASSERTION, "the failure before it")
            if v is not None and v.kind == ASSERTION:
                best = Verdict(ASSERTION, "names a defect (%r) right after a failure (%r)" % (
                    r.defect.search(text).group(0).strip()[-40:], failure_term(r, prev_plain)))
    if best is None and not cues and (mode is None or finding) and not observed and lang == "en" \
            and prev_plain and r.result and _symptom(r, lang, prev_plain) and not r.rationale.search(text) \
            and not (r.own_action and r.own_action.search(text)) and not reason_for_prev \
            and (not _CHANGED.search(text) or _UPSTREAM.search(text) or _MOVED_TO.search(prev_plain)) \
            and not _CHANGED.search(prev_plain) \
            and not r.rationale.search(prev_plain) \
            and not r.connective.search(prev_plain) and not r.result.search(prev_plain):
        # "PPO diverges after ~50 updates. The reference model and the policy share the same
        # parameters, so the KL penalty is identically zero": a failure stated, then a chain of
        # cause and effect with no failure word of its own explains it. Not after a failure that
        # is already explained or answered ("..., which is why we checkpoint every 15 minutes"),
        # nor in a list of changes ("The health check no longer loads the model, so ...");
        # _symptom already asks that the failure before it is stated, not hedged or our own act.
        # (or a relative clause that says what the named thing does: "EP=16 now spans two nodes,
        # which sends half of every all-to-all over the inter-node link")
        # (under "What I found" too: "- The OOM happens in the optimizer step. The flag disables
        # ZeRO stage 1, so every rank holds the full optimizer state.")
        chain = list(r.result.finditer(text)) + [
            m for m in r.cause_verb.finditer(text) if m.group(0).lstrip().startswith(",")]
        m = next((m for m in sorted(chain, key=lambda m: m.start()) if m.start() > 0 and text[:m.start()].strip()
                  # (the effect names no failure of its own: "isn't saved, so the LR jumps back")
                  and (not own_failure or not failure_term(r, plain[m.start():]))
                  and not _after_our_change(r, text, plain, m)
                  and not (r.purpose and r.purpose.search(text[_clause_start(text, m.start()):m.end()]))), None)
        if m is not None:
            v = _by_mode(r, lang, text, ASSERTION, "the failure before it")
            if v is not None and v.kind == ASSERTION:
                best = Verdict(ASSERTION, "explains the failure before it (%r) with %r" % (
                    failure_term(r, prev_plain), m.group(0).strip()))
    if best is None and not cues and mode is None and not observed and own_failure and r.defect \
            and (any(j in text for j in _SIDE_BY_SIDE)
                 # "the eval numbers are wrong, the eval job was reading cached predictions": a
                 # comma splice, the way chat joins two statements
                 or (lang == "en" and _SPLICE.search(text))) and _symptom(r, lang, plain) and not r.rationale.search(text) \
            and not (r.generic_when and r.generic_when.search(text)):
        # "The collate fn drops the last sample of each batch, and accuracy is computed over 31
        # items instead of 32": a failure and a defect side by side, each stated as fact
        d = r.defect.search(text)
        sp = _SPLICE.search(text) if lang == "en" and not any(j in text for j in _SIDE_BY_SIDE) else None
        if sp is not None:
            # a splice: the defect is the statement after the comma, or the one before it when
            # the failure is after ("X is stepped per batch instead of per epoch, LR hits zero")
            d = r.defect.search(text, sp.end())
            if d is None and failure_term(r, text[sp.end():]) and not failure_term(r, text[:sp.start()]):
                d = r.defect.search(text[:sp.start()])
        negation_ok = False
        head, _, tail = text.partition(", and ")
        if d is None and lang == "en" and tail and r.subject_verb and r.subject_verb.search(head) \
                and not failure_term(r, head) and failure_term(r, tail) and r.present_state.search(tail):
            # "The sampler only yields indices up to len - 2, and the last image is never
            # scored": what a part of the system does, and the failure that comes of it (the
            # failure may be said with a negation)
            d, negation_ok = r.subject_verb.search(head), not r.any_negation.search(head)
        # ("shuffles the inputs but not the labels" is one side done, the other not: no negation)
        # ("averages per batch not per sample" is one way done for another: no negation either)
        # (after a splice's defect, what it led to may be said with a negation: "..., the harness
        # ran with the chat template off so the model never saw the system prompt")
        upto = d.end() if d is not None and sp is not None and d.start() > sp.start() else len(text)
        if d is not None and (negation_ok or not r.any_negation.search(
                _INSTEAD.sub(" ", text[:upto].replace(" but not ", " but ")))):
            best = Verdict(ASSERTION, "names a defect (%r) beside a failure (%r)" % (d.group(0).strip()[-40:], own_failure))
    if best is None and not cues and mode is None and not observed and lang == "ja" and own_failure and r.defect:
        # 「OOM の件、eval の batch_size が train の 4 倍になっていました」: the failure named as
        # the matter (「〜の件、」「〜件：」), then a part set up wrong: what was found about it
        head, sep, tail = _partition(_MATTER, text)
        d = r.defect.search(tail) if sep and failure_term(r, head) else None
        if d is not None and not _negated_outside(r, tail, d) and not r.rationale.search(tail) \
                and not (r.own_action and r.own_action.search(tail)):
            best = Verdict(ASSERTION, "names a defect (%r) about a failure (%r)" % (d.group(0).strip()[-40:], own_failure))
    if best is None and mode is None and not observed and r.found_opener and r.defect \
            and r.found_opener.search(text) and r.defect.search(text) \
            and not _negated_outside(r, text, r.defect.search(text)) and not r.rationale.search(text):
        # "Turns out the eval script was reading checkpoint-500 instead of checkpoint-5000, so the
        # BLEU is from a barely trained model.": a finding announced, and what it found is a
        # part set up wrong
        best = Verdict(ASSERTION, "announces a finding (%r) that names a defect (%r)" % (
            r.found_opener.search(text).group(0).strip(), r.defect.search(text).group(0).strip()[-40:]))
    if best is None and not cues and mode == ASSERTION and bare_ok and not after_ruled_out:
        # "Root cause: the LR is too high. I lowered it to 1e-4." The fix that follows a
        # diagnosis is the agent's own action, not a second claim. The sentence that holds the
        # label itself ("Root cause: we set the LR too high") still claims.
        if not (r.own_action and r.own_action.search(text) and (prev_plain is not None or not own_failure)) \
                and not (finding and not (r.defect and r.defect.search(text))):
            best = _by_mode(r, lang, text, mode, mode_label)
    elif best is None and not cues and mode == HYPOTHESIS and bare_ok == "label":
        # "Hypothesis: the loader leaks": reported, so the audit shows what was proposed.
        if len(text.split()) >= 3 or (lang != "en" and len(text) >= 8):
            best = Verdict(HYPOTHESIS, "labelled %r" % mode_label)
    if ruled_out and best is not None and best.kind == ASSERTION:
        best = Verdict(NEGATED, "under a ruled-out heading: %s" % best.reason)
    return best


def _on_the_matter(r, plain, m):
    """Is the cue `m` in the tail of 「<failure>の件、<tail>」, the failure named as the matter?"""
    head, sep, _ = _partition(_MATTER, plain)
    return bool(sep) and m.start() >= len(head) + len(sep) and bool(failure_term(r, head))


def _real_defect(r, text):
    """A defect in `text` that is not only the outcome of a generic condition: in 「全 rank から
    送ると run が重複してしまうためです」 the duplication is what would happen, not what did."""
    d = r.defect.search(text) if r.defect else None
    if d is None:
        return False
    g = r.generic_when.search(text) if r.generic_when else None
    return not (g is not None and d.end() > g.end())


def _practice(r, text):
    """「推論サーバは 2 台構成で運用しています」: a sentence that ends on a polite verb of doing
    (`practice_end`) with no failure or defect in it states how we do things, not what broke."""
    return bool(r.practice_end and r.practice_end.search(text)) and not failure_term(r, text) \
        and not (r.defect and r.defect.search(text)) and stated(r, text)


def _names_error(r, text, plain, m):
    """Is what stands right before the cue `m` a code span that holds only a failure, as the
    rules' lookbehinds see 「OOM により」 in prose? (The masked text hides what it says.)"""
    before = text[:m.start()].rstrip()
    if not before.endswith("`"):
        return False
    k = before.rfind("`", 0, len(before) - 1)
    inside = plain[k + 1:len(before) - 1] if k >= 0 else ""
    return bool(inside.strip("`")) and bool(failure_term(r, inside)) and not (r.defect and r.defect.search(inside))


def _negated_outside(r, text, d):
    """A negation in `text` outside the defect `d` names (「入っていなかった」 is the defect itself).
    A relative clause after it says more about what was found ("..., which doesn't support our
    mask"), not that it was not found."""
    after = text[d.end():]
    which = after.find(", which ")
    if which >= 0:
        after = after[:which]
    return r.any_negation.search(text[:d.start()] + " " + after) is not None


def _after_our_change(r, text, plain, m):
    """「torch.compile を外したのは、コンパイルに 6 分かかって CI のタイムアウトを圧迫するためです」:
    a cue after a change of our own as the topic (`change_topic`) gives the change's motive."""
    if not r.change_topic:
        return False
    ct = r.change_topic.search(text[:m.start()])
    return ct is not None and not failure_term(r, plain[:ct.end()])


# Where the effect named after "the reason" ends: its verb, or a comma
_EFFECT_END = diskcache.compile(r"\s(?:is|was|'s)\s+(?:that|because|simply|just|the|a|an|its|our)\b|,")


def _effect_clause(text):
    """The effect named after "the reason": up to its verb ("the reason this section exists in
    the README is that ... NCCL ...": the effect is "this section exists in the README").
    (Compiled through the cache: a Stop whose patterns all come from it imports no `re`.)"""
    m = _EFFECT_END.search(text)
    return text[: m.start()] if m else text


def _effect_fails(r, plain, m):
    """For a connective whose cause follows it ("X because Y"), is the failure on the effect's
    side? "The job OOMs because the eval loop keeps the graph" is a diagnosis; "I renamed the
    flag because the old name caused errors" gives a reason for something that did not fail.
    A connective that opens the sentence ("Because Y, X") has its effect after the comma."""
    if not r.forward_connective.search(m.group(0).strip()):
        return True
    if m.start() > 1:
        effect = plain[:m.start()]
        # "This is due to a known bug ...": the effect is the failure the sentence points back to
        return bool(failure_term(r, effect)) or bool(r.anaphora.search(effect) and len(effect.split()) <= 4)
    comma = plain.find(",", m.end())
    if comma < 0:
        return True
    # "Because every rank must see the same count, it pads with repeats, unless drop_last is
    # set, in which case it drops the tail": a failure only under a condition is not the effect
    effect = plain[comma + 1:]
    cut = r.unless.search(effect)
    return bool(failure_term(r, effect[:cut.start()] if cut else effect))


def _control(r, text, clauses, ruled_upto, m):
    """After a clause that rules a cause out, is the clause of cue `m` the control that ruled it
    out? "The NaNs are not caused by AMP - the pure fp32 run produces them at the same step."
    Not when a contrast names the real cause instead ("not X; it's the optimizer step")."""
    if not r.control:
        return False
    a, b = _clause_at(clauses, m.start())
    if r.contrast and r.contrast.search(text[ruled_upto:b]):
        return False
    return r.control.search(text[a:b]) is not None


def _starts(matcher, text):
    """`re.match`: a match of `matcher` that starts where `text` does."""
    m = matcher.search(text)
    return m is not None and m.start() == 0


def _within(matcher, text, pos, endpos):
    """`pattern.search(text, pos, endpos)` for a rule list: a match between pos and endpos."""
    m = matcher.search(text, pos)
    return m is not None and m.end() <= endpos


def _negation_outside_defect(r, text):
    """A negation in `text` other than inside its defect ("The sampler state isn't restored"
    negates as the defect itself; "The loss doesn't move" states another symptom)."""
    d = r.defect.search(text)
    return any(not (d and d.start() <= n.start() < d.end()) for n in r.any_negation.finditer(text))


def _symptom(r, lang, text):
    """Does `text` state a failure plainly (not hedged, asked, negated, planned or done by us)?"""
    return bool(failure_term(r, text)) and stated(r, text)


def stated(r, text):
    """Is `text` said as plain fact: not hedged, asked, conditional, planned, an honest "not known
    yet", a cause ruled out, or the agent's own doing or motive?"""
    return not any(lst and lst.search(text) for lst in (
        r.hedge, r.question, r.conditional, r.instruction, r.unknown, r.negated, r.own_action, r.rationale))


# "those sequences", "these batches": a clause that opens on something the clause before named
_ANAPHORIC_START = diskcache.compile(r"\s*(?:[Tt]hose|[Tt]hese)\s+[a-z]")
# "Loss sat at 10.37 (≈ ln 32000) for the whole run": a parenthesis is not part of the head
_PAREN = diskcache.compile(r"\([^()]*\)")
_CODE_SPAN = diskcache.compile(r"`[^`]+`")
_NUMBER = diskcache.compile(r"[~≈<>]?[\d.,:%x×/+-]*\d[\d.,:%x×/+-]*")
_LOCATED = diskcache.compile(r"\w\s+(?:on|in|at|during|after|since|under)\s+(?:the|a|an|our|every|each|all|its|this|that)\s")
_UNIT = diskcache.compile(r"[A-Za-zµ/%]{1,6}[.,]?")
# "The new version no longer enables the static KV cache by default, so ...": what changed is
# someone else's release, not a change of ours in a changelog
_UPSTREAM = diskcache.compile(r"^\W*(?:the\s+)?(?:new|latest|updated|upgraded)\s+(?:version|release|driver|image|build|kernel|wheel|container|runtime|library|package)\b", diskcache.IGNORECASE)
_CHORE = diskcache.compile(r"\b(?:docs?|typos?|readme|lint|style|format(?:ting)?|comments?|changelog|ci|tests?|spelling|wording)\b", diskcache.IGNORECASE)
_SPLICE = diskcache.compile(r",\s+(?=(?:the|our|its|their|this|every|each)\s|(?-i:[A-Z]{2,}\w*)\s+\w+s\b)", diskcache.IGNORECASE)
_SO = diskcache.compile(r"\bso\b", diskcache.IGNORECASE)  # "so" and "so that" alike


def _in_purpose(r, text, pos):
    """Is `pos` inside the purpose of a change of ours ("I set X=1 so that ..." / "Added X so ...")?"""
    if not r.purpose:
        return False
    for so in _SO.finditer(text, 0, pos):
        if r.purpose.search(text[_clause_start(text, so.start()):so.end()]):
            return True
    return False


def _our_response(r, effect):
    """Does `effect` end on what we did or are doing (「〜にして再実行中です」「〜に下げました」), not on
    what the system keeps doing (「〜作り直しています」)?"""
    oa = r.own_action.search(effect) if r.own_action else None
    return oa is not None and not oa.group(0).rstrip("。. ").endswith("ています")


def _clause_start(text, end):
    """Where the clause that `end` is in starts: after the last comma or semicolon before it."""
    return max(text.rfind(",", 0, end), text.rfind(";", 0, end)) + 1


# "now", "no longer": what a change of ours made so, in a changelog or a summary of the work
_CHANGED = diskcache.compile(r"\b(?:now|no\s+longer|any\s?more)\b", diskcache.IGNORECASE)
# "Step time doubled on the new cluster. EP=16 now spans two nodes, ...": after a failure seen
# since a move, "now" says what the move changed, not what a change of ours now does
_MOVED_TO = diskcache.compile(r"\b(?:on|to|with|since|after)\s+(?:the|our)\s+new\b|\bsince\s+(?:the|we|our)\b|\bafter\s+(?:the\s+)?(?:upgrad|migrat|mov|switch)\w*", diskcache.IGNORECASE)
# What joins a failure and a defect stated side by side in one sentence
# "per batch not per sample": the "not" of one way done instead of another
_INSTEAD = diskcache.compile(r",?\s+(?:and\s+)?not\s+(?=(?:per|by|over|across|along|from|into|onto)\s)")
_ARTICLES = frozenset(("the", "a", "an"))
_SIDE_BY_SIDE = (", and ", "; ", " — ", " – ")


def _without_numbers(words):
    """The words of a head less its measurements: each number, and the unit after it ("180 ms")."""
    out, after_number = [], False
    for w in words:
        if _NUMBER.fullmatch(w):
            after_number = True
            continue
        if after_number and _UNIT.fullmatch(w):
            after_number = False
            continue
        after_number = False
        out.append(w)
    return out


# What a Japanese report of a fix says: the act names a failure it explains
_FIXED = ("修正", "直し", "直り", "解消", "対処", "対策", "fix")
# Output quoted in double quotes, inside a sentence: "the log says \"... may be incorrect\""
_QUOTES = diskcache.compile(r'"[^"\n]{4,}"|“[^”\n]{4,}”')
# A tail that is only a quoted log line, maybe with where it was seen: ": `loss: nan` at step 0."
_LOGGED_VALUES = diskcache.compile(r"^(?:\s*[\w/.\[\]-]+\s*[=:]?\s*(?:[-+]?[\d.,]+(?:e[-+]?\d+)?|nan|inf|NaN|Inf)\s*[|,]?)+\s*$")
_QUOTE_ONLY = diskcache.compile(r"\s*`([^`]+)`\s*(?:(?:right\s+|just\s+|shortly\s+)?(?:at|on|in|from|after|since|for)\s+[\w./:-]+(?:\s+[\w./:-]+){0,3}|(?:is|was)\s+the\s+first\s+(?:bad|failing|broken|bogus)\s+(?:line|step|entry|record))?\s*(?:\(E\d+\))?\s*(?:[.!]?\s*$|[—–]\s)")
# 「〜ってことは」「〜ということは」: what follows is inferred from what came before
_INFERENCE = diskcache.compile(r"(?:って|という)ことは|からすると|から考えると")
# 「〜のはそのためです」「〜のはそれです」: a frame that names as the cause what came before
_POINTS_BACK = diskcache.compile(r"のは(?:これ|それ|そのせい|このせい|そういうこと|このため|そのため)")
# 「〜が解放されるわけではありません」: it is not that ... (a misreading corrected)
_NOT_THAT = diskcache.compile(r"わけ(?:では|じゃ)(?:ない|ありません|なかった)")
# 「理由は、」「その理由として、」: a sentence that opens by naming itself the reason
# (「これは〜からです」「それは〜ためです」 too: the topic is the sentence before)
_REASON_TOPIC = diskcache.compile(r"^\s*(?:(?:その|この)?理由(?:は|として(?:は)?)|(?:これ|それ)は)[、,]?")
# 「〜の件、」「〜件：」: the matter a Japanese sentence goes on to explain
_MATTER = diskcache.compile(r"件\s*[、：:—–]\s*")


def _partition(pattern, text):
    m = pattern.search(text)
    return (text[:m.start()], m.group(0), text[m.end():]) if m else (text, "", "")


# A Japanese sentence that ends in the past: 「〜になっていたのです」「〜でした」
_PAST_END = diskcache.compile(r"(?:た|でした|ました)(?:のです|んです|のでした)?[。.!！]?\s*$")


def _explanation(r, lang, text, plain):
    """The `explanation` separator of "<failure stated>: <clause>", or None."""
    if not r.explanation or not r.predicate:
        return None
    last = 0
    for m in r.explanation.finditer(text):
        # the head starts after the separator before it: "Status on the job: it was stalling at the
        # first all-gather — mismatched `sharding_strategy` between the node groups"
        head, tail = plain[last:m.start()], text[m.end():]
        last = m.end()
        sep = m.group(0).strip()  # ":", ";", a dash, 「のは」...
        # "fix loss plateau: grad accumulation divided the loss twice": a commit subject names
        # the failure it fixes, and what follows the colon is why it happened, unless it is the
        # fix itself ("fix OOM: move eval out of the loop", `commit_fix`)
        commit = r.commit_head.search(head) if r.commit_head else None
        if commit is not None:
            if r.commit_fix and r.commit_fix.search(tail):
                continue
            head = head[commit.end():]
        if lang == "en":
            # "Loss sat at 10.37 (≈ ln 32000) for the whole run". Before a colon or dash a number
            # is not a word of the head's length ("p99 went from 180 ms to 410 ms after the
            # upgrade — ..."); before a semicolon a long measured head is followed by more of the
            # same ("Loss goes from 2.31 to nan between step 880 and step 881; the repro is ...").
            # ("fyi the eval numbers ... were wrong all week — ...": a chat opener is no word of it)
            opener = r.chat_opener.search(head) if r.chat_opener else None
            # (a quoted message is one word: "Triton was rejecting requests with `batch-size must
            # be <= 8` for some clients — ...")
            words = _CODE_SPAN.sub("`x`", _PAREN.sub("", head[opener.end():] if opener else head)).split()
            if sep != ";":
                words = _without_numbers(words)
            # "`CUDA error: no kernel image is available ...` — the wheel doesn't ship sm_90
            # kernels": the error itself, quoted, states the failure
            quoted = len(head.strip()) > 2 and head.strip()[0] == head.strip()[-1] == "`" and "`" not in head.strip()[1:-1]
            # (a longer head when what follows names a part set up wrong: "The LR hits `eta_min`
            # after the first epoch and then climbs back up: `T_max` was set to ... instead of ...")
            # (one word only as a failure named before a part set up wrong: "Leakage: the target
            # encoder was fit on the full dataframe before the split")
            defect_after = bool(r.defect and r.defect.search(tail))
            lone = len(words) == 1 and sep != ";" and r.failure_noun.search(head) and defect_after
            # (before a colon or dash articles are no words of its length: "The 502s from the
            # inference service are the gunicorn worker timeout: ..." names the failure and what
            # it is in nine)
            length = len([w for w in words if w.lower() not in _ARTICLES]) if sep != ";" else len(words)
            if not quoted and not lone and not (2 <= len(words) and length <= (14 if defect_after else 10)):
                continue
            if r.list_intro.search(head):
                continue
            # "Eval crashed", "It hangs", "The loss spikes": a verb. "Missing scripts", "Known
            # issues": a label over a list.
            verbal = quoted or commit is not None or r.predicate.search(head) or r.past_end.search(head) or (
                r.verb_end.search(head) and r.subject.search(head)) or r.subject_verb.search(head) or (
                # "CI timeouts on the Windows runners: the suite spawns ...": a failure named, no verb
                sep != ";" and (r.failure_noun.search(head) or (
                    # only before a long dash: "**Missing scripts**: ..." and "**Duplicate types** - ..." are labels;
                    # a label says no where: "Slow first request on the endpoint: ..." is a failure seen
                    # ("Slow first epoch, fast afterwards: ..." sets one part against another: no label)
                    (sep in ("—", "–", "--") or _LOCATED.search(head) or "," in head)
                    and r.failure_adjective.search(head)))
                and not r.label_head.search(head))
        else:
            if not 3 <= len(head.strip()) <= 40:
                continue
            # (「resume 後の loss スパイク：scheduler の state_dict が復元されておらず、〜」: a
            # failure named with no verb, before a colon, then a part set up wrong)
            verbal = r.predicate.search(head) or (
                sep in (":", "：") and r.defect and r.defect.search(tail))
            # 「loss が nan になるのは fp16 のオーバーフローです」explains; 「失敗したのは test_x の 1 件
            # のみ」only says which one failed: the failure needs its own subject (が).
            if m.group(0).startswith("のは") and "が" not in head:
                continue
            # 「loss が NaN になったのは 3 回の実行中 2 回で」 says how often, not why
            if m.group(0).startswith("のは") and r.observed_tail and r.observed_tail.search(tail):
                continue
        if not verbal or not (failure_term(r, head) or (
                # "fix eval f1: the metric ... inflated the score": a fix commit's subject says
                # what broke; the failure may be in why it broke (not for docs and the like)
                commit is not None and failure_term(r, tail) and not _CHORE.search(head))):
            continue
        if r.unknown.search(head) or r.hedge.search(head):
            # "I haven't looked into the two failures; both are queued for tomorrow"; "The
            # slowdown might be CPU-side: ..." proposes what the explanation then supports
            continue
        if r.own_action and (r.own_action.search(head) or r.own_action.search(plain[:m.start()])):
            # "I moved X out of the loop; one fold takes 3 min instead of 48": the fix and its
            # effect ("Testing: killed a job and resumed; the curves overlap": also across a label)
            continue
        if lang == "en" and (r.generic_when.search(head) or r.observed_head.search(head)):
            # "The trainer resumes when a node fails: slurm requeues it" describes a mechanism;
            # "Reproduced the slowdown: p95 is 480 ms" reports what was measured
            continue
        if len(tail.split()) < (3 if lang == "en" else 1):
            continue
        if r.unknown.search(tail):
            continue  # 「GPU 使用率が 40% しか出ない件、I/O なのか augmentation なのかはまだ分からない」
        if lang == "en" and r.no_harm and r.no_harm.search(tail):
            continue  # "This only silences the warning; the tokenizer itself is unaffected"
        # (read unmasked: what a quoted log line says decides whether it only shows the failure)
        if r.located_tail and r.located_tail.search(plain[m.end():]):
            continue  # "The OOM happens in generate(): `OutOfMemoryError ...` is raised from ...": where, not why
        shown = _QUOTE_ONLY.match(plain[m.end():])
        if shown is not None and failure_term(r, shown.group(1)) and (
                all(f.group(0).lower() in head.lower() for f in r.failure.finditer(shown.group(1)))
                # (a line of logged values only: `step 2300 loss=nan grad_norm=inf`)
                or _LOGGED_VALUES.match(shown.group(1))
                # ("The job failed overnight — `exit code 137` on node gpu-17 — it was restarted":
                # a bare status shows that it failed, not why)
                or (r.generic_quote and r.generic_quote.search(shown.group(1).strip()))):
            # "Eval loss is `nan` from the first eval: `eval/loss: nan ...` at step 0": the log
            # line shows the same failure again (not "killed by the kernel: `Killed: out of
            # memory`", whose quote names what killed it)
            continue
        # The explanation is a clause, or (after a colon or dash) a noun phrase that names the
        # cause: "— a memory leak in the Redis client pool", "— `pin_memory=False` in the config".
        if not r.predicate.search(tail) and not (
                lang == "en" and sep != ";" and r.nominal_cause.search(tail)):
            continue
        # "Training diverged; the loss hit NaN at step 200" restates the symptom: after a
        # semicolon only a clause without failure words explains it.
        if sep == ";" and ((failure_term(r, plain[m.end():]) and not (r.defect and r.defect.search(tail))
                                           # "...lining up with the shards that hold the long
                                           # documents; those sequences blow up the logits": a
                                           # clause about what the head just named explains it
                                           and not _ANAPHORIC_START.match(tail))
                                          # "...; nothing is printed and all GPUs report 100%": more symptoms
                                          or r.observed_tail.search(tail)
                                          # "Loss still diverges after the patch; the curve is
                                          # indistinguishable from yesterday's": the same symptom again
                                          or (r.control and r.control.search(head) and r.control.search(tail))
                                          or (r.negation_before and r.negation_before.search(head))):
            continue
        # "Not a memory leak: RSS is flat", "This isn't an NCCL issue — one node hangs too": what
        # follows a ruled-out cause is the reason for ruling it out, not a diagnosis.
        if r.negated.search(head) or r.negated.search(plain[:m.start()]) or r.negated.search(text[:m.end()]):
            # (also across an earlier separator: "Not a memory leak — allocated memory stays
            # flat; only the reserved pool grows" gives two reasons for ruling it out)
            # (and with the separator itself: "... and it's not that: both hosts run the same one")
            continue
        return m
    return None


def _judge(r, lang, text, clauses, pseudo, tier, m, failure, mode, mode_label, plain=None):
    pos = m.end() if tier == "explanation" else m.start()
    a, b = _clause_at(clauses, min(pos, len(text) - 1))
    if tier == "explanation":
        a = max(a, m.end())
    clause = text[a:b]
    body = _strip_lead(clause)
    cue = m.group(0).strip()
    first = a == clauses[0][0]

    asked = body
    if tier == "negated":
        # "Checked whether the checkpoint was corrupted: ..., so the resume path isn't damaging the
        # weights": the question asked before the colon, then answered by the rule-out
        cut = max(text.rfind(":", a, m.start()), text.rfind("—", a, m.start()))
        if m.group(0)[:1] in ",;":
            cut = m.start()  # "I checked whether autocast was responsible ..., so precision isn't it."
        if cut >= 0:
            asked = text[cut + 1:b]
    if r.question.search(asked.rstrip()):
        return Verdict(HYPOTHESIS, "question proposing a cause (%r)" % cue)
    cond = r.conditional.search(body) or (first and r.conditional.search(text[: clauses[0][1]]))
    if cond and lang == "ja" and (cond.group(0).startswith("と、") or cond.group(0).endswith("と")) \
            and _PAST_END.search(text):
        cond = None  # 「8 GPU にすると all-reduce の帯域が律速になっていたのです」: what happened, not a supposition
    if cond and lang == "ja" and mode == ASSERTION and not (r.supposition and r.supposition.search(text)):
        # under 「## 原因」, or right after 「原因判明しました。」, 「ガードがないと〜再実行されて」
        # is how the found cause works, not a supposition (「もし」「仮に」 still suppose)
        cond = None
    if cond and not (lang == "ja" and cond.group(0).endswith(("と", "たら")) and _in_topic(text, cond, m)):
        return Verdict(HYPOTHESIS, "conditional (%r)" % cue)
    if r.unknown.search(clause) and tier != "negated":
        # (a cause ruled out is still ruled out when the real one is not known yet: "Seeds aren't
        # why the runs differ: ..., so it comes from somewhere we haven't found yet")
        return None
    u0 = r.unknown.search(text[: clauses[0][1]]) if tier not in ("negated", "frame") else None
    if u0 is not None and u0.start() <= 12 and a > clauses[0][0] \
            and not (r.contrast and _within(r.contrast, text, u0.end(), m.start())):
        # "We don't know yet why the kernel dies; there's no traceback, and dmesg is blocked on
        # the managed hub": what follows an opening "not known yet" says why it is not known
        return None
    if tier != "frame" and r.instruction.search(body):
        return None
    if tier == "connective" and _rationale(r, lang, text, clause, a, m):
        return None
    if tier == "connective" and lang == "ja" and any(
            x.start() < m.start() and m.end() < x.end() < len(text.rstrip("。．. ")) for x in r.rationale.finditer(text)):
        # 「ノードメンテなので 15 時以降ジョブ止まります」: the cue inside a notice's frame (one
        # that ends before the sentence does: not 「wheel を使っているために出ています」)
        return None
    if lang == "ja" and tier in ("connective", "result"):
        # 「なぜ warmup が必要なのかというと、〜不安定で、そのため〜」: a sentence that opens as the
        # reason for a practice or a choice of ours explains that, whatever failure it goes through
        ro = r.rationale.search(text[:m.start()])
        if ro is not None and ro.start() == 0 and not failure_term(r, ro.group(0)):
            return None  # (not 「seed を固定しても再現しないのは、」: a failure as the topic)
    if lang == "en" and tier in ("result", "connective"):
        # "DistributedSampler pads the dataset so every rank gets the same number of samples,
        # which is why ...": a sentence that opens as how a part is built to work explains what
        # that entails
        # (only a rationale that opens the sentence with its own purpose "so": not "The reason
        # we X rather than Y is ...", which the connective checks read)
        ro = r.rationale.search(text)
        if ro is not None and ro.start() <= 2 and " so " in ro.group(0):
            return None
    if tier == "connective" and lang == "ja" and plain and m.group(0).startswith("によ") and _names_error(r, text, plain, m):
        return None  # 「`NCCL timeout` により落ちました」: the error's name says how it failed, not why
    # (the failure words read in the plain text, same offsets: 「`loss nan` になって止まりました」)
    if tier == "result" and lang == "ja" and r.event_chain and r.event_chain.search(text[a:m.end()]) \
            and failure_term(r, (plain or text)[a:m.start()]) and failure_term(r, (plain or text)[m.end():b]) \
            and not (r.defect and r.defect.search(text)) \
            and not r.connective.search(text[:m.start()]) and not (r.result and r.result.search(text[:a])) \
            and not r.chain_cause.search(text[a:m.start()]) and not r.anaphora.search(text) \
            and not r.chain_breaker.search(text[:m.start()]):
        return None  # 「step 2300 で CUDA OOM が発生して停止」: one failure, then the next, as seen
    act = r.own_action.search(text[m.end():]) if (tier == "connective" and lang == "ja" and r.own_action) else None
    if act is not None and not any(w in text[m.end():] for w in _FIXED) \
            and not (r.defect and r.defect.search(text[:m.start()])):
        # 「ジョブが落ちてたので、同じ設定で再投入しときました」: why we acted, not why it failed
        # (not 「〜ていたため発散していた問題を修正」: a fix names what it fixed)
        return None
    if tier == "result" and lang == "ja" and ((r.own_action and r.own_action.search(text[m.end():]))
                                               or (not failure_term(r, text[m.end():]) and _rationale(r, lang, text, clause, a, m))):
        return None  # 「ログが多すぎて読みにくいため、レベルを上げました」: the reason for the agent's own act
    if tier == "explanation" and (r.evidence.search(body) or (
            # 「IFNAME が docker0 を指していました」: a part of the system with が did it, not the agent
            r.rationale.search(body) and not (lang == "ja" and "が" in body)
            # "— the test split overlaps with train now that the dedup step was removed": a
            # defect named first, the change behind it after
            and not (r.defect and r.defect.search(body)))):
        return None
    # searched from the clause to the end of the text so that a hedge's lookahead sees past the
    # clause ("lowercasing hypotheses but not references" is the MT sense), but only a hedge
    # inside the clause counts. A hedge the clause alone holds is then taken where the whole
    # sentence puts it, with the sentence's offsets: its lookbehind sees what comes before the
    # clause ("lowercases the references but not the hypotheses": the clause after "but" hid it).
    # (a hedge inside quotation marks is someone else's words: the log line "outputs may be
    # incorrect" quoted as evidence does not hedge the claim around it)
    hedged = _QUOTES.sub(lambda q: q.group(0)[0] + "x" * (len(q.group(0)) - 2) + q.group(0)[-1], text) \
        if ('"' in text or "“" in text) else text
    h = r.hedge.search(hedged[a:])
    if h is not None and a:
        h = r.hedge.search(hedged, a)
    # 「残りは I/O 周りですが、まだ未確認です」: after 「が、」 only the hedge itself, which takes
    # back what came before it
    tail_hedge = h is not None and lang == "ja" and _hedge_alone_after_stop(r, text, m.end(), h)
    if h is not None and h.start() >= b and not tail_hedge and not (
            # Japanese ends a sentence with its main predicate: 「〜非決定的なので、同じ結果になる
            # とは限りません」 hedges the reason before it too (not across 「が、」「けど」, nor
            # past a condition: 「〜が原因なので、切り替えれば解消するはずです」 hedges the fix)
            lang == "ja" and not _within(r.hedge_stop, text, m.end(), h.start())
            and not _condition_between(r, text, m.end(), h.start())):
        h = None
    if h is not None and lang == "ja" and h.start() > m.end() and not tail_hedge and (
            _condition_between(r, text, m.end(), h.start())
            or _within(r.hedge_stop, text, m.end(), h.start())):
        h = None  # (the same within one clause: the hedge is the condition's, or the fix's, prediction)
    if h is None:
        # A hedge that opens the sentence ("I think", "Probably,") covers all of it.
        h0 = r.hedge.search(hedged[: clauses[0][1]])
        if h0 is not None and h0.start() <= 12 and not _within(r.hedge_stop, text, h0.end(), max(pos, h0.end())):
            # "I'm not sure about the tokenizer part, but the main issue is clear: ...": a
            # contrast ends the hedge's reach
            h = h0
    if h is not None and lang == "en" and _says_how_it_looks(r, text, tier, m, h):
        h = None
    if h is not None and r.hedged_origin and h.start() > m.end() and any(
            o.start() < h.start() < o.end() for o in r.hedged_origin.finditer(text)):
        h = None  # ", probably left over from copy-pasting the train loop": how the defect got there
    if h is not None and lang == "ja" and "見え" in h.group(0) and h.end() <= m.start() \
            and _in_topic(text, h, m):
        # 「warmup が効いていないように見えるのは、〜からです」: how the symptom looks, inside the
        # topic; the cause after it is asserted (not 「怪しいのは」, which doubts the cause itself)
        h = None
    if h is not None and r.certain and r.certain.search(text, h.end()) is not None:
        h = None  # 「〜だと思いますよ、じゃなくて確実にそれです」: the hedge is taken back
    if h is not None and r.named_hypothesis and r.named_hypothesis.search(h.group(0)):
        # 「「bf16 にしたから遅くなった」という仮説は外れでした」, "it was the obvious suspect, and
        # it is not the source": the hedge names the hypothesis that the sentence then rules out
        n = r.negated.search(text, h.start())
        if n is None and tier == "negated" and m.end() <= h.start():
            n = m  # "Eliminated the scheduler as a suspect by ...": the rule-out, then what it cleared
        if n is not None:
            return Verdict(NEGATED, "rules out the %r (%r)" % (h.group(0).strip(), n.group(0).strip()))
    if h is not None and tier == "negated" and m.start() <= h.start() <= m.end() + 1:
        # 「ネットワークじゃないっぽい、〜でも止まる」「量子化のせいではないと思います」: the hedge
        # softens the rule-out itself
        return Verdict(NEGATED, "rules a cause out, hedged (%r)" % cue)
    if h is not None:
        return Verdict(HYPOTHESIS, "hedged (%r) cause (%r)" % (h.group(0).strip(), cue))

    neg = None
    contrasts = r.contrast.finditer(text) if r.contrast else []
    for n in r.negated.finditer(clause):
        if not _outside_abs(n, a, pseudo):
            continue
        # "not X but Y": a negation before the contrast does not reach a cue after it.
        if any(c.start() >= a + n.start() and c.end() <= m.start() for c in contrasts):
            continue
        neg = n
        break
    if neg is None and r.negation_before:
        before = clause[: m.start() - a]
        nb = r.negation_before.search(before)
        if nb is not None and _outside_abs(nb, a, pseudo):
            neg = nb
    if neg is None and r.negation_after:
        na = r.negation_after.search(text[m.end():b])
        if na is not None:
            neg = na
    if neg is not None:
        c = r.contrast.search(text, min(a + neg.start(), len(text)))
        if c is not None and r.control and lang == "en" and r.control.search(text[a + neg.end():c.start()]):
            # "Not a driver issue - the same container runs fine elsewhere, and the failure
            # followed the job rather than the node": the control in between is the evidence
            # for the negation; a contrast after it does not name another cause
            c = None
        if c is not None and len(text[c.end():].split()) >= 1 and not r.hedge.search(text[c.end():]) \
                and not r.unknown.search(text[c.end():]):
            return _assert(mode, mode_label, "'not X but Y' (%r)" % cue)
        return Verdict(NEGATED, "rules a cause out (%r)" % neg.group(0).strip())
    if tier == "negated":
        return None
    return _assert(mode, mode_label, "%s %r + %s" % (
        "cause frame" if tier == "frame" else "causal " + tier, cue or ":",
        "failure %r" % failure if failure else "a defect named"))


def _condition_between(r, text, start, end):
    """(ja) Is there a generic condition (「だと」) between `start` and `end`, which a sentence-final
    hedge does not reach across? Not after an inference: 「bf16 だと収束して fp16 だと NaN になる
    ってことは X が怪しい気がする」 hedges what was seen under each setting along with it."""
    return bool(r.generic_when and _within(r.generic_when, text, start, end)
                and not _INFERENCE.search(text, start, end))


def _says_how_it_looks(r, text, tier, m, h):
    """Is the English hedge `h` ("looks like", "seems", "appears") a description of how the
    effect looks rather than doubt about the cause?
    - after a look-back cue, in the effect: "That's why your loss curve looks like it was
      trained with a constant LR";
    - after a causative: "that's what made the first 20 minutes look like a hang"."""
    said = h.group(0).strip().lower()
    if tier == "connective" and h.start() >= m.end() and r.look_back.search(m.group(0)) \
            and said.startswith(("look", "seem", "appear")):
        return True
    return said.startswith("look like") and any(
        w in text[max(0, h.start() - 50):h.start()] for w in ("made ", "make ", "makes ", "making "))


def _hedge_alone_after_stop(r, text, start, h):
    """Is the hedge `h` all that follows the last 「が、」-like stop after `start` (「〜ですが、まだ
    未確認です」)?"""
    if not r.hedge_stop or h.start() < start:
        return False
    stops = list(r.hedge_stop.finditer(text[start:h.start()]))
    if not stops:
        return False
    rest = text[start + stops[-1].end():].strip(" \t。.！!")
    return len(rest) <= len(h.group(0)) + 6


def _in_topic(text, cond, m):
    """「DDP にすると精度が下がるのは、BN が同期していないためです」: the match `cond` (a conditional
    ending in と or たら, or a hedge on how the symptom looks) sits inside the topic (the symptom,
    up to のは) and the sentence still asserts why. Not 「もし…なら、…のは」, whose "if" covers the
    whole sentence."""
    found = text.find(cond.group(0))
    if found < 0:
        return False
    # (「AMP を有効にしたら勾配がゼロになった件、〜ので、〜」: the matter the sentence is about,
    # named as 「〜件」, holds its conditional the way 「〜のは」 does)
    after = found + len(cond.group(0))
    # (the frame may open with the marker itself: 「〜ように見えるのは、〜だけです」)
    return any(0 <= text.find(marker, after) <= m.start() for marker in ("のは", "件、", "件は", "件で", "件について", "件ですが"))


def _outside_abs(m, offset, spans):
    s, e = m.start() + offset, m.end() + offset
    return not any(a <= s and e <= b for a, b in spans)


def _assert(mode, mode_label, reason):
    if mode == HYPOTHESIS:
        return Verdict(HYPOTHESIS, "under %r: %s" % (mode_label or "hypothesis", reason))
    return Verdict(ASSERTION, reason)


def _our_choice_topic(r, text, fail_text, end):
    """Does text[:end] open with a choice of ours as its topic (「評価を回すようにしたのは」,
    「ZeRO-3 を使わなかった理由は」), with no failure in that topic (looked for in `fail_text`)?"""
    t = r.rationale.search(text[:end])
    return t is not None and t.group(0).rstrip("、, ").endswith(("のは", "理由は")) \
        and not failure_term(r, fail_text[:t.end()])


def _inside_failure(r, text, m):
    """Is the cause verb `m` a verb of output that is part of the failure itself ("The model
    produces garbage", "rollouts were producing identical samples")? Then the sentence states a
    symptom, not its cause. ("The upgrade broke the loader": there the verb names the cause.)"""
    words = m.group(0).split()
    if not words or not words[-1].lower().startswith(_OUTPUT_VERBS):
        return False
    # the sentence's first failure holds the verb or is its object right after it (not "the VAE
    # overflows in fp16, produces NaNs": there a failure before it produces the next)
    f = r.failure.search(text)
    return f is not None and f.start() <= m.end() + 1 and f.end() > m.start()


_OUTPUT_VERBS = ("produc", "generat", "output", "return", "emit", "give", "gave", "predict", "spit")


def _our_step(r, text, m):
    """"Ran 200 steps, killed the job, resumed": a cause verb with no subject of its own, in a
    list of steps that opens with one of ours, is another step of ours."""
    before = text[:m.start()].rstrip()
    return bool(r.own_action) and before.endswith((",", ";")) \
        and r.own_action.search(before) is not None and not failure_term(r, before)


def _why_default(r, text, m):
    """Is the cause verb `m` what a setting would do, given as the reason it is off by default
    ("it's off by default because it makes results non-deterministic")? Not a past event: "...
    because it caused the hang" still claims."""
    if not r.rationale or m.group(0).split()[-1].endswith("ed"):
        return False
    return any(x.end() <= m.start() and x.group(0).rstrip().endswith("because")
               for x in r.rationale.finditer(text[:m.start()]))


def _rationale(r, lang, text, clause, a, m):
    """Is the connective `m` the reason for the agent's own action rather than a failure's?"""
    if not r.rationale:
        return False
    if lang == "ja":
        # Japanese puts the main clause (the action) after the connective; a plan, advice or
        # "not narrowed down yet" there is no diagnosis either (「再現しないので、差分を見るのが
        # よさそうです」).
        after = text[m.end():]
        cause = text[:m.start()]
        # 「推論が遅いのは no_grad で囲っていないからで、…」: a failure as the topic, so what
        # follows the reason elaborates the diagnosis
        k = cause.find("のは")
        # (an English failure word is longer: 「plateau しているのは」)
        if k > 0 and failure_term(r, cause[max(0, k - 16):k]):  # the topic ends in the failure
            return False
        if _on_the_matter(r, text, m):  # likewise 「30 秒止まる件、〜なので worker を作り直しています」
            return False
        if r.rationale.search(text, m.end()) is not None:
            return True
        # 「エラーは別の箇所から出ているので、そちらを見ていきます」: what comes before is where to
        # look next, not the cause, even with a failure in it
        if r.probe_plan and r.probe_plan.search(after):
            return True
        # ... unless what comes before is a failure stated as fact: 「GPU 3 番のメモリが死んでるので、
        # ノードは drain しておきました」 is a diagnosis, then the fix
        if (r.instruction.search(after) or r.unknown.search(after)) and (
                not failure_term(r, cause) or (r.generic_when and r.generic_when.search(cause))):
            return True
        # 「〜したい、という要望があったためです」: the reason right before the cue is a request
        if any(x.end() >= m.start() - 1 and "という" in x.group(0) for x in r.rationale.finditer(text[:m.start()])):
            return True
        # 「評価を回すようにしたのは、〜要望があったためです」: a reason that ends the sentence
        # explains the topic before it, here a choice of our own (the cue may end the topic:
        # 「使わなかった理由は」)
        if _our_choice_topic(r, text, text, m.end()) and (
                # (「〜伸ばしたのは、保存に 40 分かかるためで、hang の対策ではありません」: the reason
                # goes on to say what the choice is not)
                r.reason_end.search(text[m.start():]) or text.startswith(("で、", "で,"), m.end())):
            return True
        # 「古い設定ファイルを削除(どこからも参照されていないため)」: the reason in brackets after the action
        bracket = max(text.rfind("(", 0, m.start()), text.rfind("（", 0, m.start()))
        return bracket > 0 and max(text.find(")", bracket, m.start()), text.find("）", bracket, m.start())) < 0 \
            and r.rationale.search(text[:bracket + 1]) is not None
    head = text[a:m.start()]
    # "I reran the eval, and the accuracy is still wrong because of ...": the clause the cue
    # explains is the one after the last "and", not the agent's rerun
    for sep in (", and ", ", but "):
        if sep in head and failure_term(r, head.rpartition(sep)[2]):
            head = head.rpartition(sep)[2]
    look_back = r.look_back.search(m.group(0))
    # "The reason for streaming is that ...": the cue opens the reason for a choice of ours; after
    # a look-back cue, advice ("..., which is why you want per-rank stack dumps when debugging
    # hangs"), whatever failure it goes on to name
    rm = r.rationale.search(text[m.start():])
    opens_rationale = rm is not None and rm.start() == 0
    if look_back and opens_rationale:
        return True
    if look_back and failure_term(r, text[m.end():]):
        # "The wheel we pinned lacks gfx942 kernels, which is why every conv fails": what a
        # look-back connective explains is a failure, so the clause before it is its cause
        return False
    if r.rationale.search(head):
        return True
    # "we leave it off by default because ...": a rationale pattern that ends with the cue itself
    rc = r.rationale.search(text[a:m.end()])
    if rc is not None and rc.end() == m.end() - a:
        return True
    if opens_rationale:
        return True
    # "That is why I deleted it", "hence we pinned it": what follows a look-back connective is
    # the agent's own action, the effect of the diagnosis, not a cause.
    if look_back and ((r.own_action and r.own_action.search(text[m.end():]))
                                          # (a slice, so that "^we checkpoint ..." matches at its start)
                                          or r.rationale.search(text[m.end():].lstrip(" ,"))
                                          # "That's why you need to call set_epoch()": advice
                                          or r.instruction.search(text[m.end():])):
        return True  # "..., which is why the partitioning log is worth reading": advice, a choice
    if not head.strip(" ,*_"):
        # "..., and I've requeued them at 96, because ...": the clause before is our own action
        if a and r.rationale.search(text[max(0, a - 80):a]) is not None:
            return True
        # "Because X, I renamed it": the action follows the first comma.
        comma = text.find(",", m.end())
        # (a slice: "^we pin ..." matches only at the start of what it is given)
        return comma >= 0 and r.rationale.search(text[comma + 1:].lstrip()) is not None
    return False


def _by_mode(r, lang, text, mode, mode_label):
    """A sentence with no causal cue right under a root-cause heading, or after its label."""
    body = text.strip()
    words = [w for w in body.replace("x" * 3, " ").split() if w.strip("x`*_-")]
    if lang == "en" and len(words) < 4 or lang != "en" and len(body) < 8:
        return None
    if body.endswith((":", "：")):
        return None
    if r.question.search(body):
        return Verdict(HYPOTHESIS, "question under %r" % mode_label)
    if r.unknown.search(body) or r.instruction.search(body) or r.conditional.search(body):
        return None
    if mode == HYPOTHESIS:
        return Verdict(HYPOTHESIS, "under %r" % (mode_label or "hypothesis"))
    h = r.hedge.search(body)
    if h is not None:
        return Verdict(HYPOTHESIS, "hedged (%r) under %r" % (h.group(0).strip(), mode_label))
    n = r.negated.search(body)
    if n is not None:
        return Verdict(NEGATED, "rules a cause out (%r) under %r" % (n.group(0).strip(), mode_label))
    return Verdict(ASSERTION, "stated under %r" % mode_label, bare=True)
