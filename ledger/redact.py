"""Secret redaction.

Everything is redacted before it is written to the ledger, and the same function is applied to
anything later compared with stored text (a quote in the agent's message), so a quote of a line
that held a key still matches what was stored.

Stdlib `re` only: this runs in the recording hook on every tool call.
"""

import sys

# (label, pattern). Order matters: the block and structured forms come before the generic
# `key=value` rule, so a private key inside `key="..."` is labelled as a private key.
_PATTERNS = [
    ("private-key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[0-9A-Z]{16}\b"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{16,}"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer-token", r"(?i)(?<=\bBearer )[A-Za-z0-9._~+/\-]{16,}=*"),
]

# `password=...`, `"api_key": "..."`, `AWS_SECRET_ACCESS_KEY=...`: keep the name, drop the value.
_ASSIGNMENT = (
    r"""(?ix)
    (?P<name>\b(?![\w.\-]*\b(?:pad|eos|bos|unk|sep|cls|mask)_token\b)[\w.\-]*
        (?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)
        (?:[_\-]key)?\b["']?)
    (?P<sep>\s*[:=]\s*)
    (?P<q>["']?)
    # Not flags, nulls or special tokens: `use_auth_token=True` and `pad_token: None` are the
    # facts a person debugging a tokenizer needs, and they are not secrets (the whole value:
    # `password=NO/00000` is a secret that starts with a flag word).
    (?!(?:true|false|none|null|nil|yes|no)(?:[\s"',;)\]}]|\.(?!\S)|$))
    (?P<value>(?!\[REDACTED)(?!<)[^\s"',;]{4,})
    """
)

# Literals a match cannot do without. Most outputs hold none of them, and `in` over a 1 MiB
# output costs well under a millisecond where each pattern's scan costs ~50 ms (`\b` before the
# prefix defeats re's literal search), and the assignment rule close to a second. A pattern is
# compiled only when its literal is present, so a plain log pays for no compilation either.
_NEEDLES = {
    "private-key": ("-----BEGIN",),
    "aws-access-key": ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA",
                       "APKA", "ASCA"),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "slack-token": ("xox",),
    "slack-webhook": ("https://hooks.slack.com/services/",),
    "google-api-key": ("AIza",),
    "huggingface-token": ("hf_",),
    "stripe-key": ("_live_", "_test_"),
    "jwt": ("eyJ",),
}
# Looked for in the case-folded text (see _fold): these patterns ignore case.
_FOLDED_NEEDLES = {"bearer-token": ("bearer ",)}
_KEYWORDS = ("pass", "secret", "token", "key", "credential")

_compiled = {}
_DOTALL = 16  # re.DOTALL (tests/test_redact.py), without importing re

# The characters IGNORECASE matches to an ASCII letter that str.lower() does not map to it; each
# folds to one character, so positions in the folded text are positions in the text.
_FOLD_FIXES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})

# From a keyword to the end of the furthest possible value: the rest of the name, the separator
# and the value, each free of whitespace, with whitespace around the separator.
_TAIL = r"\S*\s*\S*\s*\S*"
_tail = None  # compiled on first use


def _compile(pattern, flags=0):
    # The Stop hook keeps its compiled regexes on disk (ledger.diskcache): there, these come
    # from it too (~1 ms a Stop). The recorder does not load that module and compiles as before.
    cache = sys.modules.get("ledger.diskcache")
    if cache is not None:
        return cache.compile(pattern, flags)
    import re  # only for a text that holds a needle: most outputs need no regex at all

    return re.compile(pattern, flags)


def _pattern(label):
    found = _compiled.get(label)
    if found is None:
        found = _compiled[label] = _compile(dict(_PATTERNS)[label], _DOTALL)
    return found


def _fold(text):
    if text.isascii():
        return text.lower()
    return text.translate(_FOLD_FIXES).lower()


def _mark(label):
    return "[REDACTED:" + label + "]"


def _assignment(match):
    return match.group("name") + match.group("sep") + match.group("q") + _mark("secret")


def _redact_assignments(text, folded):
    """_ASSIGNMENT.sub over only the lines that hold a keyword.

    A match never crosses a newline before its keyword and never runs past the third
    whitespace-separated run after it, so matching inside those spans (merged where they
    overlap) finds exactly what a scan of the whole text would.
    """
    spans = []
    global _tail
    tail = _tail
    if tail is None:
        tail = _tail = _compile(_TAIL)
    for word in _KEYWORDS:
        at = folded.find(word)
        while at >= 0:
            start = folded.rfind("\n", 0, at) + 1
            end = tail.match(text, at).end()
            spans.append((start, end))
            at = folded.find(word, at + len(word))
    if not spans:
        return text
    assignment = _compiled.get("secret")
    if assignment is None:
        assignment = _compiled["secret"] = _compile(_ASSIGNMENT)
    spans.sort()
    merged = [list(spans[0])]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        out.append(text[last:start])
        out.append(assignment.sub(_assignment, text[start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


def redact(text):
    """Return `text` with every recognised credential replaced by `[REDACTED:<kind>]`."""
    if not text:
        return text
    folded = None
    for label, _ in _PATTERNS:
        needles = _NEEDLES.get(label)
        if needles is not None:
            if not any(n in text for n in needles):
                continue
        else:
            if folded is None:
                folded = _fold(text)
            if not any(n in folded for n in _FOLDED_NEEDLES[label]):
                continue
        text = _pattern(label).sub(_mark(label), text)
        folded = None
    if folded is None:
        folded = _fold(text)
    if not any(k in folded for k in _KEYWORDS):
        return text
    return _redact_assignments(text, folded)
