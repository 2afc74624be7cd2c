"""Rule packs: packaged, user and project files; merging; validation by `ledger rules`."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hookrun import REPO
from ledger.cli import cli
from ledger.detect import analyze, decision, load_rules
from ledger.detect import rules as detect_rules

# Not a claim for the packaged rules ("and" is no cue); a project cue for "zapped" makes it one.
MSG = "The sync job zapped the checkpoint and resume failed."


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def project_rule(tmp_path, name, text):
    proj = tmp_path / "proj"
    write(str(proj / ".evidence-ledger" / "rules" / name), text)
    return str(proj)


def test_packaged_packs_load():
    r = load_rules()
    assert {p.name: p.lang for p in r.packs} == {"en": "en", "ja": "ja"}
    assert r.errors == []


def test_a_project_rule_adds_a_cue_that_changes_the_decision(tmp_path):
    proj = project_rule(tmp_path, "team.toml",
                        "[pack]\nname = \"en\"\n[cues]\ncause_verb = ['\\bzap(?:s|ped)\\b']\n")
    assert decision(analyze(MSG, rules=load_rules())) == "allow"
    assert decision(analyze(MSG, rules=load_rules(project_dir=proj))) == "block"
    # found from a sub-directory too (walking up)
    sub = os.path.join(proj, "src", "pkg")
    os.makedirs(sub)
    assert decision(analyze(MSG, rules=load_rules(project_dir=sub))) == "block"


def test_a_user_rule_can_remove_a_cue(tmp_path):
    msg = "The job crashed because the disk was full."
    assert decision(analyze(msg, rules=load_rules())) == "block"
    user = os.path.join(os.environ["XDG_CONFIG_HOME"], "evidence-ledger", "rules", "mine.toml")
    write(user, "[pack]\nname = \"en\"\n[remove.cues]\nconnective = ['\\bbecause\\b']\n")
    assert decision(analyze(msg, rules=load_rules())) == "allow"


def test_a_new_pack_adds_to_its_language(tmp_path):
    proj = project_rule(tmp_path, "extra.toml",
                        "[pack]\nname = \"en-extra\"\nlang = \"en\"\n[cues]\nhedge = ['\\bIIRC\\b']\n")
    msg = "The OOM is caused by the eval loop, IIRC."
    assert analyze(msg, rules=load_rules()).claims[0].kind == "assertion"
    r = load_rules(project_dir=proj)
    assert [p.name for p in r.packs] == ["en", "ja", "en-extra"]
    assert analyze(msg, rules=r).claims[0].kind == "hypothesis"


def test_a_broken_file_is_skipped_by_the_hook_path_and_reported(tmp_path):
    proj = project_rule(tmp_path, "bad.toml", "[pack]\nname = \"en\"\n[cues]\nhedge = ['(unclosed']\n")
    r = load_rules(project_dir=proj)
    assert analyze("The OOM is caused by the eval loop.", rules=r).claims[0].kind == "assertion"
    assert any("hedge" in str(e) for e in r.errors)


def test_rules_are_compiled_once_per_file_set(tmp_path):
    assert load_rules() is load_rules()
    proj = project_rule(tmp_path, "x.toml", "[pack]\nname = \"en\"\n[cues]\nfailure = ['\\bwonky\\b']\n")
    first = load_rules(project_dir=proj)
    assert load_rules(project_dir=proj) is first
    write(os.path.join(proj, ".evidence-ledger", "rules", "x.toml"),
          "[pack]\nname = \"en\"\n[cues]\nfailure = ['\\bwonkier\\b']\n")
    os.utime(os.path.join(proj, ".evidence-ledger", "rules", "x.toml"), (1, 1))
    assert load_rules(project_dir=proj) is not first


def test_probe_files_are_not_detector_packs(tmp_path):
    proj = project_rule(tmp_path, "probe-extra.toml", "version = 1\n[[signature]]\nid = \"x\"\n")
    assert load_rules(project_dir=proj).errors == []


def test_ledger_rules_lists_packs_and_validates(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["rules", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [p["name"] for p in data["packs"]] == ["en", "ja"] and data["errors"] == []
    res = runner.invoke(cli, ["rules"])
    assert res.exit_code == 0 and "en.toml" in res.output and "all valid" in res.output


def test_ledger_rules_names_the_file_and_the_entry(tmp_path):
    proj = project_rule(tmp_path, "bad.toml",
                        "[pack]\nname = \"en\"\n[cues]\nhedge = ['ok', '(unclosed']\ncause_verbs = ['x']\n"
                        "[citation]\nmin_quote_chars = 'ten'\n")
    res = CliRunner().invoke(cli, ["rules", "--project-dir", proj])
    assert res.exit_code == 1
    bad = os.path.join(proj, ".evidence-ledger", "rules", "bad.toml")
    assert "%s: cues.hedge[1]: bad pattern '(unclosed'" % bad in res.output
    assert "%s: cues.cause_verbs: unknown key" % bad in res.output
    assert "%s: citation.min_quote_chars:" % bad in res.output


def test_ledger_rules_reports_invalid_toml_and_a_new_pack_without_lang(tmp_path):
    proj = project_rule(tmp_path, "a.toml", "[pack\nname=")
    res = CliRunner().invoke(cli, ["rules", "--project-dir", proj])
    assert res.exit_code == 1 and "a.toml: invalid TOML" in res.output
    proj = project_rule(tmp_path, "a.toml", "[pack]\nname = \"brand-new\"\n")
    res = CliRunner().invoke(cli, ["rules", "--project-dir", proj])
    assert res.exit_code == 1 and "needs a `lang`" in res.output


def test_global_inline_flags_are_rejected_with_advice(tmp_path):
    proj = project_rule(tmp_path, "f.toml", "[pack]\nname = \"en\"\n[cues]\nhedge = ['(?i)meh']\n")
    res = CliRunner().invoke(cli, ["rules", "--project-dir", proj])
    assert res.exit_code == 1 and "scoped group" in res.output


def test_an_installed_layout_uses_the_packaged_copy(tmp_path):
    # What the wheel holds: ledger/ with the rule packs force-included as ledger/_data/rules.
    site = tmp_path / "site"
    shutil.copytree(os.path.join(REPO, "ledger"), str(site / "ledger"),
                    ignore=shutil.ignore_patterns("__pycache__", "_data"))
    shutil.copytree(os.path.join(REPO, "rules"), str(site / "ledger" / "_data" / "rules"))
    code = ("from ledger.detect import analyze, load_rules, decision\n"
            "r = load_rules()\n"
            "print([p.sources[0][1] for p in r.packs])\n"
            "print(decision(analyze('学習が落ちたのはメモリ不足のためです。', rules=r)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path),
                         env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "PYTHONPATH": str(site),
                              "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]})
    assert out.returncode == 0, out.stderr
    paths, verdict = out.stdout.strip().split("\n")
    assert str(site / "ledger" / "_data" / "rules") in paths and REPO + "/rules" not in paths
    assert verdict == "block"


def test_pattern_lists_in_the_schema_match_the_loader():
    from ledger import rules_schema

    for section, keys in detect_rules.PATTERN_LISTS.items():
        model = {"cues": rules_schema.Cues, "headings": rules_schema.Headings,
                 "labels": rules_schema.Labels, "citation": rules_schema.Citation,
                 "grammar": rules_schema.Grammar}[section]
        assert set(keys) <= set(model.model_fields)


def _packaged_files():
    return [p for o, p in detect_rules.rule_files() if o == "package"]


def test_the_stop_path_compiles_joined_lists_not_each_pattern(monkeypatch):
    # Compiling ~300 packaged patterns one by one (and again inside the joined alternation) was
    # most of a Stop process's time. Now loading compiles nothing, and analysing a message
    # compiles at most one joined pattern per list it touches (through the regex cache, which
    # calls re.compile on a miss, so both are counted).
    import re

    from ledger import diskcache

    calls = []

    def counting(real):
        def compile(pattern, flags=0):
            calls.append(pattern)
            return real(pattern, flags)
        return compile

    monkeypatch.setattr(detect_rules, "_CACHE", {})
    monkeypatch.setattr(diskcache, "compile", counting(diskcache.compile))
    monkeypatch.setattr(re, "compile", counting(re.compile))
    monkeypatch.setattr(diskcache, "_new", {})
    monkeypatch.setattr(diskcache, "_loaded", {})
    r = load_rules()
    assert calls == []
    analyze("The job crashed because the disk was full. 学習が落ちたのはメモリ不足のためです。", rules=r)
    n_patterns = sum(p.count() for p in r.packs)
    # A short list compiles joined; a long one (Matcher's prefilter) compiles alone only the few
    # patterns a sentence may match, and its joined program only when a sentence may match them
    # all. With the cache empty, each compile is counted twice (the cache, then re.compile).
    compiled = set(calls)
    assert 0 < len(compiled) < n_patterns / 5, (len(compiled), n_patterns)


def test_every_packaged_pattern_compiles_alone_and_every_list_joins():
    # The hook no longer compiles packaged patterns one by one, so a broken one must fail here.
    from ledger import rules_schema

    for path in _packaged_files():
        detect_rules.read_file(path, check_patterns=True)
        assert rules_schema.validate_file(path) == [], path
    r = load_rules()
    for lang in ("en", "ja"):
        lr = r.for_lang(lang)
        for sec, keys in detect_rules.PATTERN_LISTS.items():
            for key in keys:
                m = getattr(lr, key)
                if m:
                    m.search("")
                    assert m._one is not None, (lang, key)  # joined, not the slow fallback
                    assert len(m.each()) == len(m.patterns), (lang, key)


def test_a_matcher_with_a_broken_pattern_keeps_the_good_ones():
    m = detect_rules.Matcher(["\\bslow\\b", "(unclosed", "\\bhung\\b"], 2)
    assert m.search("it hung") is not None and m.search("it is SLOW") is not None
    assert [x.group(0) for x in m.finditer("slow then hung")] == ["slow", "hung"]
    assert len(m.each()) == 2


def test_a_broken_packaged_pattern_is_named_by_ledger_rules_and_skipped_by_the_hook(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    shutil.copytree(os.path.join(REPO, "rules"), str(pkg))
    bad = pkg / "extra.toml"
    bad.write_text("[pack]\nname = \"en\"\n[cues]\nhedge = ['ok', '(unclosed']\n", encoding="utf-8")
    monkeypatch.setattr(detect_rules.paths, "rules_dir", lambda: str(pkg))
    monkeypatch.setattr(detect_rules, "_CACHE", {})
    res = CliRunner().invoke(cli, ["rules", "--project-dir", str(tmp_path)])
    assert res.exit_code == 1
    assert "%s: cues.hedge[1]: bad pattern '(unclosed'" % bad in res.output
    r = load_rules(project_dir=str(tmp_path))
    assert decision(analyze("The job crashed because the disk was full.", rules=r)) == "block"


# The Matcher's prefilter ------------------------------------------------------------------------

def test_the_prefilter_folds_every_character_re_matches_to_an_ascii_letter():
    # A sentence "may match" a pattern when its lowered text holds one of the pattern's literal
    # strings; for that to be sound, every character `re` takes for an ASCII letter when it
    # ignores case must lower (after detect_rules._FOLD) to that letter.
    import re
    import string

    others = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF)
    for letter in string.ascii_lowercase:
        for m in re.finditer(letter, others, re.IGNORECASE):
            assert m.group(0).translate(detect_rules._FOLD).lower() == letter, (letter, hex(ord(m.group(0))))


def _prefiltered():
    r = load_rules()
    out = []
    for lang in ("en", "ja"):
        lr = r.for_lang(lang)
        for key in sorted(vars(lr)):
            m = getattr(lr, key)
            if isinstance(m, detect_rules.Matcher) and m.patterns:
                m.search("")
                if m._needs is not None:
                    joined = re.compile("|".join("(?:%s)" % p for p in m.patterns), m.flags)
                    out.append((lang + "." + key, m, joined))
    assert len(out) >= 10
    return out


def _sample_texts():
    texts = []
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "corpus", "*.txt"))):
        with open(path, encoding="utf-8") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        texts.extend(lines[::40])
    odd = [t.replace("i", "\u0130").replace("s", "\u017f") for t in texts[::7]]
    odd += [t.replace("k", "\u212a").replace("I", "\u0131").upper() for t in texts[::11]]
    return texts + odd


def test_prefiltered_lists_find_what_the_joined_alternation_finds():
    texts = _sample_texts()
    assert len(texts) > 200
    for name, matcher, joined in _prefiltered():
        for text in texts:
            assert [m.span() for m in matcher.finditer(text)] == [m.span() for m in joined.finditer(text)], (name, text)
            for pos in (0, len(text) // 3):
                got, want = matcher.search(text, pos), joined.search(text, pos)
                assert (got and got.span()) == (want and want.span()), (name, text, pos)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_prefiltered_lists_on_made_up_sentences(data):
    # Words from the patterns' own literal strings, so that many patterns nearly match.
    lists = _PREFILTERED or _PREFILTERED.extend(_prefiltered()) or _PREFILTERED
    name, matcher, joined = data.draw(st.sampled_from(lists))
    words = sorted(matcher._by_string) or ["x"]  # every string some unit needs
    parts = data.draw(st.lists(st.one_of(st.sampled_from(words), st.sampled_from(
        [" ", "  ", ", ", ". ", "the ", "not ", "n't ", "is ", "was ", "because ", "\u0130", "\u017f", "K"]),
        st.text(max_size=4)), max_size=25))
    text = "".join(parts)
    assert [m.span() for m in matcher.finditer(text)] == [m.span() for m in joined.finditer(text)], (name, text)
    got, want = matcher.search(text), joined.search(text)
    assert (got and got.span()) == (want and want.span()), (name, text)


_PREFILTERED = []


def test_a_project_grammar_entry_changes_what_heads_a_list(tmp_path):
    """The grammar lists are data too: a team that heads lists with "...below" can say so."""
    msg = ("Open questions below\n\n- The loader hangs because the workers share one lock file.\n"
           "- The eval is slow because every batch is padded to 4096.\n")
    assert decision(analyze(msg, rules=load_rules())) == "block"
    proj = project_rule(tmp_path, "team.toml", "[pack]\nname = \"en\"\n[grammar]\nlist_head = ['\\bbelow\\s*$']\n")
    assert decision(analyze(msg, rules=load_rules(project_dir=proj))) == "allow"


def test_a_broken_grammar_entry_is_named_by_ledger_rules(tmp_path):
    from click.testing import CliRunner

    from ledger.cli import cli

    proj = project_rule(tmp_path, "bad.toml", "[pack]\nname = \"en\"\n[grammar]\ntopic = ['(unclosed']\n")
    result = CliRunner().invoke(cli, ["rules", "--project-dir", proj])
    assert result.exit_code != 0
    assert "bad.toml" in result.output and "grammar.topic" in result.output


def test_every_pattern_list_the_detector_reads_is_one_a_rule_file_may_set(tmp_path):
    # The schema takes its lists from the detector's (rules.PATTERN_LISTS): a list added there
    # cannot be refused as an unknown key in the packs that ship it, nor in a user's file.
    from ledger import rules_schema
    from ledger.detect import rules as detect_rules

    lines = ['[pack]\nname = "x"\n']
    for section, keys in detect_rules.PATTERN_LISTS.items():
        lines.append("[%s]\n" % section)
        lines.extend("%s = ['\\bword\\b']\n" % key for key in keys)
    path = tmp_path / "all.toml"
    path.write_text("".join(lines), encoding="utf-8")
    assert rules_schema.validate_file(str(path)) == []
