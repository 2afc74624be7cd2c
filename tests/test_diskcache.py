"""The Stop hook's disk cache (ledger/diskcache.py): the same regexes and parsed rule packs, or none.

Pattern equality compares the compiled program, so `cached == re.compile(...)` says the cache
gave back exactly the code `re` would have built; the match checks say the same in behaviour.
"""

import glob
import json
import marshal
import os
import re
import stat

import pytest

from hookrun import REPO, run_hook
from ledger import diskcache, store
from ledger.detect import load_rules
from ledger.detect import rules as detect_rules

# The texts every rule pattern is run over, cached and fresh: the tuned splits of each language
# and one blind split in eight. All 160-odd files, twice over ~60 alternations, cost this one
# test five minutes; equal programs (`==`) already say the cache gave back the same pattern.
CORPUS = [p for i, p in enumerate(sorted(glob.glob(os.path.join(REPO, "tests", "corpus", "*.txt"))))
          if "_blind" not in p or i % 8 == 0]

SIMPLE = [
    (r"(?P<word>\w+)\s+(\d+)", 0),
    (r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]", 0),
    (r"\bbecause\b|\bdue to\b", re.IGNORECASE),
    (r"^\s*#+\s*(.*?)$", re.MULTILINE),
    (r"(`+)(.+?)\1", re.S),
]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh, empty cache in this test's folder; the process's own cache is restored after."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("LEDGER_CACHE", raising=False)
    saved = (diskcache._loaded, diskcache._new, set(diskcache._used), diskcache._can_save, diskcache._enabled)
    diskcache._reset()
    yield diskcache
    diskcache._loaded, diskcache._new, diskcache._can_save = saved[0], saved[1], saved[3]
    diskcache._enabled = saved[4]
    diskcache._used.clear()
    diskcache._used.update(saved[2])


def _rule_patterns():
    """Every joined alternation the detector compiles from the packaged packs, per language."""
    rules = detect_rules.build(detect_rules.rule_files())
    out = []
    for lang in ("en", "ja"):
        lr = rules.for_lang(lang)
        for key in vars(lr):
            m = getattr(lr, key)
            if isinstance(m, detect_rules.Matcher) and m.patterns:
                out.append(("|".join("(?:%s)" % p for p in m.patterns), m.flags))
    assert len(out) > 20
    return out


def _texts():
    texts = []
    for path in CORPUS:
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    return texts


def _spans(pattern, texts):
    return [[(m.span(), m.groups()) for m in pattern.finditer(t)] for t in texts]


def _hit_only(monkeypatch):
    """Fail the test if anything is compiled from source from here on."""
    def refuse(*a, **k):
        raise AssertionError("compiled from source: the cache missed")

    monkeypatch.setattr(diskcache, "_arguments", refuse)
    monkeypatch.setattr(re, "compile", refuse)  # diskcache imports re only on a miss


