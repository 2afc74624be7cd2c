"""Citations: quotes of recorded output and evidence ids, and what does not count."""

import pytest

from ledger.detect import Evidence, analyze, decision, evidence_from_rows
from ledger.detect.cite import normalize

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)"


def claim(message, evidence):
    claims = analyze(message, evidence=evidence).claims
    assert len(claims) == 1, claims
    return claims[0]


def test_inline_quote_of_recorded_output_cites():
    c = claim("The crash comes from `CUDA out of memory. Tried to allocate 2.00 GiB`.",
              [Evidence("E1", "noise"), Evidence("E3", "Traceback\n" + OOM, "python train.py")])
    assert c.cited and c.evidence == ["E3"]


def test_a_quote_in_no_output_does_not_cite_and_is_not_a_near_miss_when_far():
    c = claim("The crash comes from `segmentation fault in the collate worker`.", [Evidence("E3", OOM)])
    assert not c.cited and c.evidence == []


@pytest.mark.parametrize("form", ['"%s"', "\u201c%s\u201d", "\u300c%s\u300d"])
def test_quote_forms(form):
    q = "CUDA out of memory. Tried to allocate 2.00 GiB"
    c = claim("The crash comes from " + form % q + ".", [Evidence("E3", OOM)])
    assert c.cited


def test_fenced_block_attached_to_the_claim_cites():
    msg = "The run crashed because the batch is too big:\n\n```\n%s\n```" % OOM
    assert claim(msg, [Evidence("E3", "Traceback\n" + OOM)]).cited


def test_block_quote_and_evidence_line_are_attached_but_a_later_paragraph_is_not():
    ev = [Evidence("E3", OOM), Evidence("E4", "other")]
    assert claim("The run crashed because of the batch size.\n\n> " + OOM, ev).cited
    assert claim("The run crashed because of the batch size.\n\nEvidence: E4", ev).evidence == ["E4"]
    assert claim("The run crashed because of the batch size.\n\n**Evidence:**\n\n> " + OOM, ev).cited
    far = "The run crashed because of the batch size.\n\nUnrelated words here.\n\n> " + OOM
    assert not claim(far, ev).cited


def test_the_citation_of_one_paragraph_does_not_cover_another():
    msg = ("The run crashed because of the batch size (E3).\n\n"
           "The eval hangs because rank 3 skips the barrier.")
    claims = analyze(msg, evidence=[Evidence("E3", OOM)]).claims
    assert [c.cited for c in claims] == [True, False]
    assert decision(analyze(msg, evidence=[Evidence("E3", OOM)])) == "block"


@pytest.mark.parametrize("form", ["E12", "[E12]", "(E12)", "evidence E12", "(evidence: E12)", "\uff08E12\uff09"])
def test_evidence_id_forms(form):
    c = claim("The job was killed because it ran out of memory %s." % form, [Evidence("E12", "Killed")])
    assert c.cited and c.evidence == ["E12"]


def test_japanese_evidence_id_forms():
    ev = [Evidence("E12", "Killed")]
    assert claim("メモリ不足のためジョブが落ちました(証拠E12)。", ev).cited
    assert claim("メモリ不足のためジョブが落ちました。\n\n証拠：E12", ev).cited
    assert claim("メモリ不足のためジョブが落ちました［Ｅ１２］。", ev).cited


def test_an_unknown_id_does_not_cite_and_is_reported():
    c = claim("The job was killed because it ran out of memory (E99).", [Evidence("E12", "Killed")])
    assert not c.cited
    assert c.near_misses[0]["quote"] == "E99"


def test_ids_inside_other_tokens_are_not_ids():
    ev = [Evidence("E2", "x"), Evidence("E12", "x")]
    assert not claim("The loss exploded because the LR was 1.5E12 in `cfg.E2E`.", ev).cited


def test_self_authored_text_is_not_evidence():
    ev = [Evidence("E1", "CUDA out of memory in the forward pass", 'echo "CUDA out of memory in the forward pass"')]
    c = claim("The crash is caused by `CUDA out of memory in the forward pass`.", ev)
    assert not c.cited
    assert c.near_misses and "written by the agent" in c.near_misses[0]["why"]


def test_heredoc_content_read_back_is_not_evidence():
    text = "labels[mask] = -100  # keep padding out of the loss"
    ev = [Evidence("E1", "", "cat > fix.py <<'EOF'\n%s\nEOF" % text), Evidence("E2", text, "cat fix.py")]
    assert not claim("The loss is NaN because of this line: `%s`." % text, ev).cited


