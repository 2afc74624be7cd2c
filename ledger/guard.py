"""From a detector report to a verdict: allow, block (with a reason the agent can act on) or warn.

The reason is written for the agent, in the language of its message, and always says the same
three things: which sentences need evidence, what counts as evidence, and what to do next (the
`debug` skill). It names the recorded entries most likely to help, by id, so the agent can cite
them instead of guessing again.
"""

from ledger.detect import decide as decide_mod

QUOTE_LEN = 160


class Verdict:
    __slots__ = ("decision", "reason", "system_message", "uncited", "warned")

    def __init__(self, decision, reason=None, system_message=None, uncited=(), warned=()):
        self.decision = decision
        self.reason = reason
        self.system_message = system_message
        self.uncited = list(uncited)
        self.warned = list(warned)

    def __repr__(self):
        return "Verdict(%r, uncited=%d)" % (self.decision, len(self.uncited))


def decide(report, config, blocks_so_far=0, related=None, ignored_evidence=()):
    """Apply the config to a report.

    `related(claim) -> list of (evidence_id, one_line)` supplies the entries to suggest;
    `ignored_evidence` lists ids that failed verification and were not used.
    """
    block_kinds = set(config.get("block_kinds", ("assertion",)))
    warn_kinds = set(config.get("warn_kinds", ("negated",))) - block_kinds
    uncited = decide_mod.uncited(report, block_kinds)  # the rule `ledger check` applies too
    warned = [c for c in report.claims if c.kind in warn_kinds and not c.cited]
    lang = getattr(report, "lang", "en") or "en"

    if not uncited:
        message = _warn_message(warned, lang) if warned else None
        return Verdict("warn" if warned else "allow", system_message=message, warned=warned)

    reason = block_reason(uncited, lang, related, ignored_evidence, config.get("reason_max_chars", 6000))
    if config.get("mode") == "monitor":
        return Verdict("warn", reason=reason, uncited=uncited,
                       system_message=_text(lang, "monitor") % len(uncited))
    max_blocks = int(config.get("max_blocks", 2))
    if blocks_so_far >= max_blocks:
        return Verdict("warn", reason=reason, uncited=uncited,
                       system_message=_text(lang, "cap") % (len(uncited), blocks_so_far))
    return Verdict("block", reason=reason, uncited=uncited, warned=warned)


def block_reason(uncited, lang, related=None, ignored_evidence=(), limit=6000):
    t = lambda key: _text(lang, key)  # noqa: E731
    lines = [t("head")]
    for number, claim in enumerate(uncited, 1):
        lines.append("%d. %s" % (number, _shorten(claim.text)))
        for near in (getattr(claim, "near_misses", None) or [])[:2]:
            lines.append("   " + t("near") % _near_text(near))
        suggestions = related(claim) if related else []
        if suggestions:
            lines.append("   " + t("related"))
            for evidence_id, summary in suggestions[:3]:
                lines.append("     %s  %s" % (evidence_id, _shorten(summary, 120)))
    if ignored_evidence:
        lines.append(t("tampered") % ", ".join(ignored_evidence[:10]))
    lines.append("")
    lines.append(t("evidence"))
    lines.append(t("next"))
    reason = "\n".join(lines)
    if len(reason) > limit:
        reason = reason[: limit - 40].rstrip() + "\n" + t("cut")
    return reason


def _near_text(near):
    if isinstance(near, dict):
        quote = near.get("quote") or near.get("text") or ""
        where = near.get("evidence") or near.get("id") or ""
        return "%s ~ %s" % (_shorten(quote, 80), where) if where else _shorten(quote, 80)
    return _shorten(str(near), 100)


def _warn_message(warned, lang):
    return _text(lang, "warn") % (len(warned), "; ".join(_shorten(c.text, 80) for c in warned[:3]))


def _shorten(text, limit=QUOTE_LEN):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(lang, key):
    return MESSAGES.get(lang, MESSAGES["en"]).get(key) or MESSAGES["en"][key]


MESSAGES = {
    "en": {
        "head": "evidence-ledger: these sentences state a cause, but no tool output you recorded backs them:",
        "near": "your quote is close to recorded output but not the same (%s); copy the output exactly",
        "related": "recorded entries that may bear on it:",
        "tampered": "Not used as evidence, because they failed the ledger's integrity check: %s",
        "evidence": (
            "Evidence means one of: a verbatim quote of what a tool printed in this session, in "
            "backticks, quotation marks or a quoted block next to the claim; or an evidence id such as "
            "E12 (see the ids above, or run `ledger show` / `ledger search TEXT`). Text you wrote "
            "yourself (a command line, an echo, a file you created) does not count."
        ),
        "next": (
            "Next: follow the `debug` skill. Gather cheap evidence first (`ledger probe` does it in one "
            "command), write untested causes as hypotheses (\"Hypothesis: ...\"), check them with a small "
            "smoke run that changes one thing at a time, and only then state the cause with its quote. "
            "If you cannot confirm it now, say the cause is not known yet and name the next probe."
        ),
        "cut": "[reason shortened to fit the hook output limit]",
        "cap": (
            "evidence-ledger: %d root-cause claim(s) in this answer are still not backed by recorded "
            "tool output, after %d request(s) to cite. Treat them as unverified. Details: `ledger show`."
        ),
        "monitor": (
            "evidence-ledger (monitor mode): %d uncited root-cause claim(s) would have been blocked. "
            "Details: `ledger show`."
        ),
        "warn": "evidence-ledger: %d cause(s) ruled out without cited evidence: %s",
    },
    "ja": {
        "head": "evidence-ledger: 次の文は原因を断定していますが、このセッションで記録されたツール出力による裏付けがありません:",
        "near": "引用が記録された出力と一致しません（%s）。出力をそのまま写してください",
        "related": "関係がありそうな記録:",
        "tampered": "台帳の整合性検査に通らなかったため、証拠として使っていない記録: %s",
        "evidence": (
            "証拠として認められるのは次のどちらかです: このセッションでツールが出力した文字列をそのまま"
            "引用したもの（バッククォート、「」、引用符、または主張のすぐ後の引用ブロック）、あるいは E12 の"
            "ような証拠 ID（上の ID、`ledger show`、`ledger search 文字列` で確認できます）。自分で書いた"
            "テキスト（コマンドライン、echo、自分で作成したファイル）は証拠になりません。"
        ),
        "next": (
            "次の手順: `debug` スキルに従ってください。まず安価な証拠を集め（`ledger probe` で一度に集め"
            "られます）、未検証の原因は「仮説：」として書き、一度に一つだけ条件を変える小さなスモーク実行で"
            "確かめ、その後で引用を添えて原因を述べてください。今確かめられない場合は、原因はまだ分かって"
            "いないと書き、次に行う調査を挙げてください。"
        ),
        "cut": "[フックの出力上限に収めるため理由を短縮しました]",
        "cap": (
            "evidence-ledger: この回答の原因についての主張 %d 件は、引用の依頼を %d 回行った後も記録された"
            "ツール出力で裏付けられていません。未検証として扱ってください。詳細: `ledger show`。"
        ),
        "monitor": (
            "evidence-ledger（監視モード）: 引用のない原因の主張 %d 件がブロック対象でした。詳細: `ledger show`。"
        ),
        "warn": "evidence-ledger: 証拠の引用なしに否定された原因が %d 件あります: %s",
    },
}
