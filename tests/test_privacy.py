"""Privacy: no secret the redactor knows reaches the ledger's bytes (WAL and SHM included), and
`ledger export --redact` is safe to share.

Guards: redaction inside store.record (every text field) and store.record_decision (message,
reason, system message, claims), applied before anything is written, so no secret ever sits
in a WAL frame or a free page; and ledger/export.py's --redact pass. Remove a redact() call and
the matching property fails within a few examples.
"""

import json
import os
import sqlite3
import string

from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ledger import store
from ledger.cli import cli

ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"


def _s(alphabet, lo, hi):
    return st.text(alphabet=alphabet, min_size=lo, max_size=hi)


# One generator per format in ledger/redact.py.
SECRETS = {
    "private-key": st.builds(lambda kind, body: "-----BEGIN %sPRIVATE KEY-----\n%s\n-----END %sPRIVATE KEY-----" % (kind, body, kind),
                             st.sampled_from(["", "RSA ", "EC ", "OPENSSH "]), _s(ALNUM + "+/=\n", 40, 200)),
    "aws-access-key": st.builds(lambda p, b: p + b, st.sampled_from(["AKIA", "ASIA", "AROA"]), _s(UPPER_NUM, 16, 16)),
    "anthropic-key": st.builds(lambda b: "sk-ant-" + b, _s(URLSAFE, 16, 60)),
    "openai-key": st.builds(lambda p, b: "sk-" + p + b, st.sampled_from(["", "proj-", "svcacct-"]), _s(URLSAFE, 20, 60)),
    "github-token": st.one_of(st.builds(lambda p, b: p + b, st.sampled_from(["ghp_", "gho_", "ghs_"]), _s(ALNUM, 30, 40)),
                              st.builds(lambda b: "github_pat_" + b, _s(ALNUM + "_", 22, 60))),
    "slack-token": st.builds(lambda p, b: p + b, st.sampled_from(["xoxb-", "xoxp-"]), _s(ALNUM + "-", 10, 40)),
    "slack-webhook": st.builds(lambda b: "https://hooks.slack.com/services/" + b, _s(ALNUM + "/_-", 10, 40)),
    "google-api-key": st.builds(lambda b: "AIza" + b, _s(URLSAFE, 35, 35)),
    "huggingface-token": st.builds(lambda b: "hf_" + b, _s(ALNUM, 30, 40)),
    "stripe-key": st.builds(lambda p, b: p + b, st.sampled_from(["sk_live_", "rk_test_"]), _s(ALNUM, 16, 40)),
    "jwt": st.builds(lambda a, b, c: "eyJ%s.eyJ%s.%s" % (a, b, c), _s(URLSAFE, 8, 30), _s(URLSAFE, 8, 30), _s(URLSAFE, 8, 30)),
    "bearer-token": st.builds(lambda b: "Bearer " + b, _s(ALNUM + "._~+/-", 16, 60)),
    "assignment": st.builds(lambda name, sep, value: name + sep + value,
                            st.sampled_from(["password", "API_KEY", "db.secret", "AWS_SECRET_ACCESS_KEY", "token", "credentials"]),
                            st.sampled_from(["=", ": ", " = ", "="]), _s(ALNUM + "!@#$%^&*_+-/", 8, 40)),
}


def _sensitive(kind, secret):
    """The part that must not be stored: the whole token, or an assignment's value."""
    if kind == "assignment":
        return secret.split("=", 1)[-1].split(": ", 1)[-1].strip()
    if kind == "bearer-token":
        return secret.split(" ", 1)[1]
    if kind == "private-key":
        return secret.split("\n", 1)[1].rsplit("\n", 1)[0]
    return secret


filler = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)
delimiters = st.sampled_from([" ", "\n", "\t", "'", '"', ", ", "(", ") ", "=> ", "\r\n"])


@st.composite
def outputs_with_secrets(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(SECRETS)), min_size=1, max_size=4))
    parts, secrets = [], []
    for kind in kinds:
        secret = draw(SECRETS[kind])
        sensitive = _sensitive(kind, secret)
        if kind == "private-key" and len(sensitive.strip()) < 20:
            continue
        parts += [draw(filler), draw(delimiters), secret, draw(delimiters)]
        secrets.append((kind, sensitive))
    parts.append(draw(filler))
    text = "".join(parts)
    # Filler that happens to spell the secret again is not a secret: leave such cases out.
    assume(all(text.count(v) == sum(1 for _, w in secrets if w == v) for _, v in secrets))
    return text, secrets


def _fresh(tmp_path):
    # One ledger per example: text kept from an earlier example must not count as a leak.
    import tempfile

    return os.path.join(tempfile.mkdtemp(dir=tmp_path), "ledger.db")