def test_a_full_grep_line_beyond_the_pattern_counts():
    ev = [Evidence("E5", "train.py:212: RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB",
                   'grep -rn "CUDA out of memory" logs/')]
    assert not claim("The job crashed with `CUDA out of memory`, caused by the eval batch.", ev).cited
    c = claim("The job crashed with `train.py:212: RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB`, "
              "caused by the eval batch.", ev)
    assert c.cited and c.evidence == ["E5"]


@pytest.mark.parametrize("q", ["nan", "0 %", "12345", "error", "Killed", "exit code 137", "loss=nan"])
def test_too_short_or_generic_quotes_do_not_count(q):
    ev = [Evidence("E1", "step 10 loss=nan 0 % 12345 error Killed exit code 137")]
    assert not claim("The run failed because of `%s`." % q, ev).cited


def test_ellipsis_segments_must_be_in_order_in_one_output():
    out = "Traceback (most recent call last):\n  File \"train.py\", line 88\n" + OOM
    ev = [Evidence("E3", out), Evidence("E4", "Tried to allocate 2.00 GiB (GPU 0;")]
    ok = 'The crash is caused by this: "File \\"train.py\\", line 88 ... Tried to allocate 2.00 GiB".'
    ok = "The crash is caused by this: `File \"train.py\", line 88 ... Tried to allocate 2.00 GiB`."
    assert claim(ok, ev).cited
    assert claim(ok.replace("...", "\u2026"), ev).cited
    backwards = "The crash is caused by this: `Tried to allocate 2.00 GiB ... File \"train.py\", line 88`."
    assert not claim(backwards, ev).cited
    split = "The crash is caused by this: `Traceback (most recent call last): ... (GPU 0; 79.15 GiB total capacity)`."
    assert claim(split, ev).cited
    across = "The crash is caused by this: `File \"train.py\", line 88 ... qqq never printed anywhere`."
    assert not claim(across, ev).cited


def test_normalisation_ansi_nfkc_curly_and_whitespace():
    out = "\x1b[31mERROR\x1b[0m:   worker\t\tdied  with ＳＩＧＫＩＬＬ at “step 7”"
    ev = [Evidence("E1", out)]
    assert claim("The job failed because `ERROR: worker died with SIGKILL at \"step 7\"`.", ev).cited
    assert normalize("a\u00a0 b\n\nc") == "a b c"


def test_read_view_line_numbers_are_ignored_on_the_output_side():
    ev = [Evidence("E1", "    10\u2192def step():\n    11\u2192    loss = loss_fn(out) / 0\n")]
    assert claim("The NaN is caused by `loss = loss_fn(out) / 0` in step().", ev).cited


def test_redaction_is_applied_to_the_quote_as_it_was_to_the_output():
    from ledger.redact import redact

    raw = "auth failed: api_key=sk-abcdefghijklmnopqrstuvwxyz012345 rejected by server"
    ev = [Evidence("E1", redact(raw))]
    assert claim("The upload failed because `%s`." % raw, ev).cited


def test_near_misses_are_reported_never_accepted():
    ev = [Evidence("E3", OOM)]
    c = claim("The crash comes from `cuda out of memory. tried to allocate 2.00 gib`.", ev)
    assert not c.cited and "case" in c.near_misses[0]["why"]
    c = claim("The crash comes from `RuntimeError: CUDA out of memory. Tried to allocate 4.00 GiB`.", ev)
    assert not c.cited and c.near_misses and c.near_misses[0]["evidence"] == "E3"


def test_many_large_outputs_are_handled():
    filler = "step %d loss 2.31 lr 0.0003 tokens/s 41000\n"
    big = "".join(filler % i for i in range(20000))  # ~0.9 MB
    ev = [Evidence("E%d" % i, big, "python train.py") for i in range(1, 200)]
    ev.append(Evidence("E999", big + OOM))
    ev.append(Evidence("E1000", "学習ログ：メモリ不足で停止しました " + big))
    c = claim("The crash comes from `CUDA out of memory. Tried to allocate 2.00 GiB`.", ev)
    assert c.cited and c.evidence == ["E999"]
    c = claim("学習が落ちたのは「メモリ不足で停止しました」とログにあるためです。", ev)
    assert c.cited and c.evidence == ["E1000"]


def test_evidence_from_store_rows_includes_every_input_string():
    rows = [{"id": "E1", "tool_name": "Write", "command": None,
             "tool_input": '{"file_path": "/t/a.py", "content": "CUDA out of memory in the forward pass"}',
             "output": "CUDA out of memory in the forward pass"}]
    ev = evidence_from_rows(rows)
    assert "CUDA out of memory in the forward pass" in ev[0].input_text
    assert not claim("The crash is caused by `CUDA out of memory in the forward pass`.", ev).cited


