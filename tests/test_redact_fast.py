"""The fast redactor (literal pre-checks, keyword spans) finds exactly what the plain patterns find.

The reference here is the obvious implementation: every pattern, then the assignment rule, each
scanned over the whole text. Any text where the two differ is a bug in the shortcut.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import redact as R

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
PIECES = [
    "password", "passwd", "PASSWORD", "Secret", "token", "pad_token", "api_key", "API-KEY", "access_key",
    "private_key", "credentials", "_key", "key", "KeyError", "tokenizer", "=", ":", " = ", ": ", "\n",
    "\n\n", " ", "\t", "'", '"', ",", ";", "hunter2hunter2", "abcd", "None", "true", "[REDACTED:x]",
    "<tok>", "Bearer ", "bearer ", "sk-", "sk-ant-", "ghp_", "xoxb-", "AIza", "hf_", "sk_live_", "eyJ",
    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", AWS, "abcdefghijklmnopqrstuvwxyz012345",
    "step 10 loss=nan", ".", "-", "_", "\u0130", "\u0131", "\u017f", "ſecret", "paſſword", "\u212aey", "é",
    "https://hooks.slack.com/services/T0/B0/XX",
]


def reference(text):
    if not text:
        return text
    for label, pattern in R._PATTERNS:
        text = re.compile(pattern, re.DOTALL).sub("[REDACTED:" + label + "]", text)
    return re.compile(R._ASSIGNMENT).sub(R._assignment, text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=30).map("".join))
def test_fast_redact_matches_the_whole_text_scan(text):
    assert R.redact(text) == reference(text)


def test_a_log_without_any_literal_is_returned_untouched_and_compiles_nothing():
    R._compiled.clear()
    log = "\n".join("step %d loss=%.3f tok/s=%d KeyError" % (i, i / 7, i * 13) for i in range(2000))
    assert R.redact(log) == log
    # "KeyError" holds "key", so the assignment rule is compiled, but no other pattern is.
    assert set(R._compiled) <= {"secret"}


def test_secret_deep_in_a_long_output_is_still_found():
    log = "\n".join("step %d loss=%.3f" % (i, i / 7) for i in range(20000))
    text = log + "\nexport HF_TOKEN=abcdefgh12345678\n" + AWS + "\n" + log
    out = R.redact(text)
    assert "abcdefgh12345678" not in out and AWS not in out
    assert out == reference(text)
