"""Secret redaction: each supported format is caught, and ordinary ML log text is left alone.

A false redaction is a real cost here: it hides the number a person is debugging (and a key
that looks like `pad_token: None` is exactly the fact that explains a NaN).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.redact import redact

# Built from pieces so that no scanner mistakes this file for a leak.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
CASES = [
    ("aws-access-key", "key id " + AWS + " loaded", AWS),
    ("aws-access-key", "ASIA" + "Y3FQ2M7XZ5K4PTRW", "ASIA" + "Y3FQ2M7XZ5K4PTRW"),
    ("anthropic-key", "ANTHROPIC=" + "sk-ant-" + "api03-abcdefghijklmnopQRSTUV", "sk-ant-api03-abcdefghij"),
    ("openai-key", "using " + "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2", "A1b2C3d4E5f6G7h8I9j0"),
    ("openai-key", "sk-" + "abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrst"),
    ("github-token", "remote: " + "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a1B2c3D4e5F6g7H8i9J0"),
    ("github-token", "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "11ABCDEFG0123456789"),
    ("slack-token", "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl", "1234567890-0987654321"),
    ("slack-webhook", "post to https://hooks.slack.com/services/" + "T000/B000/XXXXXXXX", "T000/B000/XXXXXXXX"),
    ("google-api-key", "AIza" + "SyA1234567890abcdefghijklmnopqrstuv", "SyA1234567890abcdefghij"),
    ("huggingface-token", "HF " + "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("stripe-key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("jwt", "cookie eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N"),
    ("bearer-token", "Authorization: Bearer " + "abc123DEF456ghi789JKL", "abc123DEF456ghi789JKL"),
    ("secret", "password=hunter2hunter2", "hunter2hunter2"),
    ("secret", 'config {"api_key": "0123456789abcdef"}', "0123456789abcdef"),
    ("secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "wJalrXUtnFEMI"),
    ("secret", "SECRET_KEY = 'django-insecure-q8w7e6r5'", "django-insecure"),
    ("secret", "client_secret: s3cr3t-value", "s3cr3t-value"),
    ("secret", "export GITLAB_TOKEN=glpat-xxxxyyyyzzzz", "glpat-xxxxyyyyzzzz"),
]


@pytest.mark.parametrize("label, text, secret", CASES, ids=[c[0] for c in CASES])
def test_each_format_is_redacted(label, text, secret):
    out = redact(text)
    assert secret not in out
    assert "[REDACTED:%s]" % label in out


def test_private_key_block_whole():
    block = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n"
             "bm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ\n-----END OPENSSH PRIVATE KEY-----")
    out = redact("before\n" + block + "\nafter")
    assert out == "before\n[REDACTED:private-key]\nafter"


def test_private_key_without_end_is_redacted_to_the_end():
    # A capped output can cut the END line off; everything after BEGIN must still go.
    out = redact("ok\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nmore")
    assert out == "ok\n[REDACTED:private-key]"


def test_two_key_blocks_keep_the_text_between():
    block = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA\n-----END EC PRIVATE KEY-----"
    out = redact(block + "\nmiddle line\n" + block)
    assert out.count("[REDACTED:private-key]") == 2
    assert "middle line" in out


def test_public_material_is_not_redacted():
    cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"
    pub = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----"
    assert redact(cert) == cert
    assert redact(pub) == pub


ORDINARY = [
    "max_tokens=512",
    "num_tokens: 1234",
    "PWD=/home/x",
    "grad_norm=inf",
    "step 420 loss=nan grad_norm=inf lr=3e-4",
    "prompt_tokens=100 completion_tokens=200 total_tokens=300",
    "tokens_per_sec=1234.5 token_count=5",
    "--max-new-tokens 512 --tokenizer gpt2",
    "tokenizer=gpt2 vocab_size=32000",
    "model.embed_tokens.weight torch.Size([32000, 4096])",
    "pad_token: None",
    "pad_token_id=0 eos_token_id=2 bos_token_id: 1",
    "eos_token: </s> unk_token: <unk>",
    "tokenizer.pad_token = [PAD]",
    '{"pad_token": null, "use_auth_token": true}',
    "use_auth_token=True trust_remote_code=False",
    "model(use_auth_token=True), pad_token: None, token: none.",
    "secret_sauce=1 password_hash_rounds=12",
    "api_key_env=OPENAI_API_KEY",
    "TOKENIZERS_PARALLELISM=false",
    "key=value",
    "task-1234567890abcdefghijk desk-abcdefghijklmnopqrstuvwxyz",
    "sk-learn scikit-learn==1.4.0",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit 3f2c1e9a8b7d6c5e4f3a2b1c0d9e8f7a6b5c4d3e",
    "CUDA_VISIBLE_DEVICES=0,1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "E0427 12:00:01.123 ProcessGroupNCCL.cpp:1234] Watchdog caught collective operation timeout",
    "日本語のログ: 損失が nan になりました token数=512",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_ml_log_text_is_untouched(text):
    assert redact(text) == text


def test_empty_and_none():
    assert redact("") == ""
    assert redact(None) is None


def test_redaction_keeps_the_rest_of_the_line():
    out = redact("epoch 3 token=abcd1234efgh loss=0.12")
    assert out == "epoch 3 token=[REDACTED:secret] loss=0.12"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcAKIA0123456789_-=:. \n\"'sk-ghp_tokenpasswordBEGIN PRIVATE KEY-"),
               max_size=120))
def test_redaction_is_idempotent(text):
    # Quotes are redacted before they are compared with stored (already redacted) text; a
    # second pass must not change the first pass's result, or a quote would stop matching.
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_redaction_never_raises_and_returns_text(text):
    assert isinstance(redact(text), str)


@pytest.mark.parametrize("text, secret", [
    # a value that starts with a flag word is still a value (found by the privacy property test)
    ("password=NO/00000", "NO/00000"),
    ("password=NO*00000", "NO*00000"),
    ("token: true!x9f3k2", "true!x9f3k2"),
    ("api_key: yes-this-is-the-key", "yes-this-is-the-key"),
    ("secret=None.x1234", "None.x1234"),
])
def test_a_secret_that_starts_with_a_flag_word_is_redacted(text, secret):
    assert secret not in redact(text)
