"""Secret redaction.

Everything is redacted before it is written to the ledger, and the same function is applied to
anything later compared with stored text (a quote in the agent's message), so a quote of a line
that held a key still matches what was stored.

Stdlib `re` only: this runs in the recording hook on every tool call.
"""

import re

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
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?P<name>\b(?![\w.\-]*\b(?:pad|eos|bos|unk|sep|cls|mask)_token\b)[\w.\-]*
        (?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)
        (?:[_\-]key)?\b["']?)
    (?P<sep>\s*[:=]\s*)
    (?P<q>["']?)
    # Not flags, nulls or special tokens: `use_auth_token=True` and `pad_token: None` are the
    # facts a person debugging a tokenizer needs, and they are not secrets.
    (?!(?:true|false|none|null|nil|yes|no)\b)
    (?P<value>(?!\[REDACTED)(?!<)[^\s"',;]{4,})
    """
)

_COMPILED = [(label, re.compile(pattern, re.DOTALL)) for label, pattern in _PATTERNS]


def _mark(label):
    return "[REDACTED:" + label + "]"


def redact(text):
    """Return `text` with every recognised credential replaced by `[REDACTED:<kind>]`."""
    if not text:
        return text
    for label, pattern in _COMPILED:
        text = pattern.sub(_mark(label), text)
    return _ASSIGNMENT.sub(
        lambda m: m.group("name") + m.group("sep") + m.group("q") + _mark("secret"), text
    )