def test_all_quotes_are_found_in_one_pass_that_stops_when_none_is_pending():
    from ledger.detect.cite import Checker
    from ledger.detect import load_rules

    ev = [Evidence("E%d" % i, "step %d loss 2.31 lr 0.0003\n" % i * 50, "python train.py")
          for i in range(1, 301)]
    ev[-1].output += "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    ev[-2].output += "rank 3 waiting on the barrier for 1800 s\n"
    quotes = ["CUDA error: an illegal memory access", "rank 3 waiting on the barrier"]
    checker = Checker(ev, load_rules().for_lang)
    # Both quotes sit in the two newest outputs: the pass looks at those two and stops.
    assert checker.check_all(quotes) == 2
    assert checker.check_quote(quotes[0])[:2] == ("verified", ["E300"])
    assert checker.check_quote(quotes[1])[:2] == ("verified", ["E299"])
    # A quote found nowhere costs one look at every output, however many quotes are pending.
    fresh = Checker(ev, load_rules().for_lang)
    assert fresh.check_all(quotes + ["segfault in the collate worker", "NCCL watchdog timeout"]) == 300
    assert fresh.check_quote("NCCL watchdog timeout")[0] == "missing"


def test_a_message_checks_its_quotes_in_one_pass(monkeypatch):
    from ledger.detect import cite

    passes = []
    real = cite.Checker.check_all

    def counting(self, quotes):
        looked = real(self, quotes)
        if looked:
            passes.append(looked)
        return looked

    monkeypatch.setattr(cite.Checker, "check_all", counting)
    ev = [Evidence("E%d" % i, "line %d\n" % i * 20) for i in range(1, 51)]
    ev[0].output += OOM
    msg = "\n\n".join("The run crashed because `%s` was seen." % q
                      for q in ("CUDA out of memory. Tried to allocate", "fatal error in worker 7",
                                "watchdog caught collective timeout"))
    claims = analyze(msg, evidence=ev).claims
    assert [c.cited for c in claims] == [True, False, False]
    assert passes == [50]


def test_a_paragraph_that_points_at_the_quote_above_cites_it():
    kv = "ValueError: The model's max seq len (32768) is larger than the KV cache (21456)."
    ev = [Evidence("E2", "INFO loading\n" + kv)]
    ja = "vLLM が起動しない件:\n\n> %s\n\nとあるので、max_model_len が KV キャッシュの容量を超えていることが原因です。" % kv
    assert claim(ja, ev).cited and claim(ja, ev).evidence == ["E2"]
    en = "```\n%s\n```\n\nThis shows the server fails because max_model_len is larger than the KV cache." % kv
    assert claim(en, ev).cited
    # without the pointer, a block above belongs to the paragraph before it
    plain = "```\n%s\n```\n\nThe server fails because max_model_len is larger than the KV cache." % kv
    assert not claim(plain, ev).cited


def test_a_conclusion_opening_with_so_cites_the_block_above():
    line = "[rank3]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE)"
    ev = [Evidence("E4", "start\n" + line)]
    msg = "Every rank waits in the same collective:\n\n```\n%s\n```\n\nSo the hang is rank 5 blocked on I/O while the others time out." % line
    assert claim(msg, ev).cited


def test_a_line_ending_in_a_colon_takes_the_quote_paragraph_after_it():
    err = "unsupported GNU version! gcc versions later than 12 are not supported!"
    ev = [Evidence("E2", "nvcc fatal\n" + err)]
    msg = "`pip install` が失敗していたのはホストの gcc が新しすぎるためです。nvcc が次のエラーで止まっています：\n\n「%s」" % err
    assert claim(msg, ev).cited


def test_result_lines_in_a_list_below_the_claim_are_its_evidence():
    line = "len(eval_ds)=10000 predictions=9984"
    ev = [Evidence("E1", "run\n" + line)]
    msg = "評価件数が合わない原因は、評価用 DataLoader の `drop_last=True` です。\n\n- 実行結果：「%s」（E1）" % line
    assert claim(msg, ev).cited