def _raw_bytes(db_path):
    data = b""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db_path + suffix):
            with open(db_path + suffix, "rb") as f:
                data += f.read()
    return data


_EMPTY = []


def _empty_ledger_bytes():
    """The bytes of a ledger that holds nothing but its schema: a generated 'secret' such as
    `password=truncate` is already there (the column `truncated`), and that is no leak."""
    if not _EMPTY:
        import tempfile

        path = os.path.join(tempfile.mkdtemp(prefix="ledger-empty-"), "ledger.db")
        store.connect(path).close()
        _EMPTY.append(_raw_bytes(path))
    return _EMPTY[0]


def _leaks(db_path, secrets):
    raw = _raw_bytes(db_path)
    empty = _empty_ledger_bytes()
    out = []
    for kind, sensitive in secrets:
        # Private key bodies wrap; check each line of them.
        pieces = [p for p in sensitive.split("\n") if len(p) >= 12] if kind == "private-key" else [sensitive]
        out += [(kind, p) for p in pieces if p.encode() in raw and p.encode() not in empty
                and not _inside_a_marker(p)]
    return out


def _inside_a_marker(piece):
    """A generated 'secret' such as `huggingface-toke` is spelled inside the marker that replaced
    a real one, `[REDACTED:huggingface-token]`: finding it there is no leak."""
    from ledger import redact

    return any(piece in "[REDACTED:%s]" % label for label, _ in redact._PATTERNS) or piece in "[REDACTED:secret]"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(case=outputs_with_secrets(), where=st.sampled_from(["output", "command", "tool_input", "cwd"]))
def test_generated_secrets_never_reach_the_database_bytes(case, where, tmp_path):
    text, secrets = case
    db_path = _fresh(tmp_path)
    conn = store.connect(db_path)
    try:
        ev = {"session_id": "priv", "tool_name": "Bash", "output": "ok"}
        if where == "tool_input":
            ev["tool_input"] = {"command": text, "env": {"X": text}}
        else:
            ev[where] = text
        store.record(conn, ev)
    finally:
        conn.close()
    assert _leaks(db_path, secrets) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(case=outputs_with_secrets())
def test_secrets_in_the_final_message_never_reach_the_database_bytes(case, tmp_path):
    text, secrets = case
    db_path = _fresh(tmp_path)
    conn = store.connect(db_path)
    try:
        store.record_decision(conn, {"session_id": "priv", "decision": "block", "message": text,
                                     "reason": "1. " + text, "system_message": "note: " + text},
                              [{"text": text, "kind": "assertion", "cited": False, "near_misses": [text]}])
    finally:
        conn.close()
    assert _leaks(db_path, secrets) == []


def test_secret_through_the_real_hook_and_stop(db_path):
    from conftest import run_hook

    key = "sk-ant-" + "A1b2C3d4E5f6G7h8J9k0" * 2
    run_hook({"session_id": "p", "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": "echo $ANTHROPIC_API_KEY"},
              "tool_response": {"stdout": "key is " + key, "stderr": ""}})
    run_hook({"session_id": "p", "hook_event_name": "Stop",
              "last_assistant_message": "The root cause is the expired key %s, so the client fails." % key})
    assert key.encode() not in _raw_bytes(db_path)


def test_export_redact_masks_secrets_and_home(db_path, tmp_path):
    home = os.path.expanduser("~")
    conn = store.connect(db_path)
    store.record(conn, {"session_id": "ex", "command": "ls", "output": "ok", "cwd": home + "/proj"})
    conn.close()
    # A secret in a format the recorder did not know at the time: written straight into the file.
    raw = sqlite3.connect(db_path)
    raw.execute("UPDATE evidence SET output = 'token: ghp_" + "x" * 36 + " in " + home + "/proj/.env'")
    raw.commit()
    raw.close()
    runner = CliRunner()
    plain = runner.invoke(cli, ["export"])
    assert plain.exit_code == 0 and "ghp_" in plain.output and home in plain.output
    out = tmp_path / "audit.jsonl"
    redacted = runner.invoke(cli, ["export", "--session", "ex", "--redact", "-o", str(out)])
    assert redacted.exit_code == 0
    text = out.read_text()
    assert "ghp_" not in text and home not in text and "~/proj" in text
    assert oct(os.stat(out).st_mode & 0o777) == "0o600"
    lines = [json.loads(line) for line in text.splitlines()]
    assert [l["type"] for l in lines] == ["ledger", "session", "evidence"]
    assert lines[0]["redacted"] is True and lines[0]["verified"] is False  # the hand edit shows
