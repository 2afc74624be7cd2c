"""ledger.jsonc gives what json gives: the same values, the same text, the same errors.

The hooks read stdin, hash entries (store.entry_hash) and write their output through it, so a
difference would change a hash chain or a verdict; it must be json's C scanner and encoder,
set up as json sets them up, and json itself for everything else.
"""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import jsonc

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(), st.text(alphabet="\"\\\n\t\x00\x1f\u2028\ud800é日\U0001F600 ab"))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=20)


def _same(a, b):
    # NaN is not equal to itself; compare through repr where floats are involved.
    return repr(a) == repr(b) and type(a) is type(b)


@settings(max_examples=500, deadline=None)
@given(value=values, ensure_ascii=st.booleans(), compact=st.booleans())
def test_dumps_is_jsons(value, ensure_ascii, compact):
    separators = (",", ":") if compact else None
    assert jsonc.dumps(value, ensure_ascii=ensure_ascii, separators=separators) == \
        json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)


def test_dumps_default_and_errors_are_jsons():
    value = {"a": {1, 2}, "b": object}
    assert jsonc.dumps(value, ensure_ascii=False, default=str) == json.dumps(value, ensure_ascii=False, default=str)
    for bad in ({"a": {1}}, [object()], {(1, 2): 3}):
        with pytest.raises(TypeError) as ours:
            jsonc.dumps(bad)
        with pytest.raises(TypeError) as theirs:
            json.dumps(bad)
        assert str(ours.value) == str(theirs.value)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        jsonc.dumps(loop)


@settings(max_examples=500, deadline=None)
@given(value=values, pad=st.sampled_from(["", " ", "\n\t ", "\r\n"]), strict=st.booleans())
def test_loads_is_jsons(value, pad, strict):
    text = pad + json.dumps(value) + pad
    assert _same(jsonc.loads(text, strict=strict), json.loads(text, strict=strict))
    data = text.encode("utf-8")
    assert _same(jsonc.loads(data), json.loads(data))


@pytest.mark.parametrize("text", [
    "", " ", "{", '{"a": 1} x', '{"a": 1}{}', "[1,]", "\ufeff{}", "nul", '"\x01"', '"\\ud800"',
    "NaN", "-Infinity", "1e999", '{"a":\n"b\nc"}', "[" * 100000 + "]" * 100000,
    b"\xef\xbb\xbf{}", '{"a": 1}'.encode("utf-16"), '{"a": 1}'.encode("utf-32-le"), b'"\xff"',
    b"[1]", b"\x00", b"  2 ",
])
@pytest.mark.parametrize("strict", [True, False])
def test_loads_errors_and_edges_are_jsons(text, strict):
    def run(loads):
        try:
            value = loads(text, strict=strict)
        except (ValueError, RecursionError) as exc:
            return type(exc), str(exc)
        return "ok", repr(value) if not (isinstance(value, float) and math.isnan(value)) else "nan"

    assert run(jsonc.loads) == run(json.loads)


def test_errors_in_a_fresh_process_are_jsons():
    # Before json.decoder is imported, the C scanner cannot raise JSONDecodeError.
    import subprocess
    import sys

    from hookrun import REPO

    code = ("import sys; sys.path.insert(0, %r); from ledger import jsonc\n"
            "for bad in ('{\"a\": 1', b'{\"a\": \"\\\\x\"}', '[1] 2'):\n"
            "    try:\n        jsonc.loads(bad)\n    except ValueError as e:\n"
            "        print(type(e).__name__)\n" % REPO)
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["JSONDecodeError"] * 3, out.stderr


def test_a_python_whose_accelerator_differs_falls_back_to_json(monkeypatch):
    # A _json whose constructors want other arguments must not break the hooks: json decodes.
    def refuse(*args):
        raise TypeError("make_scanner/make_encoder takes other arguments here")

    monkeypatch.setattr(jsonc, "_make_scanner", refuse)
    monkeypatch.setattr(jsonc, "_make_encoder", refuse)
    monkeypatch.setattr(jsonc, "_scanners", {})
    value = {"a": [1, 2.5, None, "é"], "b": {"c": True}}
    assert jsonc.loads(json.dumps(value)) == value
    assert jsonc.dumps(value, ensure_ascii=False) == json.dumps(value, ensure_ascii=False)