def test_an_evidence_section_after_the_claims_section_cites_it():
    out = "RuntimeError: DataLoader worker (pid 4410) is killed by signal: Bus error."
    for message in (
        "## Conclusion\n\nTraining stops at epoch 2 because the workers run out of shared memory.\n\n"
        "## Evidence\n\n- E1 printed `DataLoader worker (pid 4410) is killed by signal: Bus error`.\n",
        "## 結論\n\n学習が 2 エポック目で止まるのは、ワーカーの共有メモリが足りないためです。\n\n"
        "## 根拠\n\n- E1 に `DataLoader worker (pid 4410) is killed by signal: Bus error` と出ています。\n",
    ):
        rep = analyze(message, evidence=[Evidence("E1", out)])
        assert rep.claims and all(c.cited for c in rep.claims if c.kind == "assertion"), message
    # a section that is not headed as evidence does not
    message = ("## Conclusion\n\nTraining stops at epoch 2 because the workers run out of shared memory.\n\n"
               "## Next steps\n\n- Rerun with `DataLoader worker (pid 4410) is killed by signal: Bus error` in mind.\n")
    assert decision(analyze(message, evidence=[Evidence("E1", out)])) == "block"


def test_a_list_or_table_right_after_the_claim_whose_every_item_names_evidence_cites_it():
    out = "Timeout(ms)=1800000 ran for 1800041 milliseconds before timing out."
    for message in (
        "学習が止まったのは、rank 1 だけが評価に入り all-reduce に参加しなかったためです。\n\n"
        "- rank 0 は「ran for 1800041 milliseconds before timing out」で止まっています(E1)。\n"
        "- rank 1 は評価ループに入っていました(E1)。\n",
        "The job died because rank 1 went into eval and skipped the all-reduce.\n\n"
        "| check | evidence |\n|---|---|\n| rank 0 | E1: `ran for 1800041 milliseconds before timing out` |\n",
    ):
        rep = analyze(message, evidence=[Evidence("E1", out)])
        assert [c.cited for c in rep.claims if c.kind == "assertion"] == [True], message
    # a list of which only some items name evidence is not an evidence list
    message = ("The job died because rank 1 went into eval and skipped the all-reduce.\n\n"
               "- rank 0 timed out (E1)\n- rank 1 was probably stuck in eval\n")
    assert decision(analyze(message, evidence=[Evidence("E1", out)])) == "block"


def test_a_list_right_after_the_claim_whose_every_item_quotes_output_cites_it():
    out = "train label2id {'cat': 0, 'dog': 1}\ninfer label2id {'dog': 0, 'cat': 1}"
    message = ("評価精度が落ちているのは、推論時のラベル対応表が学習時と食い違っているためです。\n"
               "- 学習時: 「label2id {'cat': 0, 'dog': 1}」\n- 推論時: 「label2id {'dog': 0, 'cat': 1}」\n")
    rep = analyze(message, evidence=[Evidence("E1", out)])
    assert [c.cited for c in rep.claims if c.kind == "assertion"] == [True]


def test_a_paragraph_that_opens_with_a_calculation_cites_the_block_above():
    out = "drop_last=True, dataset size=10007, batches=78, samples seen=9984"
    message = ("評価件数が合わないのは drop_last=True で末尾が捨てられているためです。出力は次のとおりです。\n\n"
               "> drop_last=True, dataset size=10007, batches=78, samples seen=9984\n\n"
               "128 × 78 = 9984 なので、23 件が毎回評価から漏れています。\n")
    rep = analyze(message, evidence=[Evidence("E1", out)])
    assert all(c.cited for c in rep.claims if c.kind == "assertion") and rep.claims


def test_an_error_quoted_in_the_symptom_sentence_does_not_cite_the_cause_after_it():
    ev = [Evidence("E1", "step 40 eval\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n", "python train.py")]
    message = ("The job dies with `CUDA out of memory. Tried to allocate 2.00 GiB` at the first eval. "
               "The reason is that our trainer derives the eval batch from the train batch times four.")
    report = analyze(message, evidence=ev)
    assert decision(report) == "block"
    # the same quote inside the claim's own sentence still cites it (the guard cannot tell more)
    own = ("The job dies at the first eval because the eval batch is the train batch times four: "
           "`CUDA out of memory. Tried to allocate 2.00 GiB`.")
    assert decision(analyze(own, evidence=ev)) == "allow"


def test_evidence_before_the_claim_that_is_not_only_an_error_still_cites_it():
    ev = [Evidence("E1", "GPU util 9%\n", "nvidia-smi"),
          Evidence("E2", "pt_data_worker decode (PIL/ImageFile.py:287)\nNCCL WARN peer returned error\n", "py-spy dump")]
    by_id = "GPU util sits at 9% (E1) while the workers decode JPEGs (E2). The input pipeline is the bottleneck."
    assert decision(analyze(by_id, evidence=ev)) == "allow"
    # a quote that shares a word with the cause may show the cause
    shared = ("The hang starts with `NCCL WARN peer returned error`. "
              "The peer address belongs to the bridge, so NCCL picked the wrong interface.")
    assert decision(analyze(shared, evidence=ev)) == "allow"
