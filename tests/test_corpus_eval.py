"""The labelled corpus as a regression floor (the same evaluation as bench/detector_report.py).

Floors sit a little under today's figures so a rule change that costs recall, or starts blocking
hypotheses, fails here. The held-out and fresh floors are lower on purpose: those splits were not
tuned on (see tests/corpus/README.md for what each split has and has not been used for).
"""

import importlib.util
import os

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("detector_report", os.path.join(REPO, "bench", "detector_report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

# (lang, split): (min assertion recall, max false-block rate on hypothesis + non-claims)
FLOORS = {
    ("en", "dev"): (0.95, 0.02),
    ("ja", "dev"): (0.95, 0.02),
    ("en", "heldout"): (0.85, 0.03),
    ("ja", "heldout"): (0.85, 0.03),
    ("en", "fresh"): (0.85, 0.05),
    ("ja", "fresh"): (0.85, 0.05),
    # Tuned now (its misses were read and general rules added twice), so this floor guards
    # the tuned level; its honest first-run figures are in tests/corpus/README.md.
    ("en", "blind"): (0.92, 0.0),
    ("ja", "blind"): (0.90, 0.0),
    # Tuned after their first runs too (first-run figures in tests/corpus/README.md).
    ("en", "blind2"): (0.85, 0.0),
    ("ja", "blind2"): (0.90, 0.0),
    ("en", "blind3"): (0.90, 0.0),
    ("ja", "blind3"): (0.95, 0.0),
    ("en", "blind4"): (0.80, 0.0),
    ("ja", "blind4"): (0.90, 0.0),
    ("en", "blind5"): (0.65, 0.0),
    ("ja", "blind5"): (0.82, 0.02),
    ("en", "blind6"): (0.75, 0.0),
    ("ja", "blind6"): (0.90, 0.0),
    ("en", "blind7"): (0.70, 0.0),
    ("ja", "blind7"): (0.80, 0.0),
    ("en", "blind8"): (0.82, 0.0),
    ("ja", "blind8"): (0.88, 0.0),
    ("en", "blind9"): (0.88, 0.0),
    ("ja", "blind9"): (0.92, 0.0),
    ("en", "blind10"): (0.92, 0.0),
    ("ja", "blind10"): (0.90, 0.03),
    ("en", "blind11"): (0.72, 0.03),
    ("ja", "blind11"): (0.70, 0.0),
    ("en", "blind12"): (0.95, 0.0),
    ("ja", "blind12"): (0.95, 0.0),
    ("en", "blind13"): (0.92, 0.0),
    ("ja", "blind13"): (0.95, 0.0),
    ("en", "blind14"): (0.90, 0.0),
    ("ja", "blind14"): (0.92, 0.03),
    ("en", "blind15"): (0.88, 0.0),
    ("ja", "blind15"): (0.92, 0.03),
    ("en", "blind16"): (0.92, 0.0),
    ("ja", "blind16"): (0.92, 0.0),
    ("en", "blind17"): (0.88, 0.03),
    ("ja", "blind17"): (0.97, 0.0),
    ("en", "blind18"): (0.92, 0.03),
    ("ja", "blind18"): (0.92, 0.03),
    ("en", "blind19"): (0.92, 0.0),
    ("ja", "blind19"): (0.95, 0.03),
    ("en", "blind20"): (0.92, 0.0),
    ("ja", "blind20"): (0.95, 0.0),
    ("en", "blind21"): (0.92, 0.0),
    ("ja", "blind21"): (0.90, 0.0),
    ("en", "blind22"): (0.92, 0.03),
    ("ja", "blind22"): (0.92, 0.03),
    ("en", "blind23"): (0.92, 0.03),
    ("ja", "blind23"): (0.95, 0.0),
    ("en", "blind24"): (0.88, 0.0),
    ("ja", "blind24"): (0.95, 0.03),
    ("en", "blind25"): (0.88, 0.0),
    ("ja", "blind25"): (0.92, 0.03),
    ("en", "blind26"): (0.86, 0.0),
    ("ja", "blind26"): (0.95, 0.0),
    ("en", "blind27"): (0.88, 0.0),
    ("ja", "blind27"): (0.92, 0.03),
    ("en", "blind28"): (0.74, 0.0),
    ("ja", "blind28"): (0.92, 0.0),
    ("en", "blind29"): (0.95, 0.0),
    ("ja", "blind29"): (0.97, 0.03),
    ("en", "blind30"): (0.97, 0.0),
    ("ja", "blind30"): (0.94, 0.0),
    ("en", "blind31"): (0.94, 0.0),
    ("ja", "blind31"): (0.97, 0.0),
    ("en", "blind32"): (0.97, 0.0),
    ("ja", "blind32"): (1.0, 0.0),
    ("en", "blind33"): (0.92, 0.0),
    ("ja", "blind33"): (0.97, 0.0),
    ("en", "blind34"): (1.0, 0.0),
    ("ja", "blind34"): (1.0, 0.0),
    ("en", "blind35"): (0.97, 0.0),
    ("ja", "blind35"): (0.94, 0.0),
    ("en", "blind36"): (1.0, 0.0),
    ("ja", "blind36"): (0.97, 0.0),
    ("en", "blind37"): (1.0, 0.0),
    ("ja", "blind37"): (0.97, 0.0),
    ("en", "blind38"): (0.94, 0.0),
    ("ja", "blind38"): (0.97, 0.0),
    ("en", "blind39"): (0.94, 0.0),
    ("ja", "blind39"): (1.0, 0.0),
    ("en", "blind40"): (1.0, 0.03),
    ("ja", "blind40"): (1.0, 0.0),
    ("en", "blind41"): (1.0, 0.0),
    ("ja", "blind41"): (1.0, 0.0),
    ("en", "blind42"): (0.97, 0.0),
    ("ja", "blind42"): (0.97, 0.0),
    ("en", "blind43"): (0.97, 0.0),
    ("ja", "blind43"): (0.97, 0.0),
    ("en", "blind44"): (0.97, 0.0),
    ("ja", "blind44"): (1.0, 0.0),
    ("en", "blind45"): (1.0, 0.0),
    ("ja", "blind45"): (0.97, 0.03),
    ("en", "blind46"): (1.0, 0.0),
    ("ja", "blind46"): (1.0, 0.0),
    ("en", "blind47"): (1.0, 0.0),
    ("ja", "blind47"): (1.0, 0.0),
    ("en", "blind48"): (1.0, 0.0),
    ("ja", "blind48"): (1.0, 0.0),
    ("en", "blind49"): (0.97, 0.0),
    ("ja", "blind49"): (1.0, 0.0),
    ("en", "blind50"): (1.0, 0.0),
    ("ja", "blind50"): (1.0, 0.0),
    ("en", "blind51"): (0.97, 0.0),
    ("ja", "blind51"): (1.0, 0.0),
    ("en", "blind52"): (0.97, 0.0),
    ("ja", "blind52"): (0.97, 0.0),
    ("en", "blind53"): (0.97, 0.0),
    ("ja", "blind53"): (0.94, 0.0),
    ("en", "blind54"): (1.0, 0.0),
    ("ja", "blind54"): (1.0, 0.0),
    ("en", "blind55"): (0.97, 0.0),
    ("ja", "blind55"): (0.97, 0.0),
    ("en", "blind56"): (0.94, 0.0),
    ("ja", "blind56"): (1.0, 0.0),
    ("en", "blind57"): (0.92, 0.025),
    ("ja", "blind57"): (1.0, 0.0),
    ("en", "blind58"): (1.0, 0.0),
    ("ja", "blind58"): (1.0, 0.0),
    ("en", "blind59"): (0.94, 0.025),
    ("ja", "blind59"): (1.0, 0.025),
    ("en", "blind60"): (0.97, 0.0),
    ("ja", "blind60"): (1.0, 0.0),
    ("en", "blind61"): (0.94, 0.0),
    ("ja", "blind61"): (0.97, 0.0),
    ("en", "blind62"): (0.92, 0.072),
    ("ja", "blind62"): (0.97, 0.0),
    ("en", "blind63"): (0.97, 0.0),
    ("ja", "blind63"): (1.0, 0.0),
    ("en", "blind64"): (0.97, 0.0),
    ("ja", "blind64"): (1.0, 0.0),
    ("en", "blind65"): (0.94, 0.0),
    ("ja", "blind65"): (1.0, 0.0),
    ("en", "blind66"): (1.0, 0.0),
    ("ja", "blind66"): (1.0, 0.0),
    ("en", "blind67"): (0.97, 0.0),
    ("ja", "blind67"): (1.0, 0.0),
    ("en", "blind68"): (0.97, 0.0),
    ("ja", "blind68"): (1.0, 0.0),
    ("en", "blind69"): (0.97, 0.0),
    ("ja", "blind69"): (1.0, 0.0),
    ("en", "blind70"): (0.97, 0.0),
    ("ja", "blind70"): (1.0, 0.0),
    ("en", "blind71"): (0.97, 0.0),
    ("ja", "blind71"): (0.97, 0.024),
    ("en", "blind72"): (1.0, 0.0),
    ("ja", "blind72"): (1.0, 0.0),
    ("en", "blind73"): (0.97, 0.0),
    ("ja", "blind73"): (0.97, 0.0),
    ("en", "blind74"): (0.94, 0.0),
    ("ja", "blind74"): (1.0, 0.0),
    ("en", "blind75"): (0.94, 0.0),
    ("ja", "blind75"): (1.0, 0.0),
    ("en", "blind76"): (0.89, 0.0),
    ("ja", "blind76"): (0.94, 0.0),
    ("en", "blind77"): (1.0, 0.0),
    ("ja", "blind77"): (1.0, 0.0),
    ("en", "blind78"): (0.94, 0.0),
    ("ja", "blind78"): (0.97, 0.0),
    ("en", "blind79"): (0.97, 0.0),
    ("ja", "blind79"): (0.97, 0.024),
    ("en", "blind80"): (0.97, 0.0),
    ("ja", "blind80"): (0.92, 0.0),
    ("en", "blind81"): (0.92, 0.0),
    ("ja", "blind81"): (0.94, 0.024),
    ("en", "blind82"): (0.89, 0.0),
    ("ja", "blind82"): (1.0, 0.0),
    ("en", "blind83"): (0.81, 0.0),
    ("ja", "blind83"): (0.89, 0.048),
    ("en", "blind84"): (0.81, 0.0),
    ("ja", "blind84"): (0.97, 0.0),
    ("en", "blind85"): (0.97, 0.0),
    ("ja", "blind85"): (1.0, 0.0),
    ("en", "blind86"): (0.97, 0.0),
    ("ja", "blind86"): (1.0, 0.0),
    ("en", "blind87"): (0.95, 0.0),
    ("ja", "blind87"): (0.97, 0.0),
    ("en", "blind88"): (0.94, 0.0),
    ("ja", "blind88"): (0.97, 0.0),
    ("en", "blind89"): (0.97, 0.0),
    ("ja", "blind89"): (1.0, 0.0),
    ("en", "blind90"): (0.97, 0.0),
    ("ja", "blind90"): (0.97, 0.0),
    ("en", "blind91"): (0.90, 0.0),
    ("ja", "blind91"): (0.97, 0.0),
    ("en", "blind92"): (0.94, 0.0),
    ("ja", "blind92"): (1.0, 0.0),
    ("en", "blind93"): (0.81, 0.0),
    ("ja", "blind93"): (1.0, 0.0),
    ("en", "blind94"): (0.92, 0.0),
    ("ja", "blind94"): (0.94, 0.0),
    ("en", "blind95"): (0.97, 0.0),
    ("ja", "blind95"): (0.97, 0.0),
    ("en", "blind96"): (0.92, 0.0),
    ("ja", "blind96"): (1.0, 0.0),
    ("en", "blind97"): (0.97, 0.0),
    ("ja", "blind97"): (0.97, 0.0),
    ("en", "blind98"): (0.97, 0.0),
    ("ja", "blind98"): (0.97, 0.0),
    ("en", "blind99"): (0.97, 0.0),
    ("ja", "blind99"): (0.97, 0.0),
    ("en", "blind100"): (0.97, 0.0),
    ("ja", "blind100"): (0.97, 0.0),
    ("en", "blind101"): (0.86, 0.0),
    ("ja", "blind101"): (0.97, 0.0),
    ("en", "blind102"): (0.89, 0.0),
    ("ja", "blind102"): (1.0, 0.0),
    ("en", "blind103"): (0.89, 0.0),
    ("ja", "blind103"): (1.0, 0.0),
    ("en", "blind104"): (0.92, 0.0),
    ("ja", "blind104"): (1.0, 0.0),
    ("en", "blind105"): (0.97, 0.0),
    ("ja", "blind105"): (0.97, 0.0),
    ("en", "blind106"): (0.94, 0.0),
    ("ja", "blind106"): (1.0, 0.0),
    ("en", "blind107"): (0.97, 0.0),
    ("ja", "blind107"): (0.97, 0.0),
    ("en", "blind108"): (0.89, 0.0),
    ("ja", "blind108"): (0.97, 0.0),
    ("en", "blind109"): (0.97, 0.0),
    ("ja", "blind109"): (1.0, 0.0),
    # ja_blind110.txt:147, a first question whose setup is a te-form chain into the crash
    # (「4 ノードで学習させていて、step 200 前後で毎回プロセスが落ちます」), stays blocked
    ("en", "blind110"): (0.97, 0.0),
    ("ja", "blind110"): (1.0, 0.024),
    ("en", "blind111"): (1.0, 0.0),
    ("ja", "blind111"): (1.0, 0.0),
    ("en", "blind112"): (0.92, 0.0),
    ("ja", "blind112"): (0.97, 0.0),
    ("en", "blind113"): (1.0, 0.0),
    ("ja", "blind113"): (0.97, 0.0),
    ("en", "blind114"): (1.0, 0.0),
    ("ja", "blind114"): (1.0, 0.0),
    ("en", "blind115"): (1.0, 0.0),
    ("ja", "blind115"): (1.0, 0.0),
    ("en", "blind116"): (1.0, 0.0),
    ("ja", "blind116"): (0.97, 0.0),
    ("en", "blind117"): (0.97, 0.0),
    ("ja", "blind117"): (1.0, 0.0),
    ("en", "blind118"): (0.97, 0.0),
    ("ja", "blind118"): (0.92, 0.0),
    ("en", "blind119"): (1.0, 0.0),
    ("ja", "blind119"): (0.97, 0.0),
    ("en", "blind120"): (0.97, 0.0),
    ("ja", "blind120"): (0.97, 0.0),
    ("en", "blind121"): (1.0, 0.0),
    ("ja", "blind121"): (1.0, 0.0),
    ("en", "blind122"): (1.0, 0.0),
    ("ja", "blind122"): (1.0, 0.0),
    ("en", "blind123"): (0.92, 0.0),
    ("ja", "blind123"): (1.0, 0.0),
    ("en", "blind124"): (1.0, 0.0),
    ("ja", "blind124"): (1.0, 0.0),
    ("en", "blind125"): (1.0, 0.0),
    ("ja", "blind125"): (0.97, 0.0),
    ("en", "blind126"): (0.97, 0.0),
    ("ja", "blind126"): (1.0, 0.0),
    ("en", "blind127"): (0.92, 0.0),
    ("ja", "blind127"): (1.0, 0.0),
    ("en", "blind128"): (1.0, 0.0),
    ("ja", "blind128"): (1.0, 0.0),
    ("en", "blind129"): (1.0, 0.0),
    ("ja", "blind129"): (1.0, 0.0),
    ("en", "blind130"): (1.0, 0.0),
    ("ja", "blind130"): (0.97, 0.0),
    ("en", "blind131"): (0.97, 0.0),
    ("ja", "blind131"): (1.0, 0.0),
    ("en", "blind132"): (1.0, 0.0),
    ("ja", "blind132"): (0.94, 0.0),
    ("en", "blind133"): (1.0, 0.0),
    ("ja", "blind133"): (1.0, 0.0),
    ("en", "blind134"): (1.0, 0.0),
    ("ja", "blind134"): (1.0, 0.0),
    ("en", "blind135"): (1.0, 0.0),
    ("ja", "blind135"): (1.0, 0.0),
    ("en", "blind136"): (1.0, 0.0),
    ("ja", "blind136"): (1.0, 0.0),
    ("en", "blind137"): (1.0, 0.0),
    ("ja", "blind137"): (1.0, 0.0),
    ("en", "blind138"): (1.0, 0.0),
    ("ja", "blind138"): (1.0, 0.0),
    ("en", "blind139"): (1.0, 0.0),
    ("ja", "blind139"): (1.0, 0.0),
    ("en", "blind140"): (1.0, 0.0),
    ("ja", "blind140"): (1.0, 0.0),
    ("en", "blind141"): (0.94, 0.0),
    ("ja", "blind141"): (1.0, 0.0),
    ("en", "blind142"): (0.89, 0.048),
    ("ja", "blind142"): (0.97, 0.0),
    # Held out: written blind, run once (first runs in the README), NOT read. Floors at that level.
    ("en", "blind143"): (0.89, 0.024),
    ("ja", "blind143"): (0.89, 0.048),
    ("en", "blind144"): (0.97, 0.024),
    ("ja", "blind144"): (0.94, 0.024),
}


@pytest.fixture(scope="module")
def results():
    return report.run(splits=sorted({split for _, split in FLOORS}))


def test_the_corpus_is_big_enough(results):
    assert set(results) == set(FLOORS)
    assert sum(n for _, _, n in results.values()) >= 350
    for (lang, split), (s, _, _) in results.items():
        big = split != "fresh"
        assert s["assertion_n"] >= (20 if big else 10) and s["nonclaim_n"] >= (30 if big else 20), (lang, split)
        assert s["cited_n"] >= 4, (lang, split)


@pytest.mark.parametrize("key", sorted(FLOORS))
def test_floor(results, key):
    s, wrong, _ = results[key]
    min_recall, max_false_block = FLOORS[key]
    assert s["recall"] >= min_recall, [w.where for w, _ in wrong]
    assert s["false_block"] <= max_false_block, [w.where for w, _ in wrong]


@pytest.mark.parametrize("key", [("en", "dev"), ("ja", "dev")])
def test_every_cited_assertion_is_allowed_on_dev(results, key):
    assert results[key][0]["cited_allowed"] == 1.0


# The held-out splits, written blind and not read yet (the last entries of FLOORS).
UNREAD = {"blind143", "blind144"}


def test_detector_beats_the_keyword_baseline_everywhere(results):
    for (lang, split), (s, _, _) in results.items():
        assert s["recall"] > s["base_recall"], (lang, split)
        if split in UNREAD:
            # a first run may tie the keyword list on false blocks (en_blind136 did: 4 of 46 both);
            # reading the split to win that tie would end its use as unseen text
            assert s["false_block"] <= s["base_false_block"], (lang, split)
        else:
            assert s["false_block"] < s["base_false_block"], (lang, split)


def test_unread_splits_are_the_held_out_floors():
    held = [split for (_, split) in FLOORS]
    assert UNREAD == set(held[held.index(min(UNREAD, key=held.index)):])


def test_corpus_parser_reads_blocks_and_evidence(tmp_path):
    p = tmp_path / "en_dev.txt"
    p.write_text("# comment\nA: one line\n%% C\nThe message (E1).\n@@ E1 $ cmd one\n$ heredoc line\n"
                 "output line\n%%\nX: last\n", encoding="utf-8")
    items = report.load_corpus(str(p))
    assert [i.label for i in items] == ["assertion", "cited", "none"]
    ev = items[1].evidence[0]
    assert (ev.id, ev.input_text, ev.output) == ("E1", "cmd one\nheredoc line", "output line")
    assert items[1].text == "The message (E1)."


# Cited items the detector blocks on purpose: en_blind11.txt:161 quotes `Rate: 100`, 9
# characters, under the 10 a quote needs to count on its own (rules/en.toml min_quote_chars).
CITED_BELOW_QUOTE_FLOOR = {("en", "blind11"): 1,
                           # ja_blind28.txt:558: an elaboration after the cited bullets, in
                           # a paragraph of its own, has no quote of its own, and its cause
                           # does not point back at the cited finding (citation.follow_on)
                           ("ja", "blind28"): 1,
                           # ja_blind60.txt:205: after the cited claim and its quoted log
                           # line, a paragraph that reads the log further ("the other ranks
                           # run ALLREDUCE at the same SeqNum") quotes nothing of its own
                           ("ja", "blind60"): 1,
                           # ja_blind68.txt:185: under 「## 結論」 a conclusion that joins three
                           # cited findings into one chain quotes nothing of its own
                           ("ja", "blind68"): 1,
                           # ja_blind74.txt:479: under the cited root cause and its cited
                           # findings, a paragraph of its own that explains the mechanism
                           # (「計算グラフごと保持されるため…」) quotes nothing
                           ("ja", "blind74"): 1,
                           # en_blind76.txt:47: a summary that rules NCCL out and names the
                           # rank that never arrives, above the cited findings that show it
                           ("en", "blind76"): 1,
                           # en_blind79.txt:325: under "### Root cause" a claim that points at
                           # its cited finding by name ("(finding 2)") quotes nothing of its own
                           ("en", "blind79"): 1,
                           # ja_blind80.txt:269: under 「## 結論」 a sentence that only counts the
                           # causes (「原因は 2 つあります」) before the cited subsections name them
                           ("ja", "blind80"): 1,
                           # ja_blind88.txt:263: the quote is the generic `No such file or
                           # directory` (citation.generic_quote), which alone shows no cause
                           ("ja", "blind88"): 1,
                           # ja_blind96.txt:206: after the cited cause and its cited list, a
                           # paragraph giving the mechanism (「rank 0 以外からも `save_checkpoint`
                           # を呼んでいたため、…ロックを取り合っていました」) quotes nothing long enough
                           ("ja", "blind96"): 1,
                           # ja_blind93.txt:413: under 「## 原因」 the cited cause and its cited
                           # list, then a paragraph that reads the quoted labels again
                           # (「ラベルが -100 なので、EOS を…学習していません」) quotes nothing
                           ("ja", "blind93"): 1,
                           # ja_blind111.txt:288: under "## Summary" only the announcement
                           # (「〜件の原因を特定しました」); the findings follow in sibling sections
                           # "## 1." / "## 2." whose sentences claim nothing, so it has no cited
                           # finding to draw on
                           ("ja", "blind111"): 1,
                           # en_blind131.txt:460: "So the NaN originates in the fp16 backward
                           # pass" concludes from two quoted log lines that show only the
                           # failure values (grad_norm inf, then loss nan), which read alone
                           # are the symptom a trap would quote too
                           ("en", "blind131"): 1,
                           # en_blind142.txt:161: under "## Root cause" the sentence that
                           # quotes the failing frame and the allocator's message is read as
                           # a claim of its own, and its quote ends inside the frame string
                           ("en", "blind142"): 1,
                           # held out, not read: blocked cited answers at the first run
                           ("ja", "blind143"): 2,
}
# Held-out splits not read yet may keep their first-run share of ruled-out causes blocked.
NEGATED_BLOCKED_CEILING = {
    ("ja", "blind144"): 0.12,
}


def test_every_blind_split_cites_and_traps_hold(results):
    """Cited assertions pass and negated causes are not blocked, on every blind split."""
    for (lang, split), (s, wrong, _) in results.items():
        if split.startswith("blind"):
            blocked = round((1 - s["cited_allowed"]) * s["cited_n"])
            assert blocked == CITED_BELOW_QUOTE_FLOOR.get((lang, split), 0), (lang, split)
            assert s["negated_blocked"] <= NEGATED_BLOCKED_CEILING.get((lang, split), 0.1), (
                lang, split, [w.where for w, _ in wrong])


@pytest.mark.skipif(not os.path.isdir(report.REAL), reason="../shared/fixtures/real is not beside the repo")
def test_real_agent_messages():
    """Real assistant messages from public transcripts, labelled by someone who had not read the
    detector: nothing that is not a diagnosis is blocked, and most diagnoses are found."""
    got = report.run(splits=("real",))
    s, wrong, n = got[("en", "real")]
    assert n >= 240  # every labelled message was found again under its key
    assert s["false_block"] == 0.0, [w.where for w, _ in wrong]
    assert s["recall"] >= 0.7, [w.where for w, _ in wrong]


def test_a_malformed_corpus_line_is_an_error_not_a_skip(tmp_path):
    p = tmp_path / "en_x.txt"
    p.write_text("# comment\nA: The job OOMs because of the eval loop.\nX (Slack): dropped?\n", encoding="utf-8")
    with pytest.raises(ValueError, match="en_x.txt:3"):
        report.load_corpus(str(p))


def test_compare_lists_fixed_and_broken_items_only_over_splits_both_runs_scored():
    old = {"splits": ["en_dev", "en_blind9", "en_real"],
           "wrong": ["en_dev.txt:3", "en_blind9.txt:5", "en_blind70.txt:1", "t/a.jsonl|u1|abc"]}
    new = {"splits": ["en_dev", "en_blind9", "en_blind70", "en_real"],
           "wrong": ["en_dev.txt:7", "en_blind70.txt:2", "t/a.jsonl|u1|abc"]}
    fixed, broke = report.compare(old, new)
    # en_blind70 was held out of the first run: its items are neither fixed nor broken
    assert fixed == ["en_blind9.txt:5", "en_dev.txt:3"]
    assert broke == ["en_dev.txt:7"]