def test_a_miss_compiles_saves_and_the_next_process_hits(cache, monkeypatch, tmp_path):
    first = [cache.compile(p, f) for p, f in SIMPLE]
    assert first == [re.compile(p, f) for p, f in SIMPLE]
    assert cache.save() is True
    path = cache.cache_file()
    assert path.startswith(str(tmp_path / "cache" / "evidence-ledger"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    assert cache.save() is False  # nothing new: no write

    cache._reset()  # as a new process would start
    expected = [re.compile(p, f) for p, f in SIMPLE]
    _hit_only(monkeypatch)
    again = [cache.compile(p, f) for p, f in SIMPLE]
    assert again == expected
    for got, want in zip(again, expected):
        assert (got.pattern, got.flags, got.groups, got.groupindex) == \
            (want.pattern, want.flags, want.groups, want.groupindex)


def test_a_hit_lets_its_program_go_and_a_later_save_keeps_the_entry(cache, monkeypatch):
    # A hit frees the entry's program in this process (the Stop's memory), keeps the Pattern
    # for the next compile of the same pattern, and a save for another miss writes the entry
    # back from the file: the next process still hits.
    for p, f in SIMPLE:
        cache.compile(p, f)
    assert cache.save() is True
    cache._reset()
    first = cache.compile(*SIMPLE[0])
    assert cache._entries()[("re",) + SIMPLE[0]] is cache._SPENT
    assert cache.compile(*SIMPLE[0]) is first  # no second build, and no miss
    assert cache._new == {}
    cache.compile(r"only\s+now", 0)  # a miss: the next save rewrites the file
    assert cache.save() is True
    cache._reset()
    expected = [re.compile(*SIMPLE[0]), re.compile(r"only\s+now", 0)]
    _hit_only(monkeypatch)
    assert [cache.compile(*SIMPLE[0]), cache.compile(r"only\s+now", 0)] == expected
    assert all(v is not cache._SPENT for v in cache._read(cache.cache_file()).values())


def test_every_rule_pattern_from_the_cache_is_the_pattern_re_compiles(cache, monkeypatch):
    patterns = _rule_patterns()
    texts = _texts()
    for p, f in patterns:
        cache.compile(p, f)
    assert cache.save()
    cache._reset()
    expected = [re.compile(p, f) for p, f in patterns]
    _hit_only(monkeypatch)
    cached = [cache.compile(p, f) for p, f in patterns]
    for got, want in zip(cached, expected):
        assert got == want  # the same compiled program
        assert _spans(got, texts) == _spans(want, texts)


def test_the_detector_modules_compile_through_the_cache(cache):
    # Their module-level patterns were compiled at import: each equals re.compile's.
    from ledger.detect import cite, markdown, sentences

    for module in (sentences, cite, markdown):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                assert value == re.compile(value.pattern, value.flags), (module.__name__, name)


def _write_raw(cache, data):
    path = cache.cache_file()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600)
    return path


def _valid_file(cache, version=None, entries=None):
    if entries is None:
        entries = {("re", p, int(f)): diskcache._arguments(p, int(f)) for p, f in SIMPLE}
    body = marshal.dumps((version or cache.version_key(), entries))
    return cache.FORMAT + cache._digest(body) + body


def _works_and_repairs(cache):
    """Every pattern still compiles right, and the next save writes a good file."""
    assert [cache.compile(p, f) for p, f in SIMPLE] == [re.compile(p, f) for p, f in SIMPLE]
    assert cache.save() is True
    cache._reset()
    assert len(cache._entries()) == len(SIMPLE)


@pytest.mark.parametrize("damage", [
    lambda good: b"",
    lambda good: b"not a cache at all",
    lambda good: good[:-7],                                   # cut short
    lambda good: good[:-1] + bytes([good[-1] ^ 0xFF]),        # one byte of the body flipped
    lambda good: good[:30] + bytes([good[30] ^ 0xFF]) + good[31:],  # the digest damaged
    lambda good: b"evidence-ledger cache 0\n" + good[len(diskcache.FORMAT):],  # other format
])
def test_a_corrupt_file_is_ignored_and_replaced(cache, damage):
    _write_raw(cache, damage(_valid_file(cache)))
    assert cache._entries() == {}
    _works_and_repairs(cache)


def test_a_file_from_another_python_is_ignored(cache):
    _write_raw(cache, _valid_file(cache, version="cpython|2.7.18|0|0|2|0"))
    assert cache._entries() == {}
    _works_and_repairs(cache)


def test_a_program_the_engine_rejects_falls_back_to_re_compile(cache):
    # A well-formed file (right digest and version) whose program is garbage: _sre refuses it.
    pattern, flags = SIMPLE[0]
    garbage = memoryview(bytearray(5 * diskcache._sre.CODESIZE)).cast(diskcache._WORDS)
    for i, word in enumerate([1, 2, 3, 4, 5]):
        garbage[i] = word
    bad = {("re", pattern, flags): (int(flags | re.UNICODE), garbage.tobytes(), 2, {"word": 1}, (None, "word", None))}
    _write_raw(cache, _valid_file(cache, entries=bad))
    assert ("re", pattern, flags) in cache._entries()
    assert cache.compile(pattern, flags) == re.compile(pattern, flags)
    assert ("re", pattern, flags) in cache._new  # replaced at the next save


def test_a_file_others_could_write_is_ignored(cache):
    path = _write_raw(cache, _valid_file(cache))
    os.chmod(path, 0o666)
    assert cache._entries() == {}
    cache._reset()
    os.chmod(path, 0o600)
    assert len(cache._entries()) == len(SIMPLE)


def test_a_file_of_another_user_is_ignored(cache, monkeypatch):
    _write_raw(cache, _valid_file(cache))
    monkeypatch.setattr(diskcache.os, "geteuid", lambda: os.geteuid() + 1)
    assert cache._entries() == {}
    assert cache.compile(*SIMPLE[0]) == re.compile(*SIMPLE[0])
    assert cache.save() is False  # the folder is not "ours" either: nothing written


def test_a_symlinked_file_is_not_followed(cache, tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(_valid_file(cache))
    path = cache.cache_file()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    os.symlink(str(target), path)
    assert cache._entries() == {}


def test_an_unwritable_cache_folder_still_works(cache, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the folder would sit under a file
    assert cache.compile(*SIMPLE[1]) == re.compile(*SIMPLE[1])
    assert cache.save() is False
    assert cache.compile(*SIMPLE[2]) == re.compile(*SIMPLE[2])


def test_where_nothing_can_be_saved_a_miss_costs_one_compile(cache, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(diskcache, "_arguments", lambda *a: pytest.fail("derived an entry"))
    assert cache.compile(*SIMPLE[0]) == re.compile(*SIMPLE[0])
    assert cache.toml(b"a = 1\n") == {"a": 1}
    assert cache._new == {}


def test_a_relative_cache_home_is_not_used(cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert os.path.isabs(cache.cache_file())


def test_turned_off_it_is_plain_re_compile(cache, monkeypatch):
    monkeypatch.setenv("LEDGER_CACHE", "off")
    assert cache.compile(*SIMPLE[0]) == re.compile(*SIMPLE[0])
    assert cache._new == {} and cache.save() is False
    assert not os.path.exists(cache.cache_file())


def test_errors_and_uncacheable_input_behave_like_re(cache):
    with pytest.raises(re.error):
        cache.compile(r"(unclosed")
    assert cache.compile(rb"\d+") == re.compile(rb"\d+")  # bytes: not cached, still compiled
    assert cache.compile(r"\d+", re.ASCII) == re.compile(r"\d+", re.ASCII)
    assert all(isinstance(k[1], str) for k in cache._new)


def test_a_matcher_with_a_bad_pattern_still_falls_back_to_the_list(cache):
    m = detect_rules.Matcher([r"\bfine\b", r"(broken"], re.IGNORECASE)
    assert m.search("all FINE here").group(0) == "FINE"


def test_a_prefilter_index_is_unmarshalled_only_when_its_list_asks_for_it(cache, monkeypatch):
    # Every upgrade of the rule packs leaves the old lists' indexes in the file; a Stop reads
    # the file whole, and those it never asks for must stay one bytes object each.
    index = (3, (0, 1, "b|c"), {"oom": 0, "nan": (1, 2)}, {"oom": "oom"}, ("x",), {2: (("a", "b"),)}, (), ())
    calls = []

    def derive(pattern, flags):
        calls.append(pattern)
        return index if pattern == "used" else ("stale", pattern)

    assert cache.needs("used", 2, derive) == index
    assert cache.needs("stale", 2, derive) == ("stale", "stale")
    assert cache.save()
    cache._reset()
    loads = []
    real = marshal.loads
    monkeypatch.setattr(diskcache.marshal, "loads", lambda data: loads.append(len(data)) or real(data))
    assert cache.needs("used", 2, derive) == index  # from the file, not derived again
    assert calls == ["used", "stale"]
    assert len(loads) == 2  # the file, then the one entry asked for
    assert type(cache._entries()[("needs", "stale", 2)]) is bytes
    # An entry that does not unmarshal is derived afresh, as on a miss.
    cache._entries()[("needs", "stale", 2)] = b"\xff not marshal"
    assert cache.needs("stale", 2, derive) == ("stale", "stale")
    assert calls[-1] == "stale"


def test_stale_entries_are_dropped_past_the_limit(cache, monkeypatch):
    monkeypatch.setattr(diskcache, "MAX_ENTRIES", 3)
    for p, f in SIMPLE:
        cache.compile(p, f)
    cache.save()
    cache._reset()
    cache.compile(*SIMPLE[0])
    cache.compile(r"new\d", 0)
    cache.save()
    cache._reset()
    assert set(cache._entries()) == {("re",) + SIMPLE[0], ("re", r"new\d", 0)}


def test_what_an_upgrade_left_behind_is_dropped_when_it_weighs(cache, monkeypatch):
    # An upgrade changes the packs' joined lists: the old lists' indexes and programs stay in
    # the file, and every Stop reads them, until a save by a detector run drops them.
    monkeypatch.setattr(diskcache, "STALE_BYTES", 1000)
    derive = lambda pattern, flags: (pattern,)  # noqa: E731
    old_list = "old list " + "x" * 2000
    cache.needs(old_list, 2, derive)
    cache.compile(r"old\d", 0)
    cache.save()
    cache._reset()
    # a process that ran no detector list (`ledger rules` compiling one pattern) drops nothing
    cache.compile(r"other\d", 0)
    cache.save()
    cache._reset()
    assert ("needs", old_list, 2) in cache._entries()
    cache._reset()
    cache.needs("new list", 2, derive)
    cache.compile(r"new\d", 0)
    cache.save()
    cache._reset()
    keys = set(cache._entries())
    assert {("needs", "new list", 2), ("re", r"new\d", 0)} <= keys
    assert ("needs", old_list, 2) not in keys and ("re", r"old\d", 0) not in keys
    # what weighs less stays: another project's own lists, read by its own Stops
    monkeypatch.setattr(diskcache, "STALE_BYTES", 10 ** 9)
    cache._reset()
    cache.needs("other project", 2, derive)
    cache.save()
    cache._reset()
    cache.needs("new list", 2, derive)
    cache.compile(r"third\d", 0)
    cache.save()
    cache._reset()
    assert ("needs", "other project", 2) in cache._entries()


def _stop_payload(session, prompt):
    return {"session_id": session, "hook_event_name": "Stop", "stop_hook_active": False,
            "prompt_id": prompt, "cwd": REPO,
            "last_assistant_message": "## Root cause\nThe loss is NaN because the learning rate is "
                                      "too high, as `lr=3.00e-03 warmup_steps=0` shows.\n\nThe "
                                      "eval OOM comes from the cache growing every step."}


def test_the_stop_hook_judges_alike_cold_warm_and_without_the_cache(db_path, tmp_path):
    conn = store.connect(db_path)
    store.record(conn, {"session_id": "s1", "tool_name": "Bash", "command": "python train.py",
                        "output": "step 1 lr=3.00e-03 warmup_steps=0\nloss=nan", "failed": True})
    conn.close()
    cache_home = str(tmp_path / "hook-cache")
    outputs = []
    for n, env in enumerate([{"XDG_CACHE_HOME": cache_home}, {"XDG_CACHE_HOME": cache_home},
                             {"LEDGER_CACHE": "off"}]):
        result = run_hook(_stop_payload("s1", "p%d" % n), env=env)
        assert result.returncode == 0 and result.stderr == b"", result.stderr
        outputs.append(json.loads(result.stdout))
        if n == 0:
            written = glob.glob(os.path.join(cache_home, "evidence-ledger", "stop-*.cache"))
            assert len(written) == 1
            before = os.stat(written[0]).st_mtime_ns
    assert outputs[0]["decision"] == "block" and "eval OOM" in outputs[0]["reason"]
    assert outputs[0] == outputs[1] == outputs[2]
    assert os.stat(written[0]).st_mtime_ns == before  # the warm run had nothing to add


def test_load_rules_output_does_not_depend_on_the_cache(cache, monkeypatch):
    from ledger.detect import analyze

    msg = "The job crashed because the disk was full. 原因はディスクの容量不足です。"
    cold = analyze(msg, rules=detect_rules.build(detect_rules.rule_files())).to_dict()
    cache.save()
    cache._reset()
    warm = analyze(msg, rules=detect_rules.build(detect_rules.rule_files())).to_dict()
    monkeypatch.setenv("LEDGER_CACHE", "off")
    cache._reset()  # a process reads LEDGER_CACHE once
    assert not cache.enabled()
    off = analyze(msg, rules=detect_rules.build(detect_rules.rule_files())).to_dict()
    assert cold == warm == off and cold["claims"]
    assert load_rules() is not None


# Parsed TOML ---------------------------------------------------------------------------------

def test_parsed_rule_packs_come_back_equal_and_without_tomllib(cache, monkeypatch):
    import tomllib

    files = [path for _, path in detect_rules.rule_files()]
    assert files
    raws = []
    for path in files:
        with open(path, "rb") as f:
            raws.append(f.read())
    expected = [tomllib.loads(raw.decode()) for raw in raws]
    assert [cache.toml(raw) for raw in raws] == expected
    assert cache.save()
    cache._reset()
    monkeypatch.setattr(diskcache, "_parse_toml", lambda data: pytest.fail("parsed again"))
    first = [cache.toml(raw) for raw in raws]
    assert first == expected
    first[0]["pack"]["name"] = "edited by the caller"
    assert cache.toml(raws[0]) == expected[0]  # every call gets its own copy


def test_a_changed_file_is_parsed_again(cache):
    a = b'[pack]\nname = "en"\n[cues]\nhedge = ["\\\\bmaybe\\\\b"]\n'
    b = a.replace(b"maybe", b"perhaps")
    assert cache.toml(a)["cues"]["hedge"] == ["\\bmaybe\\b"]
    cache.save()
    cache._reset()
    assert cache.toml(b)["cues"]["hedge"] == ["\\bperhaps\\b"]
    assert ("toml", b) in cache._new


def test_toml_errors_are_tomllibs(cache):
    import tomllib

    with pytest.raises(tomllib.TOMLDecodeError):
        cache.toml(b"[pack\nname = 1")
    with pytest.raises(UnicodeDecodeError):
        cache.toml(b'name = "\xff"')
    assert cache._new == {}


def test_a_toml_date_is_parsed_every_time(cache):
    parsed = cache.toml(b"when = 2024-01-02T03:04:05Z\n")
    assert parsed["when"].year == 2024
    assert cache._new == {}  # marshal cannot hold a datetime


def test_a_broken_rule_file_is_still_reported(cache, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"[pack\n")
    with pytest.raises(detect_rules.RuleError, match="invalid TOML"):
        detect_rules.read_file(str(bad))
    bad.write_bytes(b'[pack]\nname = "x"\nlang = "en"\n')
    assert detect_rules.read_file(str(bad))["pack"]["name"] == "x"


def test_rule_loading_on_a_warm_cache_does_not_import_tomllib(tmp_path):
    import subprocess
    import sys

    code = ("import sys; from ledger.detect import rules; from ledger import diskcache; "
            "rules.build(rules.rule_files()); diskcache.save(); print('tomllib' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=REPO, XDG_CACHE_HOME=str(tmp_path / "c"))
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           cwd=str(tmp_path), check=True).stdout.strip() for _ in range(2)]
    assert runs == ["True", "False"]


def test_flag_values_are_res():
    # The detector modules pass these instead of re's flags, so that they need not import re.
    assert (diskcache.IGNORECASE, diskcache.MULTILINE, diskcache.DOTALL) == (re.IGNORECASE, re.MULTILINE, re.DOTALL)
    assert diskcache._CACHEABLE == re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE | re.VERBOSE | re.ASCII
    from ledger import redact

    assert redact._DOTALL == re.DOTALL


def test_a_stop_on_a_warm_cache_imports_neither_re_nor_json(tmp_path):
    # Its regexes come from the cache and its JSON goes through ledger.jsonc: `re` (with enum)
    # and json cost a Stop ~5 ms of imports. What needs them still imports them (a quote found
    # nowhere, which is looked for ignoring case: re.escape).
    import subprocess
    import sys

    payload = ('{"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false, "cwd": "/p",'
               ' "last_assistant_message": "The loss is NaN because the learning rate is too high.'
               ' The job crashed because the disk was full."}')
    code = ("import io, sys; sys.stdin = io.TextIOWrapper(io.BytesIO(%r.encode())); "
            "import ledger.hooks; ledger.hooks.main(['claude']); "
            "sys.stderr.write(repr(sorted({'re', 'json', 'enum'} & set(sys.modules))))" % payload)
    env = dict(os.environ, PYTHONPATH=REPO, XDG_CACHE_HOME=str(tmp_path / "c"), HOME=str(tmp_path),
               LEDGER_DB=str(tmp_path / "l.db"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    runs = [subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env,
                           cwd=str(tmp_path), check=True) for _ in range(2)]
    assert '"block"' in runs[1].stdout
    assert runs[1].stderr == "[]"


def test_a_rule_pack_edited_since_is_dropped_when_it_weighs(cache, monkeypatch):
    # every edit or upgrade of a pack leaves its old bytes and parse behind: read on every Stop
    monkeypatch.setattr(diskcache, "STALE_TOML_BYTES", 1000)
    old = ("[cues]\nhedge = [\n" + "  'maybe',\n" * 200 + "]\n").encode()
    small = b"[cues]\nhedge = ['perhaps']\n"
    cache.toml(old)
    cache.toml(small)
    cache.save()
    cache._reset()
    new = old.replace(b"maybe", b"might")
    cache.toml(new)  # the pack as edited; the small file is not read by this process
    cache.save()
    cache._reset()
    kept = {k[1] for k in cache._entries() if k[0] == "toml"}
    assert new in kept and old not in kept
    # below the threshold a file another process reads is kept
    monkeypatch.setattr(diskcache, "STALE_TOML_BYTES", 10 ** 9)
    cache.toml(small)
    cache.toml(b"[cues]\nhedge = ['possibly']\n")
    cache.save()
    cache._reset()
    kept = {k[1] for k in cache._entries() if k[0] == "toml"}
    assert {new, small} <= kept


def test_a_rule_file_is_found_by_its_stat_and_an_edit_is_seen(cache, monkeypatch, tmp_path):
    # The packaged packs are found without reading them (and without carrying their text in the
    # cache); any change of the file changes its stat, so the edit is parsed.
    import tomllib

    monkeypatch.setattr(diskcache, "RACY_NS", -10 ** 12)  # as if written long ago
    pack = tmp_path / "team.toml"
    pack.write_bytes(b"[cues]\nhedge = ['maybe']\n")
    assert cache.toml_file(str(pack)) == {"cues": {"hedge": ["maybe"]}}
    cache.save()
    cache._reset()
    monkeypatch.setattr(diskcache, "_parse_toml", lambda data: pytest.fail("parsed again"))
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: pytest.fail("read again") if a[0] == str(pack)
                        else real_open(*a, **k))
    assert cache.toml_file(str(pack)) == {"cues": {"hedge": ["maybe"]}}
    assert not any(k[0] == "toml" for k in cache._entries())  # no copy of the text
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(diskcache, "RACY_NS", -10 ** 12)
    # The same size, another content, another mtime (set explicitly: a clock tick may hold both writes).
    before = os.stat(pack)
    pack.write_bytes(b"[cues]\nhedge = ['might']\n")
    os.utime(pack, ns=(before.st_atime_ns, before.st_mtime_ns + 10 ** 9))
    assert cache.toml_file(str(pack)) == {"cues": {"hedge": ["might"]}}
    with pytest.raises(tomllib.TOMLDecodeError):
        pack.write_bytes(b"[cues\n")
        cache.toml_file(str(pack))


def test_a_rule_file_changed_just_now_is_parsed_not_kept(cache, tmp_path):
    # Racily clean, as git says: a second write within the clock's tick could leave the stat as
    # it is, so a file this fresh is not kept by its stat.
    pack = tmp_path / "team.toml"
    pack.write_bytes(b"[cues]\nhedge = ['maybe']\n")
    assert cache.toml_file(str(pack)) == {"cues": {"hedge": ["maybe"]}}
    assert not any(k[0] == "tomlstat" for k in cache._new)
    with pytest.raises(OSError):
        cache.toml_file(str(tmp_path / "missing.toml"))
