"""The claim detector: which sentences are claims, and of which kind."""

import os
import subprocess
import sys

import pytest

from hookrun import REPO
from ledger.detect import Evidence, analyze, decision, markdown, sentences


def kinds(message):
    return [c.kind for c in analyze(message).claims]


@pytest.mark.parametrize("text", [
    "The job OOMs because the eval loop keeps the autograd graph alive.",
    "The root cause is that `torch.load` maps every tensor onto GPU 0.",
    "Root cause: the scheduler is stepped twice per iteration.",
    "The hang happens because rank 3 never reaches the barrier.",
    "The slowdown is due to the dataloader running with one worker.",
    "The segfault stems from two threads calling into the tokenizer at once.",
    "It turned out the disk was full, so the checkpoint write failed.",
    "The hang is not caused by NCCL but by the barrier in eval.",
])
def test_english_assertions(text):
    assert kinds(text) == ["assertion"]


@pytest.mark.parametrize("text", [
    "Hypothesis: the dataloader leaks file handles, which would explain the crash.",
    "I suspect the OOM is caused by the eval loop holding the graph.",
    "The NaN might come from the softmax when all logits are masked.",
    "Could the timeouts be caused by the DNS cache inside the pods?",
    "If the batch is larger than 48, the job runs out of memory because nothing is checkpointed.",
    "The crash is probably caused by the driver mismatch.",
])
def test_english_hypotheses(text):
    assert kinds(text) == ["hypothesis"]


@pytest.mark.parametrize("text", [
    "The hang is not caused by NCCL.",
    "I ruled out the tokenizer as the cause of the mismatch.",
    "The slowdown isn't due to the GPU clocks.",
    "The dataloader is not the bottleneck.",
])
def test_english_negated(text):
    assert kinds(text) == ["negated"]


@pytest.mark.parametrize("text", [
    "I renamed it because the old name was unclear.",
    "Error handling was moved to `utils.py` because it was duplicated.",
    "I added a retry because the API sometimes times out.",
    "The cause is not known yet.",
    "I haven't found the root cause of the hang.",
    "Please rerun the job with `--debug` because we need the traceback.",
    "This document explains the cause field in the ledger schema.",
    "The speedup comes from the fused kernel.",
    "Let me kill the server and finish the last item.",
])
def test_english_non_claims(text):
    assert kinds(text) == []


@pytest.mark.parametrize("text,expected", [
    ("学習が途中で落ちたのはメモリ不足のためです。", "assertion"),
    ("原因は評価ループで計算グラフが保持されていることです。", "assertion"),
    ("同じパッケージが2つ入っていたことにより、ImportErrorが出ていました。", "assertion"),
    ("メモリ不足が原因かもしれません。", "hypothesis"),
    ("原因はキャッシュではないかと思います。", "hypothesis"),
    ("タイムアウトはDNSキャッシュが原因でしょうか？", "hypothesis"),
    ("原因はキャッシュではありません。", "negated"),
    ("OOMはオプティマイザの変更とは関係ありません。", "negated"),
    ("キャッシュが原因ではなく、ローダーが原因です。", "assertion"),
])
def test_japanese_kinds(text, expected):
    assert kinds(text) == [expected]


@pytest.mark.parametrize("text", [
    "原因はまだ分かっていません。",
    "OOMを防ぐため、バッチサイズを下げました。",
    "古い名前が分かりにくかったため、名前を変更しました。",
    "完全なトレースバックが必要なので、`--debug` を付けて再実行してください。",
])
def test_japanese_non_claims(text):
    assert kinds(text) == []


def test_language_per_sentence_and_main_language():
    rep = analyze("The job crashed because the disk was full.\n\n学習が落ちたのはメモリ不足のためです。"
                  "ディスクも一杯でした。")
    assert [c.lang for c in rep.claims] == ["en", "ja"]
    assert rep.lang == "ja"
    assert analyze("All done.").lang == "en"


def test_code_fences_and_quotes_are_never_claims():
    msg = ("Here is the log:\n\n```\nRuntimeError: the crash is caused by a bad index\n```\n\n"
           "> The run crashed because the disk was full.\n\nI will look at the node next.")
    assert kinds(msg) == []


def test_a_cue_inside_inline_code_is_not_a_cue():
    assert kinds("I set `because_of_oom=True` in the config.") == []


def test_root_cause_heading_makes_its_first_paragraph_an_assertion():
    msg = ("## Root cause\n\nThe collate function copies every batch to pinned memory twice.\n\n"
           "Some background on the loader follows here in a second paragraph.\n\n"
           "## Fix\n\nI removed the copy in the sampler.")
    rep = analyze(msg)
    assert [(c.kind, c.text[:14]) for c in rep.claims] == [("assertion", "The collate fu")]


def test_hypothesis_heading_turns_causal_sentences_into_hypotheses():
    msg = ("## Hypotheses\n\n1. The collate function leaks memory because it caches images.\n"
           "2. The eval loop holds the graph, which causes the OOM.\n\n"
           "## Next steps\n\n- Run one epoch with `num_workers=0`.")
    assert kinds(msg) == ["hypothesis", "hypothesis"]


def test_neutral_sub_heading_keeps_the_parent_mode_and_a_sibling_resets_it():
    msg = ("## Hypotheses\n\n### Loader\n\nThe loader leaks because it caches images.\n\n"
           "## Result\n\nThe loader leaks because it caches images.")
    assert kinds(msg) == ["hypothesis", "assertion"]


def test_label_sets_the_mode_of_its_block():
    assert kinds("**Root cause:** the eval loop accumulates `loss` as a tensor.") == ["assertion"]
    assert kinds("- Hypothesis 2: the hang comes from rank 3 skipping a collective.") == ["hypothesis"]
    assert kinds("仮説：データローダーがファイルハンドルをリークしてクラッシュしている。") == ["hypothesis"]


def test_anaphora_borrows_the_failure_from_the_previous_sentence():
    assert kinds("Training diverged at step 3000. This is because the warmup ended early.") == ["assertion"]
    assert kinds("I wrote a new helper. This is because the old one was long.") == []


def test_default_decision_blocks_only_uncited_assertions():
    assert decision(analyze("The job OOMs because the eval loop keeps the graph.")) == "block"
    assert decision(analyze("The hang is not caused by NCCL.")) == "allow"
    assert decision(analyze("The hang is not caused by NCCL."), ("assertion", "negated")) == "block"
    assert decision(analyze("Maybe the OOM is caused by the eval loop.")) == "allow"


def test_claim_fields():
    c = analyze("Intro line.\n\nThe job OOMs because the eval loop keeps the graph.").claims[0]
    assert c.text == "The job OOMs because the eval loop keeps the graph."
    assert c.sentence_index == 1 and c.lang == "en" and c.cited is False and c.evidence == []
    assert "because" in c.reason and c.near_misses == []
    assert set(c.to_dict()) >= {"text", "kind", "cited", "evidence"}


# -- sentence splitting and markdown ----------------------------------------------------------

def _split(text):
    return [text[a:b] for a, b in sentences.split(text)]


def test_english_split_keeps_versions_file_names_and_abbreviations():
    text = ("We upgraded to torch 2.1.3 and it broke train.py on startup. See e.g. the log, "
            "it says `torch.cuda.OutOfMemoryError. Tried` there. Next sentence here.")
    assert _split(text) == [
        "We upgraded to torch 2.1.3 and it broke train.py on startup.",
        "See e.g. the log, it says `torch.cuda.OutOfMemoryError. Tried` there.",
        "Next sentence here.",
    ]


def test_japanese_split_on_punctuation_and_line_breaks():
    text = "学習が落ちました。原因はメモリ不足です！本当ですか？\n次の行です"
    assert _split(text) == ["学習が落ちました。", "原因はメモリ不足です!", "本当ですか?", "次の行です"] or \
        _split(text) == ["学習が落ちました。", "原因はメモリ不足です！", "本当ですか？", "次の行です"]


def test_markdown_blocks():
    msg = ("# Title\n\nA paragraph\nwrapped.\n\n- item one\n  continued\n\n  ```\n  code in item\n  ```\n"
           "- item two\n\n> quoted\n> more\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```py\nx = 1\n```\n\n**Bold heading**\n")
    blocks = markdown.parse(msg)
    assert [b.kind for b in blocks] == ["heading", "para", "item", "item", "quote", "row", "row", "fence", "heading"]
    assert blocks[2].text == "item one\ncontinued" and blocks[2].codes == ["code in item"]
    assert blocks[4].text == "quoted\nmore"
    assert blocks[7].text == "x = 1"
    assert blocks[8].level == 7 and blocks[8].text == "Bold heading"


def test_an_unclosed_fence_runs_to_the_end():
    blocks = markdown.parse("Text.\n\n```\nthe crash is caused by x\n")
    assert [b.kind for b in blocks] == ["para", "fence"]


def test_detector_imports_only_the_standard_library():
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from ledger.detect import analyze, Evidence, load_rules\n"
            "analyze('The OOM is caused by `a long quote of output` here.', "
            "[Evidence('E1', 'a long quote of output', '')], load_rules())\n"
            "bad = {'click', 'pydantic', 'regex', 'sqlite_utils', 'dataclasses', 'pathlib', 'importlib.metadata'}\n"
            "print(sorted(bad & set(sys.modules)))" % REPO)
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- cost: linear in the message ----------------------------------------------------------------
# No wall-clock assertions: the work is counted (calls, characters examined, outputs looked at)
# for n and 4n sentences. A quadratic step (a slice of everything before each period, a claim
# re-scanning its whole paragraph) makes the 4n figure ~16x the n figure instead of ~4x.

def _calls(fn):
    count = [0]

    def prof(frame, event, arg):
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count[0]


def _long_message(n):
    unit = ("The loss diverged because `grad norm 1e9 at step 7` was hit (E3). Done. "
            "I updated the config and reran the tests.\nIt hangs because rank 3 waits. ")
    return unit * n


def test_analysis_work_grows_linearly_with_the_message():
    from ledger.detect import Evidence

    ev = [Evidence("E3", "grad norm 1e9 at step 7\n"), Evidence("E4", "noise " * 100)]
    analyze("warm the rule cache up.")
    small = _calls(lambda: analyze(_long_message(50), evidence=ev))
    big = _calls(lambda: analyze(_long_message(200), evidence=ev))
    assert len(analyze(_long_message(200), evidence=ev).claims) == 400
    assert big <= 4.4 * small, (small, big)


@pytest.mark.parametrize("unit", ["Done. ", "Done.\n", "e.g. 2.1. Done! ", "終わりました。", "ok\n\n"])
def test_sentence_splitting_examines_each_character_a_bounded_number_of_times(unit):
    def cost(n):
        before = sentences.meter.chars
        spans = sentences.split(unit * n)
        return sentences.meter.chars - before, len(spans)

    (small, n_small), (big, n_big) = cost(2000), cost(8000)
    assert n_big >= 4 * n_small - 4
    assert big <= 4.2 * small and big <= 4 * len(unit) * 8000, (small, big)


# -- result connectives, bottleneck/blame frames, colon explanations, ja chains ------------------

@pytest.mark.parametrize("text", [
    "The learning rate is too high, so the loss diverges.",
    "The log shows a CUDA error, so a kernel corrupted the weights.",
    "The batch size was doubled and the loss diverges as a result.",
    "The gradients exploded at step 420, so the loss turned NaN.",
    "Training is slow: the dataloader is the bottleneck.",
    "The eval job fails, therefore the tokenizer vocab is wrong.",
    "The cache was stale, thus the metrics were wrong.",
    "The workers were starved; consequently throughput dropped.",
    "Rank 3 crashed, therefore the whole job hung.",
    "The driver is too old, so NCCL fails on init.",
    "The allocator fragments memory, leading to the OOM at step 900.",
    "The new tokenizer broke the eval.",
    "The missing pad token makes the collator fail.",
    "Training is bottlenecked on the disk.",
    "It hangs: rank 3 never joins the barrier.",
    "The loss spikes: warmup is too short.",
    "Eval crashed: the tokenizer returns None for empty strings.",
    "学習率が高すぎて、損失が発散しました。",
    "メモリが足りなくて、学習が落ちました。",
    "設定ファイルが古く、評価が失敗しました。",
    "学習が遅い：データローダーが律速しています。",
    "勾配が爆発した。だから損失がNaNになった。",
    "新しいトークナイザが評価を壊しました。",
])
def test_result_connectives_frames_and_colon_explanations_are_assertions(text):
    assert kinds(text) == ["assertion"]


@pytest.mark.parametrize("text", [
    "The name clashed, so I renamed it.",
    "I pinned the version so that the build is reproducible.",
    "So far the tests pass.",
    "It retries on timeouts, errors, and so on.",
    "I fixed the mask, so the tests pass now.",
    "I pinned it, so the build is reproducible.",
    "I lowered the learning rate, so the loss no longer diverges.",
    "The fix works, so the job no longer OOMs.",
    "Errors are now retried, so a transient timeout no longer kills the job.",
    "Lower the learning rate so the loss does not diverge.",
    "It was so slow that I gave up on the run.",
    "The test is failing, so I added a skip marker.",
    "The job OOMed, so the next step is to halve the batch.",
    "The run crashed, so the checkpoint from step 400 is the latest one.",
    "The error message is clearer, so users know what failed.",
    "Training is slow: I will profile the dataloader next.",
    "It hangs: can you share the stack trace?",
    "It crashes: here is the traceback.",
    "Two tests fail: test_load and test_save.",
    "Known issues: the docs are out of date.",
    "Missing scripts: no type-check script is mentioned in the docs.",
    "Has two issues to fix: the guard clause and the nesting depth.",
    "Results: the loss diverges at step 420 on both seeds.",
    "I broke the loop into two smaller functions.",
    "The loss diverges, so the learning rate is probably too high.",
    "名前が衝突したので、リネームしました。",
    "メモリが足りなくて、バッチサイズを半分にしました。",
    "学習が遅い：プロファイルを取って確認します。",
    "テストが失敗：原因はまだ分かっていません。",
])
def test_result_and_colon_guards_do_not_block(text):
    assert "assertion" not in kinds(text)


@pytest.mark.parametrize("text,kind", [
    ("The dataloader may be the bottleneck.", "hypothesis"),
    ("Training is slow: maybe the dataloader is the bottleneck.", "hypothesis"),
    ("The dataloader is not the bottleneck.", "negated"),
    ("学習が遅い：データローダーが原因かもしれません。", "hypothesis"),
])
def test_result_and_colon_forms_keep_hedges_and_negation(text, kind):
    assert kinds(text) == [kind]


@pytest.mark.parametrize("text,kind", [
    ("I enabled gradient checkpointing, so the backward pass crashed.", "assertion"),
    ("The mask is applied twice, and the loss collapses as a result.", "assertion"),
    ("The retry loop produces the duplicate rows.", "assertion"),
    ("The stall is explained by the sampler locking the index.", "assertion"),
    ("It was the stale lock file that stalled the workers.", "assertion"),
    ("We reverted the commit, so the regression is gone.", None),
    ("Because of the code freeze, we didn't deploy the patch.", None),
    ("It's likely the slowdown is because the shards are remote.", "hypothesis"),
    ("The tokenizer isn't responsible for the crash.", "negated"),
    ("We ruled out the network.", "negated"),
    ("ネットワークは関係ありません。", "negated"),
    ("バッチ長に合わせてパディングするので、メモリ使用量が毎回変わります。", None),
])
def test_general_rules_added_after_the_blind_run(text, kind):
    assert kinds(text) == ([kind] if kind else [])


def test_a_heading_that_says_the_cause_is_unknown_sets_no_assertion_mode():
    msg = "Root cause still unknown. What we know so far:\n\n- It fails only on node 7.\n- It fails within 20 steps."
    assert "assertion" not in kinds(msg)


# The fix that follows a diagnosis is the agent's own action, not a second claim (seen in the
# demo: the second sentence was reported as an uncited assertion).
@pytest.mark.parametrize("message, claims", [
    ("The root cause is the learning rate: 3e-4 is too high for this model, so the loss diverges. "
     "I lowered it to 1e-4 in config.yaml.", 1),
    ("Root cause: the eval loop keeps the graph alive. I wrapped it in torch.no_grad() and the OOM is gone.", 1),
    ("## Root cause\n\nThe tokenizer cache is stale. We cleared it and reran the job.", 1),
    ("## Root cause\n\n- The tokenizer cache is stale.\n- I cleared it and reran the job.", 1),
    ("The crash is caused by a stale lock file. That is why I deleted it.", 1),
    ("原因：学習率が高すぎて損失が発散しています。config.yaml で 1e-4 に下げました。", 1),
    ("## 原因\n\n- トークナイザのキャッシュが古いです。\n- キャッシュをクリアして再実行しました。", 1),
])
def test_a_fix_summary_after_a_diagnosis_is_not_a_claim(message, claims):
    got = analyze(message).claims
    assert [c.kind for c in got] == ["assertion"] * claims, [(c.kind, c.text) for c in got]


@pytest.mark.parametrize("message", [
    "Root cause: we set the warmup to zero steps.",           # the label's own sentence claims
    "## Root cause\n\nThe scheduler lowered the learning rate to zero at step 400.",
    "## 原因\n\nスケジューラが学習率をステップ 400 でゼロまで下げました。",  # a part did it, not the agent
    "## Root cause\n\nWe traced it to the loader leaking file handles.",
    "The loss diverged. That is why the job was killed at step 900.",
])
def test_what_is_not_the_agents_own_fix_still_claims(message):
    assert "assertion" in kinds(message)


# Structure, not only cue words -------------------------------------------------------------

@pytest.mark.parametrize("message", [
    "Found it. The collate function pads every batch to the longest sequence in the dataset.",
    "I see the issue.\n\nThe sampler is shared by all ranks, so each rank reads the same shard.",
    "原因が分かりました。\n\nDataLoader のワーカー数が 0 のままでした。",
])
def test_the_sentence_after_an_announced_finding_states_it(message):
    assert "assertion" in kinds(message)


@pytest.mark.parametrize("message", [
    "Got it. I'll update the README next.",
    "分かりました。README を更新します。",
])
def test_an_acknowledgement_is_no_announced_finding(message):
    assert kinds(message) == []


def test_a_failure_then_a_sentence_naming_a_defect_is_a_diagnosis():
    assert kinds("The second node hangs at init. NCCL_SOCKET_IFNAME points to docker0 on that host.") == ["assertion"]
    # an observation, a plan or a success after a failure explains nothing
    for msg in ("Eval hangs on multi-GPU. Single-GPU eval never had this problem.",
                "Loss went NaN at step 900. The same config ran fine on 4 GPUs instead of 8.",
                "The run crashed at step 400. I restarted it from the step 300 checkpoint instead of from scratch."):
        assert decision(analyze(msg)) == "allow", msg


def test_list_items_read_as_consecutive_sentences():
    msg = ("## Summary\n\n- The loss plateaued at 2.3 after epoch 1.\n"
           "- The scheduler was stepping per epoch instead of per step.\n")
    assert decision(analyze(msg)) == "block"


def test_a_table_with_a_cause_column_states_causes_and_its_header_claims_nothing():
    msg = ("| Symptom | Cause | Fix |\n|---|---|---|\n"
           "| eval 3x slower | eval batch size hard-coded to 1 | read it from the config |\n")
    claims = analyze(msg).claims
    assert [c.kind for c in claims] == ["assertion"]
    assert "Symptom" not in claims[0].text


def test_template_fields_and_html_comments_are_not_prose():
    msg = ("## Incident postmortem\n\n**Impact:** <!-- who was affected -->\n"
           "**Root cause:** <!-- what caused the failure; link evidence -->\n")
    assert kinds(msg) == []
    assert kinds("## 障害報告\n- 発生日時:\n- 原因:\n- 暫定対応:\n") == []


@pytest.mark.parametrize("text", [
    "In JAX, the first call to a jitted function is slow because it traces and compiles.",
    "Mixed precision can lead to overflow in fp16 because its largest finite value is 65504; bf16 rarely overflows.",
    "Flash attention never materializes the full matrix, which is why its memory grows linearly with sequence length.",
    "Adam はパラメータごとに二次モーメントを持つため、メモリは重みの約 3 倍になります。",
    "bf16 は指数部が fp32 と同じ 8 ビットなので、fp16 よりもオーバーフローしにくいという特徴があります。",
    "OOM を避けるため、eval のバッチサイズを 16 に下げてから再投入します。",
    "step 400 で CUDA OOM により落ちました。ログを添付します。",
])
def test_how_it_works_and_plans_are_not_diagnoses(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "DataLoader のワーカーが fork 後にトークナイザのロックを取り合ってデッドロックしていました。",
    "torch を上げたら SDPA が math カーネルにフォールバックして、ステップ時間が倍になりました。",
    "2 台目のノードが初期化で止まる件、そのホストだけ NCCL_SOCKET_IFNAME が docker0 を指していました。",
])
def test_japanese_te_chains_and_topics_into_a_failure(text):
    assert kinds(text) == ["assertion"]


def test_confirmed_turns_a_cause_heading_into_a_claim_but_not_any_label():
    assert kinds("## Confirmed hypothesis\n\nThe loader leaks file handles after each epoch.") == ["assertion"]
    assert kinds("## Root cause (confirmed)\n\nThe loader leaks file handles after each epoch.") == ["assertion"]
    assert kinds("I verified the fix from PR #482 on the 4-GPU box:\n\n- 3 full epochs, no hang at checkpoint save.") == []


@pytest.mark.parametrize("text", [
    # a failure, then the defect inferred from it: the cause read backwards
    "The job died with a device-side assert, so the vocab size in the config is smaller than the tokenizer's.",
    "The divergence starts at step 3100, which means clipping is disabled in the optimizer wrapper.",
    # the culprit named, then how it fails
    "It's the GradScaler: the scale underflows after about a thousand steps.",
    # a finding announced and stated in one sentence
    "Found it, the scheduler steps per batch instead of per epoch, so the LR is zero by epoch 2.",
    "Per E4, the eval hang is the Redis connection pool running dry under 64 workers.",
    "The mismatch between two identical runs is the non-deterministic scatter_add in the backward.",
    "GPU utilization is stuck at 30% as JPEG decoding on two CPU workers can't keep up.",
    "Upstream drift in the transactions table is what made the fraud model flag everything.",
    "Closing: this was caused by the 4.38 change to attn_implementation.",
    "Triton サーバーの 503 は、max_batch_size が 0 になっていることで発生しています。",
    "この segfault は pyarrow と torch の OpenMP ランタイムが衝突して起きています。",
    "結局、V100 で bf16 を指定していたことがすべての元凶でした。",
    "wandb へのログ送信が同期的に走っていて、各ステップで 200ms ほど持っていかれています。",
])
def test_inferred_and_announced_causes_are_claims(text):
    assert kinds(text) == ["assertion"]


@pytest.mark.parametrize("text", [
    # "default" holds the letters of "fault": it is no failure word
    "It's the default: the scheduler steps once per epoch.",
    "It's the standard approach: the loss spikes are expected during warm-up.",
    "The eval failed, so the flag is disabled until we know more.",
    "The run crashed at step 400, so the latest checkpoint is step 300.",
    "Accuracy drops as training continues and never recovers.",
    "Found the issue, and I opened a PR with the fix.",
    # starting something, then a time span: when, not why
    "学習を始めて 2 時間ほどで損失が NaN になります。",
    "バッチサイズを下げることで OOM を回避できます。",
])
def test_consequences_symptoms_and_defaults_are_not_causes(text):
    assert decision(analyze(text)) == "allow"


def test_a_reason_for_ruling_out_is_not_a_cause():
    assert kinds("The NaNs are not coming from mixed precision, since they also appear in pure fp32.") == ["negated"]
    assert kinds("ドライバのバージョンは問題ではなく、同じ構成の別ノードでは正常に動いています。") == ["negated"]
    assert kinds("ドライバは問題ではなく、CUDA のバージョンが原因です。") == ["assertion"]


@pytest.mark.parametrize("text", [
    # changelog lines: the author's own change and its motive
    "## Changelog\n- `train.py`: added a `--resume_from` flag because the team wants to restart preempted jobs.",
    "The harness caches outputs per prompt hash because rerunning generation would take hours.",
    # a line that introduces possible causes heads the list under it
    "出力が一致しない件、考えられる要因を挙げます。\n- bf16 と fp16 の違いによる数値誤差\n- chat template の適用有無",
    # a look-back connective after a conditional gives a setting's consequence
    "この設定を有効にすると、backward 時に再計算します。そのため学習は 20% 遅くなりますが、メモリを減らせます。",
    # the reason for the agent's own change
    "macro-F1 も出すようにしました。不均衡なデータでは accuracy だけだと判断を誤りやすい、というのが理由です。",
    "本日は定期メンテナンスのため、GPU クラスタが 14 時から停止します。",
    "epoch 2 の途中でエラーが出て止まります。原因がわからず困っています。",
    "`backoffLimit: 3` により、4 回目の失敗でジョブ全体が Failed になります。",
])
def test_changelogs_docs_and_motives_are_not_diagnoses(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "The pod keeps restarting because the liveness probe hits /health before the model has loaded.",
    "Turns out the harness strips the leading space, so exact match is undercounted.",
    "The problem is you call model.train() at the end of validate(), so dropout stays on.",
    "ok figured it out — the spark job writes 2000 tiny files a day and the loader spends all its time in open().",
    "Eval accuracy is exactly 0.5 on every checkpoint due to the label column being read as strings.",
    "問題は混合精度ではなく、attention mask の dtype が bool から float に変わった点にありました。",
    "前処理で画像が BGR のまま入っていて、それで事前学習モデルの精度が出ていません。",
    "見つかりました。\n\n毎ステップ empty_cache() が呼ばれていて、1 step あたり 4 秒余計にかかっています。",
    "昨日の eval 結果がおかしかった件、わかりました。評価スクリプトが checkpoint-500 ではなく初期重みを読んでいました。",
])
def test_causes_in_answers_and_fix_reports_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "Throughput dropped from 1,840 to 610 samples/s (a 67% loss), all of it from the tokenizer running in the main process.",
    "The NaNs start at step 3,410, when the fp16 loss scale overflows on the attention logits.",
    "Responsible for the deadlock - the DataLoader forking after CUDA was initialised in the parent.",
    "Total step: 320 -> 456 ms. Essentially all of the +136 ms is the move of the shard cache to NFS.",
    "You asked whether the resume bug is why the loss jumps.\n\nYes - that's exactly it. On resume the scheduler is rebuilt from scratch and restarts warmup at step 0.",
    "Saves were taking 6-7 minutes each. Turns out every rank was gathering the full state dict onto its own CPU.",
    "In answer to your follow-up: the resumed run diverges because the optimizer state is loaded before the model moves to the GPU.",
    "はい、同じ理由です。ログのローテーションのたびに writer がファイルを開き直していて、その間メインループがブロックされていました。",
    "いいえ、データローダーの問題ではありません。メモリリークの本体は、loss テンソルをリストに追加し続けていることです。",
    "再現性が取れないのは cudnn.benchmark で非決定的なアルゴリズムが選ばれているからで、seed の問題ではありません。",
    "勾配ノルムが通常の約 40 倍に跳ねており、これは未学習の位置ベクトルが混入しているためです。",
])
def test_attributions_confirmations_and_answers_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "## Hypotheses (none confirmed yet)\n\n**LR too high after warmup.** The LR at the failure step matches the healthy run.",
    "## Symptoms\n\n- Loss plateaus after epoch 3, so val accuracy stops moving.",
    "症状：エポック3の途中からlossが横ばいになり、val精度も動かなくなります。",
    "We shard the dataset by file rather than by sample due to the object store's per-request latency.",
    "The reason for the second evaluation pass is that the leaderboard needs calibrated probabilities.",
    "Status: the bisect is at commit 7 of 23; no root cause yet.",
    "- 2024-06-05: Raised the default NCCL timeout to 60 min due to the new cluster policy.",
    "activation checkpointing は再計算が入るぶん遅くなりますが、メモリに余裕ができるのでバッチサイズを倍にできます。",
    "評価は時間がかかるため、夜間バッチで回すようにスケジュールしています。",
    "GPU の割り当て待ちのせいで着手が遅れましたが、本日中に再現実験を始めます。",
    "再開後は 6 時間ほど問題なく進んでおり、loss も落ちる前と同じ水準です。",
    "ハングの原因として、(a) 例外の握りつぶし、(b) 非同期エラー処理の無効化、の 2 つを疑っています。",
])
def test_designs_statuses_symptoms_and_suspicions_are_not_claims(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    # a frame whose failure word sits inside an "intended behaviour" phrase
    "So the drop you see at epoch 14 is the scheduler doing exactly what it was configured to do.",
    "Training hangs right after init; nothing is printed and all eight GPUs report 100% utilization.",
    "That's why you need to call `sampler.set_epoch(epoch)` at the start of every epoch.",
    "Due to the holiday freeze, the cluster driver upgrade is postponed to the 8th.",
    "The driver version isn't the problem: 535 supports CUDA 12.2, which is what this wheel was built against.",
    "念のため CUDA_LAUNCH_BLOCKING=1 を付けてもう一度実行してもらえますか。エラー箇所が正確に出るので。",
    "ログが長いので、Traceback の直前 50 行だけ貼っていただければ十分です。",
    "DeepSpeed ではなく FSDP を採用した理由は、既存コードが PyTorch ネイティブの API に寄っていて、移行コストが小さいからです。",
    "原因は環境やデータ形式によってさまざまなので、計測しながら切り分けていくのが基本です。",
    "前回止まった件は再発していませんが、原因はまだ調べていないため、ログは残しておきます。",
    "評価 1 回に約 12 分かかるため、100 ステップごとにすると学習時間の半分近くが評価に取られてしまいます。",
])
def test_intended_behaviour_requests_and_choices_are_not_claims(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "BLEU on the test set is near zero; the detokenizer runs twice on the hypotheses.",
    "Eval accuracy is four points low due to the validation transform still applying RandomResizedCrop.",
    "Resuming restarts the cosine schedule at step 0, which is what produces the loss bump after every restart.",
    "The slowdown you see in the first few hundred steps is recompilation on every new sequence length.",
    "遅さの正体 — 毎ステップ呼ばれている torch.cuda.empty_cache()。",
    "ホストのドライバが 525 系で古く、これで torch.cuda.is_available() が False になってました。",
    "pip install が bitsandbytes のところでコケる件。結論、3.12 向けの wheel がまだ出ていなかったのが理由でした。",
])
def test_more_ways_to_state_a_cause(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "The job crashed at step 400 with exit code 139; nothing was written to stderr before it disappeared.",
    "It's not the tokenizer: round-trips are byte-identical, so the BLEU drop has to come from somewhere after tokenization.",
    "Orbax writes shards from every host. That matters because the 7B model doesn't fit in one host's RAM.",
    "If it happens again I'll pull the core dump; otherwise I'll note it and move on because the grid is on a deadline.",
    "Root-cause analysis is still open. So far I've only confirmed the symptom: p99 latency doubles every weekday at 14:00.",
    "**How `gradient_accumulation_steps` interacts with batch size**\n\nLogging happens per optimizer step, which is the reason your step counter moves 8x slower.",
    "Nothing in it drops or reorders samples across batches; the ordering is undone in forward().",
    "I dropped merchant_id from the categorical list (it is target-encoded now); one fold takes 3 min instead of 48.",
    "One candidate is an optimizer instability. Another is the fp16 VAE encoding producing inf latents for a few images.",
    "ユーザーから「なぜ AdamW ではなく Lion なのか」と聞かれたので、メモリが半分で済むからだと回答しておきました。",
    "学習は step 4,000 で `CUDA error: an illegal memory access was encountered` を出して停止しました。",
    "safetensors の読み込みは関係ないと思います。torch.load で読んでも同じ箇所で落ちているためです。",
])
def test_reports_advice_and_reasons_for_ruling_out_are_not_claims(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "Loss sat at 10.37 (≈ ln 32000) for the whole run: every label is -100 after the chat-template masking.",
    "The ROCm wheel we pinned was built without gfx942 kernels, which is why every convolution on the MI300 fails.",
    "`torch.cuda.is_available()` returns False because the host driver is 525.x and the wheel is cu124.",
    "Looked into why the Megatron run's loss goes to NaN around step 18k.\n\nThe attention softmax is computed in bf16 since the fused kernel was swapped for the unfused path.",
    "You're getting different results on every run because use_deterministic_algorithms doesn't cover scatter_add_.",
    "jax.pmap した関数に Python の int を渡しているせいで毎ステップ再コンパイルが走り、1 step に 40 秒もかかっている。",
    "データ準備の段階で utt2spk のソート順が崩れている可能性もゼロではありませんが、主因ははっきりしていて、8kHz の音声が 16kHz 前提の抽出に通されているためです。",
])
def test_causes_behind_constant_metrics_wrong_returns_and_look_backs(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "With it enabled, each block's activations are dropped after the forward pass and recomputed during backward.",
    "Per the user's request, I kept `drop_last=True` on the training loader so every step sees the same batch size.",
    "Root cause analysis for last week's outage is scheduled for Thursday.",
    "I wasn't able to reproduce the NaN on my side: three runs reached step 5000 with loss around 2.31.",
    "**Missing scripts**: No `type-check` script mentioned in docs",
    "GPU 側か CPU 側かを切り分けるため、`torch.profiler` でトレースを取得します。",
    "`num_workers=0` にして同じシードで回しても、まったく同じ step 3120 で NaN が出ます。",
    "AdamW にしたのは、学習率を変えても正則化の強さがぶれにくいからです。",
    "この PR では、OOM が出たときに自動でリトライする処理を追加しました。長時間ジョブが夜中に止まるのを避けるためです。",
    "ResNet50 で画像分類をしているのですが、val loss が 2 エポック目から増え続けます。",
    "何が原因なのか見当もつかず困っています。",
    "### GradScaler がやっていること\n\nfp16 は表現できる最小の正の値が大きいので、小さな勾配は 0 にアンダーフローしてしまいます。",
    "学習が 12 時間目でハングしました。",
])
def test_settings_requests_plans_and_questions_are_not_claims(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "Your vLLM p99 spikes are prefix-cache evictions once more than 40 system prompts are live.",
    "figured out why the nightly eval numbers jumped. the PR put model.eval() inside the loop after the first batch.",
    "Every rank builds its sampler with the same seed, and all eight GPUs end up training on the identical first eighth.",
    "The checkpoint was saved from the compiled module, so every key carries a prefix and load_state_dict(strict=False) silently loads nothing.",
    "Wrong recall@10 on the retrieval benchmark — the index was built on unnormalized embeddings.",
    "DataLoader のワーカーは fork 時に乱数状態をコピーするので、4 ワーカーすべてが同じ crop を出していました。",
    "f1_score に pos_label の指定がなかったのが、スコアがおかしかった理由です。",
    "tokenizers の並列化が fork 後のワーカーでデッドロックしてるやつです。",
])
def test_forum_and_report_causes_are_claims(text):
    assert "assertion" in kinds(text)


def test_log_labelled_list_items_are_evidence_for_the_claim_above():
    from ledger.detect import Evidence
    kill = "DataLoader worker (pid 3121) is killed by signal: Killed"
    msg = "学習が止まる件の原因はホストメモリ不足で、ワーカーが OOM killer に殺されていました。\n\n- 学習ログ: 「%s」\n" % kill
    rep = analyze(msg, evidence=[Evidence("E1", "epoch 3\n" + kill)])
    assert [c.cited for c in rep.claims] == [True]


@pytest.mark.parametrize("text", [
    "How DDP overlaps communication with backward: gradients go in buckets. That's the reason parameter order matters.",
    "The trainer now traps SIGTERM and writes a checkpoint, because spot instances get a two-minute warning.",
    "To work out where the hang comes from I'll need a bit more:",
    "heads up: I'm taking the 4 H100s on gpu-07 this afternoon, since the shared queue can't give us 4 GPUs on one node.",
    "Falls back to regex pattern: `/agent-[a-z]+/` in text",
    "分散学習版:ジョブがキュー待ちのため未着手",
    "step 400 で止まるとのことで、再現はできました。",
    "同じ設定で 3 回流して、3 回とも step 4,820 前後で loss が NaN になりました。原因はまだ調査中です。",
    "チェックポイントは 1,000 step ごとに保存される設定なので、落ちても最大 1,000 step 分のやり直しで済みます。",
    "バッチサイズ 1 では 38ms で変化がなく、バッチサイズ 16 のときだけ 95ms → 240ms に悪化しています。",
    "疑わしいのは gradient checkpointing と torch.compile の組み合わせですが、切り分けはこれからです。",
])
def test_status_notes_and_docs_round18_are_not_claims(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "I'm not 100% sure about the tokenizer part, but the main issue is clear: validation runs with batch size 1.",
    "That's the bf16 master weights — small updates round away, so after warmup the loss flatlines.",
    "The grad-norm spikes every 1,000 steps are the shard iterator restarting and replaying the same batch.",
    "The train/eval loss gap turns out to be dropout still on at eval time.",
    "p99 went from 180 ms to 1.4 s. The values file sets max_num_seqs=256; with that many sequences the KV cache runs out.",
    "Fixed. `torch.compile` was recompiling every step because the sequence length changes from batch to batch.",
    "本件はドライバ 470 系と CUDA 12.1 ランタイムの不整合によるもので、コード側の問題ではありません。",
])
def test_round18_causes_are_claims(text):
    assert "assertion" in kinds(text)


# Round 20: general forms from blind19/blind20's errors, each tested on sentences of our own.

def test_a_ruled_out_section_reports_its_items_as_negated_not_as_claims():
    for message in (
        "## Ruled out\n\n- **Stale cache**: the hash of the cached shard matches the source.\n"
        "- **Bad driver**: the other node runs the same driver without errors.\n",
        "Things I've excluded so far for the crash:\n\n- **Corrupted weights**: the checksum matches.\n",
        "## 原因ではなかったもの\n\n- **メモリ不足**: ピーク時でも 20GB の余裕がありました。\n",
    ):
        rep = analyze(message)
        assert decision(rep) == "allow", message
        assert "assertion" not in [c.kind for c in rep.claims]
    # a new heading after it ends its reach
    assert decision(analyze("## Ruled out\n\n- Not the loader.\n\n## Root cause\n\nThe job crashes because "
                            "the scheduler steps twice per batch.")) == "block"


@pytest.mark.parametrize("text,kind", [
    # the control that ruled the cause out is its evidence, not a second claim
    ("The OOM is not caused by the new collate fn - the old one produces it at the same batch too.", "negated"),
    ("None of these explains the 3-point drop in accuracy.", "negated"),
    # a contrast still names the real cause
    ("It's not the loader; it's the optimizer step that causes the stall.", "assertion"),
])
def test_a_clause_after_a_ruled_out_cause(text, kind):
    assert kind in kinds(text)
    if kind == "negated":
        assert "assertion" not in kinds(text)


@pytest.mark.parametrize("text", [
    "Since PyTorch 2.4 the flag is named `TORCH_NCCL_BLOCKING_WAIT`, so I renamed it in the launcher.",
    "Eval still crashes after the rebase; the traceback is identical to the one from Monday.",
    "原因が分かったら、この issue に書き足します。",
    "学習が 2 日続けて夜中に止まっている件は、まだ調査中です。",
    "計画停電のため、金曜の夜は推論サーバを停止します。",
    "利用者から要望があったので、API のタイムアウトを 20 秒から 45 秒に延ばしました。",
    "- `eval_every`: 200 → 500(評価が遅いため回数を減らした)",
    "`--profile` を付けるとカーネルごとの時間が記録されるため、エラーの出た行がすぐ分かります。",
    "メモリ断片化の可能性も捨てきれないので、allocator の設定を変えてもう一度流します。",
])
def test_round20_rationale_versions_plans_and_status_are_not_blocked(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "You're seeing `tensor does not have a grad_fn and cannot be differentiated` because the loss is computed under no_grad.",
    "`no module named flash_attn_2_cuda at import time` here is simply a wheel built for another torch.",
    "Throughput halves on the new nodes: the NIC there negotiates 25 Gb instead of 100.",
    "GPU memory creeps up every step; the metrics hook stores the loss tensor instead of a float.",
    "Every GPU sits at 30% utilization; the bottleneck is JPEG decoding on two CPU workers.",
    "The tokenizer is slow — regex pre-splitting each line in pure Python, nothing else.",
    "Latency on the new pods is 30% lower than expected, which is what CPU throttling does to you.",
    "The sampler drops the final partial batch, and the eval count comes out short by 31.",
    "Turns out the EMA never happened: the update is called before the optimizer step is ever taken.",
    "ugh it's /tmp again, the node gives each job 2GB and the compile cache fills it and crashes the run",
    "hey — figured out why the export keeps timing out. the bucket policy throttles anonymous reads, so every request retries 5 times.",
    "The filter discards every record without a label without a warning. The test split is therefore empty, so the score reads 0.",
    "The worker on rank 3 is the one hanging the job. Its NCCL socket binds to the docker bridge.",
    "The regression you're seeing in `generate()` is the new sampling path, which copies logits to the CPU every step.",
])
def test_round20_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "マルチ GPU にすると loss が発散するのは、学習率を GPU 数でスケールしていないためです。",
    "`CUDA driver version is insufficient for CUDA runtime version` は、コンテナの CUDA がホストのドライバより新しいことから来ています。",
    "それ、勾配を clip する前に unscale し忘れてるやつですね。",
    "sampler がエポックの最後のバッチを捨てていて、評価件数が毎回 31 件ずつ少なくなっています。",
    "検証スコアが高すぎた理由は、重複した画像が train と val の両方に入っていたことにあります。",
    "- 新しいノードでは GPU が見えない。ドライバが CUDA 12.4 に対応していないため。",
    "conda install したら numpy が 2 系に上がってた。古い wheel を使う別パッケージが悪さしてた",
])
def test_round20_japanese_causes_are_claims(text):
    assert "assertion" in kinds(text)


def test_a_question_after_a_progressive_te_form_stays_a_question():
    text = "loss は下がってるのに精度が全然上がらないんだけど、これ正規化の値がずれてるせいかな?"
    assert decision(analyze(text)) == "allow"


# Round 21: general forms from blind21's errors (read after its held-out run), tested on our own sentences.

def test_under_findings_a_bare_statement_claims_only_when_it_names_a_defect():
    message = ("## What I found\n\n- The hang happens only on the last rank, never on rank 0.\n"
               "- Peak host memory during the hang is 3 GB above the baseline.\n")
    assert decision(analyze(message)) == "allow"
    message = ("## What I found\n\nThe job was launched with plain `torchrun`, without `--nnodes 2`, "
               "so both nodes think they are alone.\n")
    assert decision(analyze(message)) == "block"
    # and a connective there still needs a failure word of its own
    assert decision(analyze("## Key findings\n\n- `put(key)` → writes the row into the cache table\n")) == "allow"


@pytest.mark.parametrize("text", [
    "The run was preempted three times; each time it resumed from the newest checkpoint on its own.",
    "Symptoms so far: rank 2 stops printing at step 9,100 while the others wait until the watchdog kills the job.",
    "Note for reviewers: `--seed` does not make cuDNN deterministic, which is why the CI job sets it.",
    "This PR adds a `--check-config` flag that parses the YAML and exits, so config errors surface in seconds.",
    "The loss bumps every ~2k steps and each shard is ~2k batches, so a bad shard is my first guess.",
    "- アブレーション C はノードの確保待ちのため未着手",
    "- `configs/old/`: 使われていない設定ファイルを削除(どこからも読み込まれていないため)",
    "学習が遅いと感じたときに最初に見るべき設定なのに、ドキュメントが分かりにくいためです。",
])
def test_round21_status_notes_and_changes_are_not_blocked(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "Bottom line: the 2-point drop in recall is the dedup step, which now runs after the split.",
    "that's a known one with apex — the fused optimizer keeps a second fp32 copy, which is where your 2x memory comes from",
    "Patched `train.py`: the hook was registered on `encoder` but the module is named `enc`, so no gradients were clipped and the loss blew up.",
    "The decoder receives boxes in `cxcywh` while the metric expects `xyxy`, so every IoU is computed on distorted boxes.",
])
def test_round21_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


def test_round21_japanese_reason_with_a_count_short_is_a_claim():
    assert "assertion" in kinds("sampler が最後の端数バッチを捨てているので、評価サンプル数が毎回 1 バッチ分足りません。")


@pytest.mark.parametrize("text,decided", [
    # the failure sits on the reason's side: a reason for a choice, not a diagnosis
    ("The nightly job reads from the replica because the primary times out under load.", "allow"),
    ("The export step writes to local disk first because uploads straight to S3 fail on large shards.", "allow"),
    # the failure is the effect: a diagnosis, wherever the connective stands
    ("The job OOMs because the eval loop keeps the autograd graph alive.", "block"),
    ("Because the driver is older than the runtime, CUDA init fails on every node.", "block"),
    ("This is due to the NCCL bug in 2.18 where the ring hangs on a dead peer.", "block"),
])
def test_a_forward_connective_needs_the_failure_on_the_effect_side(text, decided):
    assert decision(analyze(text)) == decided


# Round 22/23: general forms from blind22/blind23's errors (read after their first runs).

@pytest.mark.parametrize("text", [
    "The two failing suites are `test_resume` and `test_fp8`; both logs are attached.",
    "The slow-suite skips are because those tests need 8 GPUs and this box has 4.",
    "The dataloader restarts a worker when a worker dies, for example because it ran out of shared memory.",
    "Loss scaling exists because fp16 has a narrow range, so small gradients would underflow to zero.",
    "Added `TORCH_SHOW_CPP_STACKTRACES=1` so the traceback shows where the C++ side faults; rerunning now.",
    "Since PyTorch 2.1 you can pass `mode=\"max-autotune\"`, which uses Triton templates to cut launch overhead for small matmuls.",
    "I don't think this is the same leak as last week's.",
    "`eval()` and `no_grad()` do different things, which confuses people. `eval()` changes dropout; it doesn't touch autograd at all.",
    "ご依頼どおり、OOM の原因を特定するために、まずメモリのスナップショットを取ります。",
    "複数ノードで動かすときは MASTER_PORT を渡してください。rank 0 がそのポートで待ち受けるためです。",
])
def test_round22_docs_plans_and_reports_are_not_blocked(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "What's eating the host memory is the cache of decoded frames the sampler keeps around.",
    "Turns out the optimizer state was restored into a fresh model, which is why every resumed run starts at a higher loss.",
    "Setup is broken because of the glibc mismatch between the wheel and the base image.",
    "Since transformers 4.44 changed the default attention backend, our padding mask is ignored and eval crashes.",
    "NCCL times out at init — the two nodes pick different interfaces and never see each other.",
    "ok mystery solved re: the slow data prep\nit was the tokenizer cache on NFS, every worker reloads it over the network",
    "yeah the OOM last night was the eval batch size, someone bumped it to 512",
    "Focal loss with gamma 5 is what wrecks the calibration here.",
    "Throughput fell off a cliff after the batch passed 64: the allocator starts splitting blocks.",
    "The export is twice the expected size: it stores the fp32 weights and the bf16 copy.",
    "The accuracy gap between the two eval scripts is the tokenizer being loaded with a different vocab.",
])
def test_round22_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "segfault の出どころは、OpenCV と PyTorch が別々の OpenMP ランタイムを読み込んでいることです。",
    "test loss だけが不自然に低いのはリークで、train と test に同じ話者が混ざっていました。",
    "ビルドが終わらないと思ったら、対応する wheel がなく毎回ソースからビルドされていたからでした。",
])
def test_round22_japanese_causes_are_claims(text):
    assert "assertion" in kinds(text)


# Round 24/25: general forms from blind24/blind25's errors (read after their first runs).

@pytest.mark.parametrize("text", [
    "The reason gradient checkpointing stays on is that the 30B model needs it to fit; that's a design choice, not a workaround for a bug.",
    "The eval crashed at step 900 with exit code 137; rerunning now with the same seed to see if it repeats.",
    "I'll trigger a deliberate OOM with batch size 1024 to check that the snapshot hook fires.",
    "`--seed` を固定したのは、比較実験から乱数によるブレを取り除くためです。",
    "ご質問の「なぜ Megatron ではなく FSDP を選んだのか」については、依存を増やしたくなかったためです。",
    "## 現状\n\n学習が不定期に止まります。例外は出ず、GPU 使用率は 100% に張り付いたままです。",
    "## 問題\n\nv3.2 にアップデートしてから、推論が 1 リクエストあたり 50ms → 150ms に遅くなりました。",
    "原因を特定するために、まず最初に失敗したジョブのログを集めます。",
    "【お知らせ】停電対応のため、今夜 20 時からクラスタが止まります。",
    "締め切りが来週にずれたので、今日の予約はキャンセルしました。",
    "念のため書いておくと、これはメモリリークではありません。ステップ数が増えてもメモリ使用量は一定でした。",
])
def test_round24_choices_plans_and_reports_are_not_blocked(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "That's why p99 sits at 700 ms: the server recompiles the graph for every new batch shape.",
    "The checkpoint loads with random heads — strict=False hid the key prefix mismatch from the wrapped save.",
    'You get "Expected all tensors to be on the same device" because the mask is created on the CPU in forward().',
    "It turns out the scores were computed on the training split: the split name is hard-coded, so the 97% means nothing.",
    "The test F1 is inflated: 9% of the test clips also appear in train under new names.",
    "Our converter writes boxes as cxcywh while the metric expects xyxy, so every box is misplaced.",
])
def test_round24_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "評価で F1 がやたら低かった件ですが、ラベルの ID 対応が学習時と評価時で逆になっていました。",
    "warmup が 0 になっていて初手から大きな lr が入ったので、loss が数十ステップで吹き飛んでいます。",
    "応答が遅い理由が分かりました。\n「--num-beams 8」のせいで、1 リクエストの計算量が 8 倍になっています。",
    "TTFT が 1 秒近い問題は、KV キャッシュを毎回確保し直していることでほぼ全て説明できます。",
])
def test_round24_japanese_causes_are_claims(text):
    assert "assertion" in kinds(text)


# Round 26/27: general forms from blind26/blind27's errors (read after their first runs).

@pytest.mark.parametrize("text", [
    "Eval crashed with KeyError: 'labels' on the third shard only; the other shards completed normally.",
    "Run 12 crashed at step 800 with exit code 137; relaunched it on another node.",
    "Loss went to NaN at step 9,120 and stayed there; the last finite value was 2.87.",
    "`inference_mode` also skips view tracking, which saves a bit of overhead.",
    "**Actual** GPU util drops to 0% and the process sits there until I kill it.",
    "DataLoader は原因ではありません。データを全部メモリに載せても同じステップでハングしました。",
    "NCCL_DEBUG=INFO を付けると初期化ログが出るので、ハング箇所の特定に役立ちます。",
    "ディスク容量節約のため、ログのデフォルトは 100 ステップごとです。",
    "ワーカーが別プロセスで読むので、前処理が重い場合でも GPU の計算と重ねられます。",
    "再現性のための設定ですが、一部の演算が遅くなるため、本番ではオフにすることを推奨します。",
    "CPU に置けば GPU メモリが空く代わりに毎 step 転送が発生するので、速度は落ちます。",
])
def test_round26_reports_docs_and_controls_are_not_blocked(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "Loss spikes right after resume - only the weights were restored, the optimizer state starts from zero.",
    "GPU utilization sits at 25% and that's entirely the tokenizer starving it.",
    "It's the new default of `use_reentrant` in `torch.utils.checkpoint` — old configs can't be loaded anymore.",
    "The 35% GPU utilization comes from the loader decoding PNGs in the main process.",
    "It turns out the adapter was saved unmerged, which is why the fine-tune effectively starts from random init.",
    "Each batch re-reads the parquet footer over S3; that's where the 400 ms per step goes.",
    "Step time doubled after the upgrade, and that is torch.compile recompiling the graph for every new shape.",
    "The earlier restarts were all one bad node whose NIC drops under load.",
])
def test_round26_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "ラベルの 0 始まりと 1 始まりがずれていて、損失がクラスを 1 つずつずらして学習しています。",
    "今回のような崩れた出力はこれが原因です。",
    "要するに、eps が 1e-12 のまま fp16 で計算されていたのが NaN の出どころです。",
])
def test_round26_japanese_causes_are_claims(text):
    assert "assertion" in kinds(text)


def test_japanese_findings_claim_defects_not_symptoms():
    message = "## 分かったこと\n\n- OOM は最初の評価ステップでだけ起きます。\n- 評価中のピークメモリは学習時より 9GB 多いです。\n"
    assert decision(analyze(message)) == "allow"
    message = "## 分かったこと\n\n- DataLoader が drop_last=True のままで、末尾のバッチが捨てられています。\n"
    assert decision(analyze(message)) == "block"


# Round on blind28/29 (session 5): general forms, written afresh, not copied from the corpus.
@pytest.mark.parametrize("text", [
    "Median latency went from 40 ms to 210 ms because the tokenizer is rebuilt on every request.",
    "The gap vs. the baseline comes from evaluating with the training-time augmentation still on.",
    "Accuracy reads 0.0 because the labels are cast to strings and never equal the predictions.",
    "That `CUDA driver version is insufficient for CUDA runtime version` error is just the image shipping a newer runtime than the host driver.",
    "The checkpoint loads with strict=False and skips every key, which is why you get chance-level results.",
    "it's the NFS mount on node 3, it's flapping.",
    "Serving p95 jumped to 700 ms after the deploy; the new build turns request batching off.",
])
def test_round28_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    # the effect of "the reason" / "which is the reason" is named, and it is no failure
    "The reason for the migration is that the old cluster is being retired.",
    "Syncing every step has a cost, which is the reason the guide recommends doing it every 100 steps.",
    # a task, a pointer, a purpose
    "You asked me to find the cause of the slowdown; I'll start with a profile of one step.",
    "The first error in the log is below.",
    "I added a `--max-restarts` flag, so a preempted job can come back on its own.",
    "Padded the vocab to a multiple of 64 so the fused kernel is eligible; throughput dropped by nothing measurable.",
    # docs, and an expected value that is not a hedge
    "Here's what `expandable_segments` does: it lets the allocator grow a segment instead of reserving a new one, which reduces fragmentation.",
    "I suspect, but haven't shown, that the drop comes from the new filter removing hard positives.",
    "Neither is confirmed. Plan: rerun with the old filter and compare recall.",
])
def test_round28_english_non_claims_and_hypotheses_pass(text):
    assert decision(analyze(text)) == "allow"


@pytest.mark.parametrize("text", [
    "検証を毎エポック回すようにしたのは、異常に早く気づきたいという要望があったためです。",
    "ログが多すぎて追いにくいので、rank 0 以外は WARNING 以上だけを出すように変更しました。",
    "明日は保守作業のため GPU ノードが使えないので、今夜のうちにジョブを投げておきます。",
    "テストが落ちるとマージが止まってしまうので、GPU テストは別ジョブに分けました。",
    "古い版に戻すと再現しないので、その間の差分を見るのがよさそうです。",
    "`ERROR: Failed building wheel` としか出ていないので、現時点では原因を絞り切れていません。",
    "torch.compile は初回にグラフをトレースするので、一般に最初のステップは後続より時間がかかります。",
    "このエラーが出たら、バージョン情報を貼ってください。再現の手がかりになるためです。",
    "設定の変更は、ログが読みにくいという要望によるものです。",
])
def test_round28_japanese_rationale_plans_and_docs_pass(text):
    assert decision(analyze(text)) == "allow"


def test_a_fix_after_a_stated_japanese_failure_still_claims():
    # the reason for the agent's action is itself a failure stated as fact: a diagnosis
    assert "assertion" in kinds("GPU 3 番のメモリが壊れているので、ノードは drain しておきました。")


@pytest.mark.parametrize("message", [
    "> Why did you pick bf16 over fp16 for this run?\n\nTwo reasons. fp16 overflows in the attention logits at this width, "
    "because its range is small. bf16 keeps the fp32 exponent, so the loss scaler is not needed.",
    "> なぜ Adam ではなく AdamW を使っているのですか？\n\nAdam に L2 正則化を足すと、decay が学習率でスケールされてしまい、"
    "意図した強さで効きません。decay を更新から切り離せるためです。",
    "Here's how the gradient scaler works.\n\nfp16 has a narrow range, so small gradients underflow to zero. The scaler "
    "multiplies the loss before backward and unscales before the step; steps with inf are skipped.",
    "GradScaler の仕組みを簡単に説明します。\n\nfp16 は表現できる範囲が狭いため、小さな勾配は 0 に丸められてしまいます。"
    "そのため loss に係数を掛けてから backward します。",
])
def test_a_message_that_explains_a_mechanism_or_a_design_choice_is_not_a_diagnosis(message):
    assert decision(analyze(message)) == "allow"


def test_an_explainer_opening_does_not_cover_a_root_cause_section_below_it():
    message = ("Here's how the gradient scaler works.\n\nIt scales the loss before backward.\n\n"
               "## Root cause\n\nYour run diverges because the scaler was created after the first step.")
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("text", [
    "推論が遅いのは no_grad で囲っていないからで、毎回グラフを作ってメモリも食っています。",
    "val の transform に学習用の augmentation が混ざっており、検証 accuracy が 3 ポイント低く出ています。",
    "CUDA のバージョン不一致です — ドライバが 11.4 までしか対応していないのに cu121 版が入っています。",
])
def test_round28_japanese_causes_are_claims(text):
    assert "assertion" in kinds(text)


def test_a_failure_reason_label_in_a_progress_list_claims():
    message = "進捗です。\n\n- 測定：完了\n- 効率が低い理由：all-reduce が backward と重なっていません\n"
    assert decision(analyze(message)) == "block"


# Round on blind30 (session 5)
@pytest.mark.parametrize("text", [
    "Running stats keep updating during eval, which is what drags validation accuracy down by 3 points.",
    "Scores differ between identical runs due to the sampler seeding from the wall clock.",
    "Weight decay on the norm gains — that's the whole reason the fine-tune underfits.",
    "ok figured out why the eval jumped 2 points — the dedupe step also ran on the test set.",
    "Status on the 8-node job: it was stalling at the first all-gather — mismatched `sharding_strategy` between the two launchers.",
    "The sampler drops the tail of every shard, and the epoch covers 9,600 samples instead of 10,000.",
    "I reran the eval, and the accuracy is still wrong because the label map is reversed.",
])
def test_round30_english_causes_are_claims(text):
    assert "assertion" in kinds(text)


def test_a_confirmed_heading_after_the_hypotheses_asserts():
    message = ("## Hypotheses\n\n1. The port might have changed the matmul precision.\n\n"
               "## Confirmed\n\nThe rest of the gap comes from the eval script truncating long answers.")
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("text", [
    "How `gradient_accumulation_steps` works in the Trainer: each micro-batch loss is divided by N. "
    "The optimizer steps once every N micro-batches, which is why `global_step` advances N times slower.",
    "I haven't looked into the two failures; both are queued for tomorrow.",
    "heads up: draining the nodes tonight for the driver upgrade. the reason is the security patch, nothing's broken.",
    "v0.4.2 の変更点: `eval_steps` を独立に指定できるようにしました。ログは細かく取りたいが評価は間引きたい、という要望が多かったためです。",
    "この記事では、`num_workers` を増やしすぎるとかえって遅くなる理由を、実測を交えて説明します。",
    "- ハングの原因調査はまだ手を付けていません。まず学習を止めないことを優先したためです",
    "GPU をワーカー側で使わないのは、fork 後のプロセスで CUDA を初期化するとエラーになるためです。",
])
def test_round30_non_claims_pass(text):
    assert decision(analyze(text)) == "allow"


def test_a_system_part_that_does_not_use_the_gpu_still_claims():
    # the choice not to use the GPU is ours; "ollama doesn't use the GPU" is what a part does
    assert "assertion" in kinds("ollama が GPU を使わないのは、ROCm が gfx1030 に対応していないからです。")


def test_ruled_out_items_and_its_not_the_x_are_reported_as_negated():
    message = ("## What I ruled out\n\n- **Gradient clipping:** the threshold is never reached before the divergence.\n"
               "- **Data order:** a new seed diverges at the same step.\n")
    assert kinds(message) == ["negated", "negated"]
    assert kinds("It's not the data loader: with in-memory tensors the step time is unchanged.") == ["negated"]


def test_a_hedge_taken_back_asserts():
    assert "assertion" in kinds("DataParallel を使ってるからだと思いますよ、じゃなくて確実にそれです。メモリが落ちるのはそのせいです。")


# Round on blind31 (session 5)
@pytest.mark.parametrize("text", [
    "The 3-point BLEU gap against the paper is the scorer lowercasing hypotheses but not references.",
    "root cause: the loss is divided by accum_steps twice, so the effective LR is 8x smaller and the run looks like it's not learning.",
    "The collate fn sorts inputs by length but never reorders the labels, and every batch ends up with shuffled targets.",
    "毎ステップ再コンパイルが走っていたのが遅さの原因で、系列長を固定したら 0.4 秒まで縮みました。",
])
def test_round31_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("message", [
    "`set_epoch()` is never called on the sampler. Every epoch feeds the same order and the curve goes flat after epoch 2.",
    "`DistributedSampler` の `set_epoch()` が一度も呼ばれていません。全エポックで同じ順序のデータが流れ、学習曲線が平らになっています。",
])
def test_a_defect_then_the_failure_it_explains_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("text", [
    "Loss went NaN around step 9k on both seeds; the eval at step 8k looked completely normal.",
    "For the reason you gave in the issue, I kept pin_memory=True as the default.",
    "**Repro steps** (from the issue reporter):\n1. Install 0.9.0.\n2. Observe that the process exits with code 139.",
    "Here's what I observed, without a diagnosis yet:\n- Job OOMs at step 14,000 on rank 2 only.\n- Memory on rank 2 rises by 1 GB per 1,000 steps.",
    "It isn't the driver: both machines report the same versions. So the import failure must be somewhere else.",
    "bf16 を使う理由について質問があったので補足します。仮数部が 7 ビットしかないため精度は落ちますが、問題になることは少ないです。",
    "I couldn't get further today. The job segfaults right after loading, both with and without `HIP_LAUNCH_BLOCKING=1`. Can you give me access?",
])
def test_round31_non_claims_pass(text):
    assert decision(analyze(text)) == "allow"


def test_japanese_negated_defect_names_the_cause_ruled_out():
    assert kinds("ドライバとの不整合ではないです。どちらも同じバージョンでした。")[0] == "negated"


# Round on blind32 (session 5)
@pytest.mark.parametrize("text", [
    "our F1 is 3 points under the paper bc the labels are shifted by one in preprocessing",
    "that's the classic one: only rank 0 runs eval and there's a barrier inside it, so ranks 1-7 sit in the next all_reduce forever.",
    "Ran into the same `bus error`. It's /dev/shm: Docker gives containers 64 MB by default.",
    "`torch.cuda.is_available()` returns False in the new image. The image ships the CPU-only wheel from PyPI.",
    "NCCL のタイムアウトは、TCP にフォールバックして all-reduce が極端に遅くなった結果です。",
    "要するに、LayerNorm まで fp16 にキャストしていたのがいけなかったわけです。",
    "結局、ドライバ 470 が CUDA 12.1 に対応していない、というだけの話でした。",
    "評価スクリプトがリファレンスだけを小文字化していて、仮説側はそのままなので、大文字のトークンがすべて不一致になっています。",
])
def test_round32_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "The job crashed at step 400 with exit code 137; the last log line is \"step 400 loss 1.92\".",
    "Quick explanation of how DDP handles gradients, since you asked: hooks all-reduce buckets during backward. "
    "That overlap is the reason DDP has less overhead than an all_reduce after backward.",
    "For context on the scaler: fp16 has a narrow range. When it sees inf it skips the step and lowers the scale, "
    "which is why a few steps are skipped early in training.",
    "I set `fused=False` and still see the same memory growth, so whatever is leaking, it isn't the optimizer path.",
    "先週のクラスタ障害のせいで、今週の学習スケジュールが 2 日後ろ倒しになっています。",
    "loss が NaN になったのは 3 回の実行中 2 回で、いずれも 2,000 ステップ前後でした。",
    "## キャッシュ層を入れた理由\n\nテンソルをローカルにキャッシュする構成にしました。毎エポック読み直すと、帯域を他チームと取り合うことになるためです。",
    "## Why we chose FSDP\n\nDeepSpeed would need a custom image, and ZeRO-3 stalls on our network because the links are slow.",
])
def test_round32_non_claims_pass(text):
    assert decision(analyze(text)) == "allow"


def test_a_background_section_of_a_pr_can_still_diagnose():
    message = "## 背景\n最終バッチのサイズが rank ごとに異なり、collective の呼び出し回数が揃わず、エポック末にハングしていました。"
    assert decision(analyze(message)) == "block"


# Round on blind33 (session 5)
@pytest.mark.parametrize("text", [
    "The memory creep is the metrics dict holding loss tensors instead of floats.",
    "The scheduler is stepped per epoch instead of per iteration, so LR sits at 1e-7 for the entire first epoch and nothing learns.",
    "The loss is divided by accum_steps in both the trainer and the wrapper, making the effective LR 8x too small.",
    "Label smoothing is applied twice, in the targets and in the loss, and that inflates the reported eval loss.",
    "val acc sitting at exactly 0.10 on CIFAR-10 -> the cache builder shuffles labels apart from the images.",
    "I'm not sure about the second spike. The first one is the LR restart at step 20k though.",
    "The 94% top-1 was wrong. Eval was actually reading the train split: `split=` is ignored once `data_files` is passed.",
    "CUDA ドライバが 525 系なので、CUDA 12.4 でビルドされた PyTorch が GPU を認識できていません。",
    "- 学習が遅い件：`num_workers=2` で GPU がデータ待ちになっており、使用率が 35% に留まっている",
])
def test_round33_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "DistributedSampler pads the index list so every rank gets the same count; pass drop_last=True if you would rather truncate.",
    "- 13B の SFT：step 2300 で CUDA OOM が発生して停止。batch size を半分にして再投入済み（原因は未調査）",
    "## loss scaling とは\n\nfp16 は最小の正規化数が大きいため、小さな勾配は 0 に丸められてしまいます。",
    "## 背景\nCI で毎回フルの評価を回すと 40 分かかってしまうので、先頭 500 件だけ使えるようにしたい、という要望があったためです。",
    "この Issue はログが足りず原因を判断できないため、いったんクローズします。",
])
def test_round33_non_claims_pass(text):
    assert decision(analyze(text)) == "allow"


def test_a_japanese_failure_chain_with_a_cause_in_it_still_claims():
    assert "assertion" in kinds("`--grad-accum 0` を指定したことでゼロ除算が起きて落ちています。")


# Round on blind34 (session 5)
@pytest.mark.parametrize("message", [
    "The model diverges at step 12k. The warmup is far too short for a 4M-token batch.",
    "Since gradient clipping is applied before unscaling, the effective threshold is thousands of times smaller and the model barely trains.",
    "The spikes line up with checkpoint saves; the save resets the loader, so the first batches of the shard are seen twice.",
    "Reason for the 0.0 recall on the minority class: a 0.5 threshold applied to raw logits.",
    "Two things were breaking it:\n1. accelerate launched with fp16 from a cached config.\n2. the collator received a tokenizer without a pad token.",
])
def test_round34_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Reason for the rerun: the user wants numbers on the cleaned split.",
    "Summary of changes:\n- `train.py`: log throughput because the dashboard was missing it.\n"
    "- `configs/base.yaml`: `num_workers` now defaults to 8.",
    "ZeRO stage 2 shards optimizer states, which is why per-GPU memory for them drops roughly linearly with the GPU count.",
    "- Added: `--resume-strict`, which causes training to abort if any key is missing from the checkpoint.",
    "cuDNN times several algorithms per new shape. For that reason the first few iterations are slower than the rest.",
    "`set_epoch()` を毎 epoch 呼ぶのは、シャッフルのシードを epoch ごとに変えるためです。",
    "## セットアップ\n\nflash-attn はビルドに時間がかかるので、`MAX_JOBS=4` を指定しておくとメモリ使用量を抑えられます。",
])
def test_round34_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_an_intransitive_verb_before_tame_is_a_reason_not_a_purpose():
    assert "assertion" in kinds("OOM で落ちるのは、メモリが seq_len の 2 乗で増えるためです。")


def test_a_suspicion_that_turned_out_wrong_is_ruled_out():
    assert kinds("CUDA のバージョン不一致を疑っていましたが、違いました。")[0] == "negated"


def test_a_changes_list_still_carries_its_diagnoses():
    message = "## Changes\n- Lowered `--gpu-memory-utilization` to 0.88 (the KV cache left no room for the CUDA graphs, hence the startup crash)."
    assert decision(analyze(message)) == "block"


# Round on blind35 (session 5)
@pytest.mark.parametrize("text", [
    "The sampler only yields indices up to len(dataset) - 2, and the last validation image is never scored.",
    "Your labels run from 1 to 10 and you declared 10 classes, so label 10 is out of range.",
    "Gradient norms explode after the refactor from the missing clip_grad_norm_ call.",
    "ok figured out why eval is 8 points lower on the cluster 🙃 the image has pillow-simd and it resizes differently",
    "That's what makes the eval F1 wobble: we average per-batch F1 instead of computing it over the set.",
    "DDP deadlocks whenever the auxiliary head is skipped on some ranks.",
    "The metric is zero because every prediction is the padding id.",
    "Driver 525 tops out at CUDA 12.0, which is why the cu121 wheel says no GPU is available.",
    "yeah it's the shuffle buffer, 1000 is way too small for a class-sorted dataset so the loss saws up and down",
    "setuptools が 70 系に上がったことで API が消え、setup.py の参照が ImportError になっていました。",
])
def test_round35_causes_are_claims(text):
    assert "assertion" in kinds(text)


@pytest.mark.parametrize("text", [
    "Loss went from 2.31 to 7.9 between step 1,800 and 1,820 and has stayed there since.",
    "`no_grad()` stops autograd from recording operations, so no activations are saved and memory use drops.",
    "cuDNN benchmark mode is off by default because autotuning adds overhead whenever input shapes keep changing.",
    "The trainer saves a checkpoint every epoch, and the job crashed at step 400.",
    "ジョブは 3 回とも step 12,000 前後で止まりました。エラーログは空です。",
    "## なぜ勾配累積を使うのか\n\nGPU メモリが足りないせいで大きなバッチが組めない場合でも、実効バッチサイズを大きくできます。",
])
def test_round35_non_claims_pass(text):
    assert decision(analyze(text)) == "allow"


# Round on blind36 (session 5)
@pytest.mark.parametrize("message", [
    "The sampler reshuffles with the same seed on every rank, and each of the eight GPUs ends up training on identical batches.",
    "The optimizer is built from `ema.parameters()`, not `model.parameters()`. The training model's weights never change.",
    "Max input length is 512 tokens while the prompts average 3k; the long-context scores are computed on truncated inputs and mean nothing.",
    "Rank 0 saved inside the rank check and the save called a barrier, so rank 0 and the other ranks were waiting on different barriers.",
    "原因判明しました — GradScaler を二重に使っていて、unscale_ が 1 ステップに 2 回走っています。",
])
def test_round36_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Either way, try a single-example eval first: it should match the reference exactly if padding is the issue.",
    "Because every rank must see the same count, it pads with repeats, unless `drop_last=True`, in which case it drops the tail.",
    "`torch.compile` はオプション扱いにしました。環境によってはコンパイルに数分かかるので、外せるほうが便利だからです。",
    "レイテンシは p50 と p99 の両方を出しています。平均だけだと外れ値に引っ張られるせいで、体感と合わなくなるからです。",
    "「なぜ DeepSpeed ではなく FSDP を選んだのか」というご質問への回答です。\n\n監視ツールが FSDP のメトリクスに対応しているからです。",
    "H100 は電源の都合で夜間しか使えないため、追加の計測は明日の夜に回します。",
])
def test_round36_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_a_quoted_question_ending_in_node_is_not_a_connective():
    got = kinds("ご指摘の「tokenizer の不一致が評価値を下げているのでは」という点ですが、それは原因ではありませんでした。")
    assert "assertion" not in got and "negated" in got


# Round on blind37 (session 5)
@pytest.mark.parametrize("message", [
    "Epochs take 40 minutes since num_workers=0 is hard-coded in the eval loader.",
    "The collate function drops the last sample of each batch, and the reported eval count is short by one per batch.",
    "Your \"no kernel image is available\" error is a driver/toolkit mismatch: the wheel targets CUDA 12.4.",
    "It turns out the random crop runs after normalization, which is why validation accuracy fell four points.",
    "Class 7 scores F1 = 0.0 as the label map in config.json is ordered differently from the encoder.",
    "## What happened\n\nRank 5 froze at the first all_gather.\n\n## Why\n\nThe skip logic lets one rank issue one fewer collective.",
    "このハングは NCCL 2.18.1 の既知の不具合です。",
    "## 仮説と結論\n最初はデータの偏りを疑いましたが、違いました。検証スコアが低かったのは、最後のエポックを評価していたためです。",
])
def test_round37_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The scheduler reason field is set to \"preempted\" when the cluster reclaims a node; the job is requeued automatically.",
    "Lowering the batch size to 8 made the OOM go away, but I still don't know what is using the memory.",
    "- `train.py`: checkpoint every 1000 steps instead of every epoch, so preempted jobs lose less work.",
    "Answering your question about `cudnn.deterministic`: it forces deterministic kernels, which can be slower because the fastest ones use atomics.",
    "## Why\n\nWe keep the eval on CPU because the GPU nodes are slow to schedule.",
    "今回 ZeRO-3 を使わなかった理由は、all-gather が律速になると事前の見積もりで分かっていたためです。",
    "再現性のために seed を固定していますが、cuDNN の一部の演算は非決定的なので、完全に同じ結果になるとは限りません。",
    "「なぜ LoRA の rank を 16 にしたのか」というご質問について。\n\n16 と 64 で差がほとんどなく、学習時間は 16 の方が小さかったためです。",
    "8 GPU で回すと 3 時間ほどで必ず止まります。nvidia-smi 上ではメモリは確保されたままで、使用率は 0% です。",
])
def test_round37_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


# Round on blind38 (session 5)
@pytest.mark.parametrize("message", [
    "The val loader reuses the training transforms, random crop included, and the val accuracy jitters between identical runs.",
    "Short version: the model was trained with `bos_token` prepended and serving doesn't prepend it. That's the whole quality regression.",
    "The nightly numbers are wrong. The bucket got re-synced with v2 prompts while the scorer still expects v1, everything parses as empty.",
    "I looked into why `pip install -e .` fails on the cluster image.\n\nThe build compiles with nvcc 11.8 while torch was built with 12.1.",
    "さっきの分散学習のハング、わかりました〜\nrank ごとにデータの件数が違ってて、一部の rank だけ all_gather を呼ばずに抜けてました。",
    "- compute_metrics は predictions をそのまま argmax している\n- 結果として accuracy がほぼチャンスレベルの 0.51 になっている",
])
def test_round38_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Due to the maintenance window, the A100 partition will be unavailable Saturday 02:00-06:00 UTC.",
    "greedy decoding makes the scores deterministic, so two runs give the same number and regressions are easier to spot.",
    "GradScaler scales the loss so small fp16 gradients don't underflow, and skips the step whenever it finds inf or NaN in the gradients.",
    "`torch.cuda.empty_cache()` について補足します。\n\nキャッシングアロケータを使っているため、解放してもメモリはすぐには返されず、プロセス内で保持されます。",
    "- step 3012 でログ出力が止まり、以降 40 分間進捗なし\n\n原因はこれから調べます。",
    "どなたか原因がわかる方がいたら教えてください。",
    "障害発生時の調査時間を短縮するためです。",
])
def test_round38_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("text", [
    "Re: the comment that the new image caused the regression — I don't think so.",
    "ドライバのバージョン不一致が原因という線は、これで消えました。",
])
def test_round38_discussed_causes_are_not_asserted(text):
    assert "assertion" not in kinds(text)


def test_good_question_does_not_hide_the_diagnosis_after_it():
    assert decision(analyze("Good question. It only hangs on two nodes because NCCL picks eth0 instead of InfiniBand.")) == "block"


@pytest.mark.parametrize("message", [
    "> why does my model crash on the eval set?\n\nThe eval loader uses a batch size of 512 with no gradient checkpointing.",
    "## Why does the fine-tune score worse than the base model?\n\nThe eval uses the chat template on one model and plain prompts on the other.",
])
def test_an_answer_to_a_why_does_it_fail_question_is_a_diagnosis(message):
    assert decision(analyze(message)) == "block"


def test_a_why_question_about_a_choice_is_not():
    assert decision(analyze("> why do you use bf16 here?\n\nIt keeps the fp32 exponent range, so no loss scaler is needed.")) == "allow"


_DROP = [Evidence("E1", "n_pred=9984 n_ref=10000\nbatch_size=128, drop_last=True\n", "python eval.py")]


@pytest.mark.parametrize("message", [
    "The eval accuracy is wrong because the loader has `drop_last=True` (E1).\n\nThis is why the reported accuracy is off by 0.3 points.",
    "The eval accuracy is wrong because the loader has `batch_size=128, drop_last=True`.\n\nThat mismatch means the metric is computed on 9984 samples, so the accuracy is off by 0.3 points.",
    "評価件数が合わない原因は、`batch_size=128, drop_last=True` で最後の端数が捨てられていることです。\n\nこの 16 件が落ちているため、accuracy が公式スクリプトの値とずれていました。",
])
def test_a_sentence_whose_cause_is_the_cited_finding_draws_on_its_evidence(message):
    rep = analyze(message, evidence=_DROP)
    assert decision(rep) == "allow"
    assert [c.evidence for c in rep.claims if c.kind == "assertion"][-1] == ["E1"]


@pytest.mark.parametrize("message", [
    # "that" is the effect here, and a new cause follows
    "The eval accuracy is wrong because of `drop_last=True` (E1).\n\nThe run is also slow. That's because the tokenizer runs on one core.",
    "評価件数が合わない原因は `batch_size=128, drop_last=True` です。\n\nこれは、トークナイザが 1 コアで動いているためです。",
    # the finding before it was not cited
    "The eval accuracy is wrong because the loader drops the last batch.\n\nThis is why the reported accuracy is off by 0.3 points.",
    # a new section, a new finding
    "## Eval count\nThe eval accuracy is wrong because of `drop_last=True` (E1).\n\n## Speed\nThis is why the run crashes at step 400.",
    # items of a findings list stand alone
    "1. The eval accuracy is wrong because of `drop_last=True` (E1).\n2. So the run also crashes at step 400, because the cache overflows.",
])
def test_a_new_cause_after_a_cited_one_still_needs_its_own(message):
    assert decision(analyze(message, evidence=_DROP)) == "block"


@pytest.mark.parametrize("message", [
    "Tokenizer throughput is limited by the regex pre-tokenizer running in one process.",
    "Eval loss jumps to `inf` on the last batch and that's from the padding mask being all zeros.",
    "Turns out the launcher was passing --fp16 instead of --bf16, so the loss scale keeps collapsing.",
    "学習スクリプトの起動がこけるのは transformers と accelerate のバージョン違い。",
    "推論時に train 用の augmentation がかかっていて、精度が実行のたびに揺れています。",
    "ベースラインより 3 ポイント低い件：評価時にも dropout を有効にしたままなのが響いています。",
    "遅さの正体 ― 毎ステップ tokenizer を作り直していました。",
])
def test_round39_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "What this flag does: `--offload` moves optimizer states to host memory. The cost is PCIe traffic, so each step takes a little longer in exchange for fitting the larger model.",
    "「なぜ Hydra をやめたのか」については、設定の上書きが複雑になりすぎて、素の argparse のほうが読みやすかったためです。",
    "学習は step 1,200 で止まりました。ディスクの書き込みも止まったままです。",
    "Turns out the cache was already warm, so there is nothing to change.",
    "ご質問の「バッチサイズが原因では」という点ですが、今回は当てはまりません。",
])
def test_round39_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("text", [
    "All three versions give the same curve, so the upgrade isn't what makes it diverge.",
    "Looked at the kernel angle for the hang and it's not that: both hosts run the same one.",
    "エラーは `device-side assert triggered` なので、メモリ不足とは別物です。",
    "「学習率が原因では」というご指摘ですが、今回は当てはまりません。",
])
def test_round39_ruled_out_causes_are_negated(text):
    assert "negated" in kinds(text) and "assertion" not in kinds(text)


@pytest.mark.parametrize("message", [
    "Heads-up for the team: the nightly OOMs were the new eval hook keeping every batch on the GPU.",
    'lol the "slowdown" was the profiler being left on in the config',
    "Turns out the tokenizer was built with a different vocab than the checkpoint, so the outputs are garbage.",
    "transformers と tokenizers のバージョンが噛み合っておらず、それで import の段階で undefined symbol が出ています。",
    "結論から言うと、語彙ファイルが学習時と推論時で違っていました。",
    "ロック解放が呼ばれないまま残り、そのせいで保存処理が永久に終わりません。",
])
def test_round40_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The user asked for a root-cause analysis, so I will first reproduce the hang on one node.",
    "How does FSDP shard the optimizer state? Each rank keeps only its slice. The reason for this is that a full copy per rank is memory-bound, so sharding lets larger models fit.",
    "What does `torch.compile(mode='max-autotune')` do? It benchmarks kernels at start-up. That's why the first step takes minutes.",
    "You asked why we didn't just lower the batch size. Because that only hides the OOM; it doesn't tell us which tensor grows.",
    "保存間隔を 500 ステップにしたのは、1 回の保存に数分かかるので学習を止めすぎないためです。",
    "activation を再計算してメモリを減らす仕組みで、そのぶん学習速度は 2 割ほど落ちます。",
    "セットアップ手順です。\n\nflash-attn はビルドに時間がかかるので、最後に別途インストールしています。",
    "学習が遅い原因がデータ側かモデル側かはまだ切り分けられていないので、次はプロファイルを取ります。",
    "推論結果がおかしいとの報告を受けたので、まず手元で再現します。",
])
def test_round40_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round40_an_unfinished_question_quoted_back_is_not_a_cause():
    assert "assertion" not in kinds("以前「キャッシュが古いせいでは」と書きましたが、それは違いました。")


def test_round40_ruled_out_after_an_aside():
    assert kinds("fwiw it isn't the driver version, both clusters run 550 and only one of them hangs") == ["negated"]


@pytest.mark.parametrize("message", [
    "The classifier predicts the same class for every input — the labels were cast to strings before the loss.",
    "Eval loss stayed lower than training loss the whole run, since the eval shard is a copy of shard 0.",
    "Same issue here.\n\nIt's the tokenizer warm-up — it rebuilds the vocab trie on every call.",
    "Attention falls back to the math kernel because the mask is passed as float64.",
    "精度が 0.98 になっていたのは評価データに学習データが混ざっていたからで、重複分がスコアを押し上げていました。",
])
def test_round41_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "`pad_to_multiple_of=8` pads every sequence so each batch has the same shape.",
    "This version drops CUDA 11.8 support because the new kernels need 12.1.",
    "The wrapper applies torch.compile before DDP, because compiling afterwards changes which graph breaks the hooks see.",
    "How the scheduler picks nodes, since you asked: it sorts by free memory and fills the emptiest first, so small jobs land together.",
    "Ideas that fit the symptoms (fine on 1 node, hangs on 2):\n\n- The second node resolves the master address to a docker bridge, so rendezvous never completes.",
    "木曜はメンテのせいで使えないので、長いジョブは水曜までに終わるようにしてください。",
    "先週の障害対応のため、今日の定例は 15 時からです。",
    "seed を固定しているので、同じ設定なら毎回同じ順番でサンプルが出てきます。",
])
def test_round41_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round41_a_control_after_a_ruled_out_cause_is_its_evidence():
    text = "メモリ不足の件、gradient checkpointing の有無は関係ありません。on/off どちらにしても、同じ step で 78GB に達して落ちることを確認しました。"
    assert kinds(text) == ["negated"]


@pytest.mark.parametrize("message", [
    "The validation F1 is inflated — the eval split overlaps with train since the dedup pass was dropped.",
    "Hung first step = the compile cache being rebuilt on every rank.",
    "So the reason the tokenizer won't load is that it was saved with a newer `tokenizers` release.",
    "Hit the same thing on 2.3.1. It's the new default for `weights_only` — it refuses the pickled optimizer state.",
    "### Why step time went from 0.4 s to 2 s\n\nThe collate function now pads every batch to 4096 tokens.",
    "ドライバが古いままなので CUDA ランタイムが初期化できず、GPU が見えていません。",
    "勾配クリップの閾値が 0 のままになっていることが、今回の発散の引き金になっています。",
    "loss が `nan` になっているのは、ラベルに欠損値が含まれているからです。",
])
def test_round42_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The reason this flag exists is that people kept asking how to pin NCCL to one interface.",
    "ユーザーからは「原因を特定して、できれば修正まで」と頼まれています。",
    "今日の 18 時からメンテで学習ノードが止まるので、長いジョブは投げないでください。",
])
def test_round42_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("text", [
    "ハングの原因が通信側にあるかを確認しましたが、違いました。",
    "tokenizer の差が犯人説、違ってました。",
    "データローダは原因ではありません。GPU 利用率が 99% に張り付いていて、I/O 待ちは発生していませんでした。",
])
def test_round42_ruled_out_is_not_asserted(text):
    assert "assertion" not in kinds(text)


@pytest.mark.parametrize("message", [
    "Step time doubled after the upgrade; TF32 matmuls got switched off by the new default.",
    "yeah that's the fp16 cast in the attention softmax, long prompts overflow and the eval tanks",
    "Workers are not seeded, so the same config gives different numbers each time.",
    "The tokenizer pads on the left, and that's why our scores never matched the paper.",
    "評価値がおかしかったのは `model.eval()` の呼び忘れです。",
    "学習が遅くなった理由: 毎ステップ tokenizer を作り直している。",
    "loss が下がらない件について。\n\nスケジューラを epoch ごとに呼んでいるので、学習率がほぼ 0 のままでした。",
])
def test_round43_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Progress: 10 of 16 runs done. No crashes so far; best val loss is 1.91.",
    "### Motivation\nLong jobs that crash lose hours because the last checkpoint is far behind.",
    "原因調査の進捗: ログの収集までは完了、まだ解析には着手していません。",
    "これはバグではなく仕様で、全 rank が同じ順序を共有するための設計です。",
    "今回 `torch.compile` を外したのは、コンパイルに 6 分かかって CI のタイムアウトを圧迫するためです。",
])
def test_round43_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("text", [
    "I checked the loader first since it was the obvious suspect, and it is not the cause of the hang.",
    "「fp16 にしたから遅くなった」という仮説は外れでした。",
    "「拡張が強すぎるせいで val が伸びない」という説は、拡張を外しても同じなので否定できます。",
])
def test_round43_a_named_hypothesis_ruled_out_is_negated(text):
    assert kinds(text) == ["negated"]


@pytest.mark.parametrize("message", [
    "Train and val metrics disagree because the eval loop never calls model.eval().",
    "The learning rate is far too high for batch 16 — the loss goes `nan` two steps after warmup.",
    "要するに、unscale_ の前に clip_grad_norm_ を掛けているので、クリッピングが実質無効になっています。",
    "直りました。pad を -100 にしていなかったせいで、パディング位置まで loss に入っていました。",
    "1 step に 2.4 秒かかっていたのは毎 step でチェックポイントを保存していたためです。",
    "精度が論文より 5 ポイント低い件です。\n\n評価時の前処理が学習時と揃っておらず、画像が引き伸ばされています。",
])
def test_round44_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The eval now writes per-example predictions, which makes it easier to find the cause of regressions later.",
    "Training diverged again on the 7B config; this is the second time today.",
    "my gut says the stall is the shared filesystem again, but I haven't checked iostat so don't quote me",
    "ユーザーからは「原因はともかく、まず今夜中に学習を回し切りたい」と言われています。",
    "ねえ、昨日から ddp のジョブが 2 時間くらいで固まるんだけど、誰か心当たりある？",
    "学習ジョブは sbatch 経由で投げるようにお願いします。直接 GPU を使われるとスケジューラが空きを把握できず、他のジョブとぶつかってしまうためです。",
])
def test_round44_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "## Investigation\n\nI looked at two candidates for the slow steps.\n\n## Conclusion\n\nIt's the profiler hook. It syncs the GPU on every step.",
    "The new build enabled request tracing, and the tracer takes a global lock, so concurrent requests serialize behind it.",
    "The scores were wrong. Our scorer normalizes the prediction but not the reference, so any answer with an accent counts as a miss.",
    "Each worker opens its own connection and the bucket tops out at 1 GB/s. That's the ceiling you were hitting.",
    "学習 loss が下がらない理由 — optimizer.zero_grad() の呼び忘れで勾配が溜まり続けていること。",
])
def test_round45_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    'Updated the incident template so the "root cause" field is only filled once a cause is confirmed.',
    "**What happened:** training crashes at step 1 with an illegal memory access.\n**Expected:** training runs as it does without `--compile`.\n**Environment:** torch 2.3.0",
    "ご依頼の内容を整理します。\n\n- 推論のレイテンシが夜に悪化するので、その監視を追加したい\n- 原因の特定は今回のスコープ外",
    "`configs/base.yaml` の主な項目の説明です。\n\n- `gradient_checkpointing: true` … メモリを減らすために有効化しています。その分 forward が 1 回多く走るので、1 ステップあたり 2 割ほど遅くなります。",
])
def test_round45_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round45_a_colon_line_is_no_new_section():
    # the paragraph after "... says:" and its quote is not the first under "## Root cause"
    ev = [Evidence("E1", "CUDA Version: 11.4\n2.2.1+cu121 False\n", "nvidia-smi")]
    msg = ("## Root cause\n\nThe GPU is not visible because the wheel targets a newer CUDA than the driver supports. "
           "The driver reports:\n\n> CUDA Version: 11.4\n\nwhile the installed build says:\n\n> 2.2.1+cu121 False\n\n"
           "Installing the cu118 wheel is not enough either, so the driver needs upgrading; I have left a note for the admins.")
    assert decision(analyze(msg, evidence=ev)) == "allow"


def test_round45_an_error_class_name_alone_is_no_evidence_for_a_cause():
    ev = [Evidence("E1", "ImportError: undefined symbol: _ZN3c10\n", "python -c 'import apex'")]
    msg = "`undefined symbol` エラーの原因は、システムの CUDA 11.8 と PyTorch の CUDA 12.1 の不一致です。"
    assert decision(analyze(msg, evidence=ev)) == "block"
    cited = "エラーの原因は CUDA の不一致です:`ImportError: undefined symbol: _ZN3c10`"
    assert decision(analyze(cited, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    "The eval set is being loaded from the train split, which is why validation accuracy tracks training accuracy exactly.",
    "Hi, I hit the same thing on 2.3. It's the new default of `weights_only=True` in torch.load: the optimizer state is refused.",
    "The accuracy of 12% is what you get when the labels are shuffled, and that's exactly what the loader does.",
    "Activation checkpointing is off in the config, hence the 2x memory use compared with the reference run.",
    "Yesterday's hang was the NFS mount going read-only during the save.",
    "やはり collator でした。学習時と推論時で pad の向きが逆になっていて、生成が pad の位置から始まっています。",
])
def test_round46_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


def test_round46_a_separate_finding_does_not_borrow_the_first_ones_quote():
    ev = [Evidence("E1", 'Missing key(s) in state_dict: "head.weight"\n', "python eval.py")]
    msg = ('Two problems here. First, the checkpoint does not match the model: `Missing key(s) in state_dict: "head.weight"`. '
           "Second, the accuracy drop comes from the resize using bilinear instead of bicubic interpolation.")
    assert decision(analyze(msg, evidence=ev)) == "block"
    # the same two sentences about one finding still share the quote
    one = ('The checkpoint does not match the model: `Missing key(s) in state_dict: "head.weight"`. '
           "The accuracy drop comes from that missing head.")
    assert decision(analyze(one, evidence=ev)) == "allow"


def test_round46_unclear_is_not_known_yet():
    assert "assertion" not in kinds("Windows だけで DataLoader が極端に遅い理由は、はっきりしていません。")


@pytest.mark.parametrize("message", [
    "The sampler pads to the longest sequence in the whole corpus, and each step moves roughly 6x more tokens than it needs to.",
    "tbh the flat train loss is just the frozen encoder — requires_grad was set on the wrong module.",
    "これは v2.1 で入った回帰です。保存時に tied weights を落としてしまうため、ロード後の生成が意味不明な文字列になります。",
    "評価スクリプトが大文字小文字を無視して採点しています。つまり前回と条件が揃っておらず、この 5 ポイントは実力ではありません。",
])
def test_round47_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


def test_round47_a_latency_requirement_is_no_slowdown():
    assert decision(analyze("Since the endpoint is latency-sensitive, I kept the batch size at 1 for the benchmark.")) == "allow"


@pytest.mark.parametrize("message", [
    "The sampler truncates every batch to its shortest sequence, and ROUGE on long documents collapses accordingly.",
    "Request latency is dominated by the model being reloaded on every call.",
    "Compilation is off in the run you compared against, which is the entire 2x speed difference.",
    "fp16 matmuls on this card are emulated, hence the step time tripling after the switch.",
    "`save_strategy` is still \"no\", so saving never runs and the resume starts from scratch.",
    "LayerNorm の統計が rank ごとにバラバラになっている、それが loss のガタつきの元です。",
    "1 step の時間が 2 倍になっていた件です。\n\n前処理に重い augmentation が追加されており、GPU が半分以上アイドルになっています。",
    "根本的には collator が常に最大長までパディングしているのが原因なので、動的パディングに切り替えれば解消するはずです。",
])
def test_round48_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "You asked why the sampler needs `set_epoch()`. It seeds its shuffle with the epoch, so without the call every epoch uses the same order.",
    'I stopped the sweep at the budget. The reason the remaining configs show as "pending" rather than "failed" is that they never launched.',
    "評価に 2 時間以上かかるため、今回は 500 件のサブセットで回しています。",
    "gradient accumulation を使うのは、1 GPU に乗らない実効バッチサイズを作るためです。",
    "テストの数値が環境によって微妙に揺れるので、CI では許容誤差を 1e-4 にしています。",
    "進捗です。\n\n- 昨夜のジョブは step 1200 でハングし、タイムアウトで kill されていました\n\n原因はまだ調査中です。",
    "## なぜ gradient checkpointing でメモリが減るのか\n\n途中の出力を捨てて backward で計算し直すので、計算量が増える代わりにメモリを節約できます。",
])
def test_round48_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Gradient accumulation is double-scaling the loss, so the effective LR is 1/8 of what you configured.",
    "ok figured out why the nightly run died. /data filled up with checkpoints and torch.save threw.",
    "p95 went from 80 ms to 400 ms after the deploy. The new image was built without sm_90 in the arch list.",
    "The recall you're seeing is low because the threshold is applied to logits, not probabilities.",
    "collator が長さを先頭サンプルに合わせていて、それより長い系列は黙って切り詰められています。",
    "原因特定した。入力解像度が毎バッチ変わるので、そのたびにアルゴリズム探索が走って 1 step に 2 秒かかってる。",
])
def test_round49_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "評価は時間がかかるので、500 ステップごとにしか走らせていません。",
    "データローダがボトルネックになっている可能性が高いと見ています。GPU 使用率が波打っているためです。",
    "### メモ: マルチノードで遅い件\n1 ノードだと 2.1 it/s 出るのに、2 ノードにすると 0.6 it/s まで落ちる。\nTCP にフォールバックしているのでは？",
    "主な設定の意図です。\n\n| 項目 | 値 | 理由 |\n|---|---|---|\n| `save_every` | 1000 | ジョブが中断しても失う計算を 1 時間以内に抑えるため |",
    "今日は障害対応で午前中まるっと潰れたので、例の学習ジョブはまだ投げられてません。夕方には流します。",
])
def test_round49_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round49_a_paragraph_that_is_only_a_quote_is_attached_evidence():
    ev = [Evidence("E1", "rank=0 batches=1250\nrank=3 batches=1247\n", "python count.py")]
    msg = ("## 根本原因\nエポック末にハングするのは、rank ごとのバッチ数がそろっていないためです。\n\n"
           "「rank=3 batches=1247」\n\nDistributedSampler に drop_last=True を設定しました。")
    assert decision(analyze(msg, evidence=ev)) == "allow"


def test_round49_a_slowness_table_still_claims_beside_a_settings_column():
    msg = "| 設定 | tokens/s | 遅い理由 |\n|---|---|---|\n| + FSDP | 1,410 | all-gather が backward と重なっていない |"
    assert decision(analyze(msg)) == "block"


@pytest.mark.parametrize("message", [
    "Tail latency spikes are the allocator being flushed whenever a request exceeds 4k tokens.",
    "Dropout is still on at eval time; that's what drags the validation loss up after epoch 3.",
    "The reason the job hung at start-up is that the master address resolved to loopback, so the workers could never connect.",
    "Looked into the 3-point gap between our eval and the paper. Our script scores padded positions too.",
    "Hung for an hour at the end of epoch 2. Rank 3 had one fewer batch than the others, so it left the loop while the rest were blocked in the all-reduce.",
    "sampler が最後のバッチを捨てていて、評価件数がエポックごとに 12 件ずつ足りていません。",
    "あー、それ 4.40 で mask の扱いが変わって、padding にも注意が向いちゃってるやつですね",
])
def test_round50_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Please include the full traceback and your pip freeze when filing an issue, since it helps us find the cause faster.",
    "わからないこと: 原因はまだ切り分けられていません。",
    "【質問】学習の途中で Killed と表示されて止まってしまいます",
    "- 学習が遅いという報告があったので、まずはボトルネックの計測だけを行う",
    "再現手順と観測結果だけ残します。\n\n- 約 20 分後、全 rank の GPU 使用率が 0% になり、ログ出力も止まる",
])
def test_round50_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round50_not_the_cause_without_wa_is_negated():
    assert kinds("cuDNN の非決定性が原因でないことは確認できました。") == ["negated"]


@pytest.mark.parametrize("message", [
    "The causal mask is flipped in the attention call, and the model ends up attending only to pad tokens.",
    "Eval loss sits below training loss, which is because the eval shard leaks rows from train.",
    "It turns out the workers all share one numpy seed, so every worker yields identical augmentations.",
    "DDP complains about unused parameters because the aux head only runs on odd steps.",
    "Step time went from 2.1 s to 0.8 s. Most of the old step time was wasted on padding.",
    "ドライバが古いままなので、CUDA 12 ビルドの PyTorch から GPU が見えていません。",
])
def test_round51_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The `cause` field in the error-report schema is optional, since not every failure has one identified at ingestion.",
    "学習が途中で止まったので、チェックポイント step_8000 から再開しました。",
    "`torch.cuda.empty_cache()` について補足します。\n\nnvidia-smi 上の使用量が減らないのはこの仕組みによるもので、確保済みの領域は再利用されます。",
    "- 13B: 昨夜 OOM により停止。設定はそのままで再投入済み",
    "学習ジョブが今朝 3 回落ちたので一旦外しました。原因は午後に見ます。",
])
def test_round51_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The CER jump isn't a model problem. v4's scorer lowercases the references but not the hypotheses, so every capital letter counts as a substitution.",
    "Step time is dominated by data loading: each item re-reads the whole parquet file.",
    "手元で推論結果が全部同じクラスになってたの、エクスポート時に model.eval() してなかったからでした。",
])
def test_round52_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "**Describe the bug**\nTraining with `--packing` crashes after a few hundred steps. Without `--packing` it runs for the full epoch.",
    "What this config does:\n\n- `offload_optimizer: cpu` keeps the Adam moments in host RAM, which reduces GPU memory at the cost of slower steps.",
    "Here's what you asked for:\n\n1. The sweep script.\n2. A note on failed runs: `lr=3e-3` crashed at step 812 with a NaN loss; I left it out of the plot.",
    "max_split_size_mb は大きなブロックを分割しない設定で、断片化による確保失敗を減らす目的で使われます。",
    "まだ原因は絞れていません。候補は 2 つあり、どちらもあり得ると考えています。",
    "試したこと:\n- fp32 で実行 → 変化なし\n- 別ノードで実行 → 同じ箇所でエラー",
])
def test_round52_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round52_a_suspicion_checked_and_dropped_is_no_claim():
    assert "assertion" not in kinds("メモリリークを疑って 2 時間分の推移を取りましたが、メモリは横ばいでした。リークではありません。")


def test_not_yet_ruled_in_or_out_is_not_known_yet():
    # under a "Verdict:" label it used to be read as a stated cause
    rep = analyze("Verdict: the run diverges under fp16.\nThe learning rate is not yet ruled in or out.")
    assert not [c for c in rep.claims if "ruled in or out" in c.text]


@pytest.mark.parametrize("message", [
    "The stall might be CPU-side: GPU utilization is low in the sample below, which would fit a loader bottleneck.",
    "チェックポイントは 3 世代まで残す設定にしました。ディスク容量を節約するためです。",
    "- 昨日の数値ズレは、原因を特定して修正した PR #412 がマージされました。",
    "`configs/train.yaml` の主な項目を説明します。\n\n`zero_stage` を 3 にしていないのは、この規模だと通信量の増加に見合うメモリ削減が得られないからです。",
])
def test_round53_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # one side processed and not the other is a defect, not a negation of it
    "The sampler shuffles the images but not the masks, and the segmentation model is learning from mismatched pairs.",
    "The warmup is applied twice, so the peak learning rate is a quarter of what the config specifies.",
    # a reason that names something set up wrong, with no failure word
    "Eval accuracy swings between seeds because dropout is still enabled during inference.",
    # a beam's hypothesis is not a hedge
    "Quality dropped after the patch; the decoder returns the top-scoring hypothesis of the wrong beam because of an off-by-one in the reorder.",
    # a table row whose first cell starts like a verb ("test-...") is no instruction
    "| Job | Symptom | Cause |\n|---|---|---|\n| test-integration | timeout after 30 min | the fixture pulls the full dataset instead of the sample |",
    "Throughput halved after the upgrade. Each request now waits for a full batch, since the new default for batch_timeout is 500 ms.",
    # an error quoted, then a dash and what explains it
    "`RuntimeError: CUDA error: invalid device function` — the container's torch build lacks kernels for this GPU.",
    "The run freezes right after the first eval — a deadlock between the eval sampler and the checkpoint writer.",
    "それ accelerate 0.28 のデグレですね。0.27 に戻せば通ります。",
    "### 原因\n`offload_param: cpu` になっていると、毎ステップ CPU との転送が入るため、ここが律速になっています。",
    "sampler が epoch ごとにシードを変えていないので、損失の大半は同じ並びのデータに対するものになっています。",
])
def test_round54_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # where to look next, not why it fails
    "エラーは data worker 側から出ているので、そちらを追っていきます。",
    "checked and it's definitely not the driver, both nodes run 550.54",
    "The DeepSpeed version isn't behind the slowdown — both runs use the same build.",
])
def test_round54_no_assertion(message):
    assert "assertion" not in kinds(message)


def test_round54_a_second_finding_after_also_cites_on_its_own():
    ev = [Evidence("E1", "RuntimeError: size mismatch for embed.weight: copying a param with shape [32000, 512]\n")]
    msg = ("起動直後に落ちる原因は E1 の `size mismatch for embed.weight` です。\n"
           "また、学習が遅いのは data loader のワーカー数が 0 になっているからです。")
    rep = analyze(msg, evidence=ev)
    assert [c.cited for c in rep.claims if c.kind == "assertion"] == [True, False]


@pytest.mark.parametrize("quote", ["`NCCL WARN Net/IB : Got completion with error 12`", "「NCCL timeout in AllGather on rank 5」"])
def test_round54_an_id_does_not_vouch_for_an_error_it_does_not_hold(quote):
    ev = [Evidence("E1", "[rank5] step 1200 / 5000\n[rank5] checkpoint saved\n")]
    rep = analyze("ハングの原因は E1 のログにある %s です。" % quote, evidence=ev)
    assert decision(rep) == "block"
    assert any("no recorded output" in n["why"] for c in rep.claims for n in c.near_misses)
    # the same id beside a quote it does hold, or with no quote at all, still cites
    ev = [Evidence("E1", "[rank5] %s\n" % quote.strip("`「」"))]
    assert decision(analyze("ハングの原因は E1 のログにある %s です。" % quote, evidence=ev)) == "allow"
    assert decision(analyze("ハングの原因は InfiniBand のリンク断です (E1)。", evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    "Your checkpoint problem is that the optimizer state never gets saved, so a resumed run restarts Adam from zero.",
    "Scores differ between seeds since dropout is still active — the eval script never calls model.eval().",
    "The tokenizer pads on the right while the mask is still built for left padding, and most of the prompt ends up masked.",
    "Done looking at the accuracy gap.\n\nThe eval loader resizes to 224 while training used 256 crops, so every image is scaled differently.",
])
def test_round55_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Thanks! Closing this as a duplicate of #812 since the same crash is tracked there.",
    "Changelog: `Trainer` now raises a clear error when `fp16` and `bf16` are both set, since the two conflict.",
    "The `detail` column holds whatever the storage client returned, which helps when an upload failed.",
    "学習 loss が 3 万ステップ付近で NaN になり、その後ずっと NaN のままです。",
    "評価ジョブは GPU の空きが少なかったので、予定より 2 日遅れて開始しています。",
    "来月から共有ストレージのパスが変わるため、古いパスを書いたスクリプトは使えなくなります。",
])
def test_round55_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # "so they ..." is a result unless it states a purpose ("so they can ..."); "so long ..." is
    # one unless it is "so long as"
    "The exporter drops the Adam moments from the state dict, so they reset to zero after every resume.",
    "The packer was cutting at 1024 tokens while the config says 4096, so long samples lost their labels and accuracy dropped.",
])
def test_so_they_and_so_long_results_are_read(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "I split the shards by host so they can be cached locally, which keeps startup short.",
    "Runs are fine so long as the batch fits in memory.",
])
def test_so_they_can_and_so_long_as_are_no_results(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The sampler pads every batch to the longest clip in the dataset, and each step ends up processing about three times more frames than it needs to.",
    "Turns out roughly 5% of the test prompts are also in the training data, which is why eval accuracy tracks train accuracy so closely.",
    "The latency spike is just the page cache getting flushed whenever the writer rotates its log.",
    "Targets are shifted twice, in the collator and again in the loss, and the model ends up learning to predict two steps ahead.",
    "The 2x slowdown came in with 9f3e1aa, which turned off the fused optimizer by default.",
    "スループットが日によって揺れる正体は、夜間バッチと共有している NFS の帯域です。",
    "それ、deepspeed 0.14 で offload と activation checkpointing を併用すると固まるやつです。",
    "AMP のスケールが 0 近くまで下がり、結果として全ステップの更新がスキップされていました。",
    # the hedge after 「これで」 is about the fix, not the cause before it
    "softmax を fp16 で計算していたせいでオーバーフローしていたので、これで NaN は出なくなるはずです。",
    # 「除外していません」 of data is no ruling-out
    "`collate` はパディング位置を除外していません。そのため accuracy が実際より低く出ています。",
])
def test_round56_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "This PR adds a `--trace` flag. We've been chasing slow steps by hand and this makes it one command.",
    "まだ原因は分かっていません。OOM がピーク時の問題なのか断片化なのかを切り分けるため、設定を変えた 2 つの run を比較します。",
])
def test_round56_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Your driver is 470 and the wheel targets CUDA 12.1, which is why torch.cuda.is_available() comes back False.",
    "OOM at 8k context: activation memory. The recompute flag was never forwarded to the model builder, so every layer keeps its activations.",
    "1 つ目の原因はドライバです。`CUDA driver version is insufficient` と出ています。\n2 つ目として、学習が遅いのは DataLoader のワーカーが 0 のせいです。",
])
def test_round57_causes_are_claims(message):
    assert decision(analyze(message, evidence=[Evidence("E1", "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n")])) == "block"


@pytest.mark.parametrize("message", [
    "Two runs failed with OOM at batch size 128 and I've requeued them at 96, because the budget doesn't leave room for another retry.",
    "The reason for streaming is that the full test set doesn't fit in memory on the eval boxes.",
    "Spot nodes are preempted without warning, which is why we checkpoint every 15 minutes instead of every epoch.",
    "すみません、私の確認漏れのせいで共有が遅くなりました。",
])
def test_round57_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The tokenizer pads on the left for the encoder, and that's what shifts every position and tanks the accuracy.",
    "Turns out the resume loaded the EMA weights, so training restarts from a model that's 3k steps behind.",
    "bf16 isn't supported on the T4s, and the fallback to fp32 is the reason each step takes four times longer.",
    "The eval job was loading `best.pt` from the previous experiment directory, which is why the numbers didn't move after retraining.",
    "The sampler sorts by length inside each batch but never reorders the targets. Predictions and targets are misaligned, and accuracy reads as chance.",
    # after "That's why", "looks like" says how the effect looks
    "CUDA graphs capture the optimizer step and the LR tensor gets frozen. That's why your loss curve looks like it was trained with a constant LR.",
    "問題は zero_grad() を backward の後に呼んでいた点で、勾配が毎ステップ消えていました。",
    "再現性が取れない理由は cudnn.benchmark=True によるアルゴリズム選択です。",
    "メモリリークの元は、loss をそのまま list に溜めていることです。",
    "昨夜のジョブが止まってた件、/data が 100% になってチェックポイントの保存で落ちてました。",
    "Recall が 1.0 になる件、評価コードのバグです。",
    "max_new_tokens がデフォルトの 20 のままなので、出力が途中で切れてるだけです。",
])
def test_round58_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## この記事について\n原因を一発で特定するのは難しいため、この記事では計測の方法に絞って説明します。",
    "gradient accumulation では loss を累積回数で割ってから backward します。そうしないと勾配が回数倍に膨らむためです。",
])
def test_round58_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Only rank 0 ran eval and it calls `dist.barrier()` inside the metric, so rank 0 sat waiting for ranks already in the next all_reduce.",
    "The BLEU of 3.1 is an eval bug, not the model.",
    "Eval perplexity is inflated by about 15%: the evaluation uses a stride equal to the window, so every chunk starts with no context.",
    "ok so mystery solved re: the weird val curve\nthe val set got regenerated with the new dedup script and ~8% of it now overlaps train",
    "`torch.cuda.is_available()` が False になる問題、結論から言うとホスト側に nvidia-container-toolkit が入っていなかっただけでした。",
    "調べてみると、8 GPU にすると all-reduce の帯域が律速になっていたのです。",
    "わかったこと:\n- つまりハングに見えていたのは、実際には保存待ちでした",
])
def test_round59_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # grounds for a question, not a claim
    "Could the accuracy drop be the new resize interpolation? That's the only preprocessing change between the runs.",
    "## Changes\n- `train.py`: moved the eval/train switch into the helper so callers can't forget it.\n- `collate.py`: padding side is configurable; it defaults to `right` because that's what the checkpoints were trained with.",
    "A loss stuck at ln(10) usually means uniform predictions. Common causes are a learning rate that's too high or a softmax applied twice.",
    "The user asked me to make the training script fail loudly on NaN, so it now raises instead of silently skipping the step.",
    "まず所要時間を計測します。原因が分かった段階で、修正方針をご相談させてください。",
    "再現できました。ステップ 400 で落ちます。まだ原因の調査には入っていません。",
])
def test_round59_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The eval loader was reusing the train transforms, which is why val accuracy bounced around between identical runs.",
    "Your BLEU is low since sacrebleu gets tokenized references while the hypotheses are detokenized.",
    "Problem was the GradScaler being built inside the loop, so its scale reset to 65536 every step.",
    "Why the job froze at the end of epoch 1 — uneven data across ranks.",
    "評価スクリプトの argmax が `dim=0` で取られています。\nF1 が 0.07 になっている件はこれです。",
])
def test_round60_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## Changes\n- `train.py`: added `--max-steps` so smoke tests can stop early.\n- `loader.py`: the buffer size is now read from the config instead of being hard-coded.",
    "Why bf16 instead of fp16 for this run: bf16 has the same exponent range as fp32, so it does not need loss scaling.",
    "The issue was successfully resolved by making the tests accept both responses.",
    "val_accuracy が 0.5 のまま変わりません。原因が全く分からず困っています。",
])
def test_round60_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Two candidate causes for the wrong WER, neither verified:\n- the normalizer might be lowercasing the reference only;\n- the resampler could be truncating long files.\nI'll write a 10-utterance fixture to tell them apart.",
    "推論が遅い件、以下の計測結果までは取れました。",
    "NCCL_DEBUG=INFO を付けると、選ばれた通信路がログに出るので、ハング調査の最初の一手として便利です。",
    "先週 CI が不安定だったので、今日は依存関係のピン留めだけ先にマージします。",
    "こうしておくと、後で issue を書くときにも再現手順をそのまま貼れるので便利です。",
    "ユーザーから「原因はいいので、とりあえず動く状態に戻してほしい」と依頼されたので、前日のコミットに戻しました。",
    "- exp21〜exp24 は完走、exp25 は step 12,000 で落ちたので再投入済み",
])
def test_round61_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # "make X look like" is a causative, not a hedge
    "The problem was `HF_HOME` living on NFS: every rank re-hashes the cache at startup, and that's what made the first 20 minutes look like a hang.",
    "The wrong BLEU comes from scoring against pre-tokenized references: sacrebleu tokenizes the hypotheses itself.",
])
def test_round62_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "- 13B run: queued; waiting for the second reservation block because the scheduler won't give us 32 nodes before Friday.",
    "雨のせいで電車が止まってるので今日はリモートにします。",
])
def test_round62_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # "never triggers" is a failure: the 'so' before it states what the defect does
    "The scaler is built but `unscale_()` is never invoked before clipping, so the clip never triggers.",
    # a default's rationale in the past tense still names a cause
    "We turned it off by default because it caused the NCCL hang on 2.18.",
    "ホストのドライバが 470 系なので、コンテナからは GPU が見えません。",
])
def test_round62b_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # why a setting is off by default: what it would do, not what went wrong
    "`torch.use_deterministic_algorithms` is off by default because it makes some kernels slower.",
    "`gradient_checkpointing` recomputes activations in the backward pass; we keep it off by default because that recompute costs a third more step time.",
    # a standing practice of ours and what it is for
    "Since the base image moves every month, we pin it to a digest so every runner gets the same CUDA build.",
])
def test_round62b_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # a failure named without the usual words: ranks idle at a barrier, low utilisation, a
    # metric 'killed', an N-point gap, a number higher than the real one
    "The sampler gives rank 3 one extra batch per epoch, and the remaining ranks sit idle at the all-reduce.",
    "Your GPU util is low because the collate function decodes JPEGs on the main process.",
    "Mixing the two tokenizers is what kills val accuracy.",
    "The 4-point gap comes from evaluating with greedy decoding instead of beam search.",
    "The reported accuracy is higher than the real one because the test set overlaps with train.",
    # 見つからない is a verb, not the particle から; the claim is in せいです
    "ログ出力先が見つからないというエラーは、HOME が読み取り専用のマウントを指しているせいです。",
    "凍結の条件が逆になっているので、loss が全く下がりません。",
    "/dev/shm が 64MB しかなく、ワーカーが共有メモリを確保できずに落ちていました。",
    # symptom → the mechanism, in a lab-notebook line
    "推論が遅い件 → トークナイザを毎リクエストで読み込み直している。",
])
def test_round63_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a subjectless list of our own steps: 'killed' is one of them
    "- Reran 300 steps, killed the trainer, resumed; the loss picks up where it left off.",
    "This script prints the driver and CUDA versions for bug reports.",
    "設定ファイルが見つからないエラーが出ています。",
    "NaN の件 → 今 fp32 で再実行して確認しています。",
    # an observation that fits the hypothesis, not yet checked
    "ディスクが遅いのではないかと思っています。I/O 待ちが多いのはその見立てと矛盾しませんが、まだ確認できていません。",
])
def test_round63_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Whatever is stalling the all-reduce, it isn't the network: the same hang shows up on a single node.",
    "Not a race: the counter is only touched by rank 0, and the hang persists with one worker.",
    "メモリの断片化は関係なさそうです。",
])
def test_round63_ruled_out_causes_are_negated(message):
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    # the failure IS a thing: "the <failure> [when/where] was <the thing>"
    "honestly the slowdown on the A100 pool was the NFS home dir, nothing else.",
    "The OOM yesterday was the eval loop keeping every logit on the GPU.",
    # a failure, then what a change of ours lost
    "Loss plateaus after 2k steps; the warmup schedule was removed in the trainer refactor.",
    # 状態 + ために is a reason, not a purpose; 「原因＝」 names it
    "`CUDA error: invalid device function` は、古いアーキテクチャ向けにビルドされた wheel を使っているために出ています。",
    "学習が遅い原因＝前処理を毎エポックやり直していること。",
])
def test_round64_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The crash was a segfault in the tokenizer worker.",
    # あらためて holds no ため; two symptoms in a row are no diagnosis
    "結果が出たら、あらためて原因をまとめて報告します。",
    "- run-17: 3k ステップで loss が発散して停止。ログは保存済み。",
])
def test_round64_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "ok it's not NCCL, the same stall shows up with gloo.",
    "律速はディスク I/O 以外のところにあります。num_workers を 4 倍にしてもステップ時間は変わりません。",
])
def test_round64_ruled_out_causes_are_negated(message):
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


def test_round64_what_a_cited_discrepancy_consists_of_draws_on_its_quote():
    message = (
        "## Root cause\nThe eval job loads a tokenizer other than the one the model was trained with. "
        "Its log says so plainly:\n\n"
        "```\nvocab_size=50257 but checkpoint wte has 50260 rows\n```\n\n"
        "The three extra rows are the tool-call markers added during SFT, so the markers get split "
        "into plain subwords and the tool-use score drops.")
    ev = [Evidence("E1", "loading checkpoint...\nvocab_size=50257 but checkpoint wte has 50260 rows\n",
                   "python eval.py")]
    assert decision(analyze(message, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    # a part that differs between eval and training, then the number that is off
    "Val accuracy is 3 points below the paper. The eval transform center-crops at 256, while training used 224 crops.",
    "Latency doubled after the upgrade: the new scheduler batches prefill chunks and delays decode for every other request.",
    "The trace says about 60% of step time is spent in the optimizer step, which means the fused kernel is not being used.",
    # 'every X <verb>s the ...' is a clause that explains
    "Epochs are slow: every worker reopens the tar shard for each sample.",
    "前処理が 1 スレッドで回っていて、GPU へのデータ供給が追いついていません。",
    "検証指標を reset せずに使い回していたので、予測値がどんどん蓄積されていました。",
    # 「さらに、」 opens a second finding; オーバーヘッドがかかる is a failure
    "さらに、毎回 tokenizer をロードし直しているので、1 件ごとに 200ms のオーバーヘッドがかかっています。",
])
def test_round65_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Changelog: dropped the deprecated `--old_loader` flag due to lack of use.",
    # 'since' an event: when, not why
    "Our jobs have been stuck in PENDING since the network outage this morning, can someone take a look?",
    "なので、タイトルの「v2 で壊れた」は違うかなと思います。",
])
def test_round65_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round65_it_is_not_the_case_that_x_causes_it_rules_x_out():
    message = "学習率のスケジュールが精度差を生んでいるということはなさそうです。3 通り試してもすべて 71% 前後でした。"
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    # the failure's kind named; points lost; run-to-run variance; "what's hanging X is Y"
    "That's a version mismatch: the wheel was built for CUDA 12.4 and the driver tops out at 12.2.",
    "The int8 model loses 9 points on MMLU because the embedding table is quantised too.",
    "Run-to-run variance comes from the non-deterministic scatter_add in the loss.",
    "What's hanging the eval at the first batch is rank 0 downloading the metric script alone.",
    # utilisation at a low number, then a part left unpinned
    "GPU utilization sits at 40%. The batches aren't pinned, so every transfer blocks the stream.",
    "val loss plateau at 1.8 is the LR schedule, it decays to zero at step 3k",
    "RL rollouts return identical completions for every prompt; the sampler config silently overrides our temperature.",
    "The TensorRT engine returns different logits: the plugin drops the padding mask at FP16.",
    "its the cuda graphs + dynamic shapes combo, the replays crash on the last partial batch",
    # "hypothesis" in the MT sense is no hedge
    "Accuracy fell from 78 to 12 after the merge — the label map is applied twice on every example.",
    "BLEU dropped to 3 after the refactor — detokenization now runs twice on each hypothesis.",
    "おー、それ CUDA のバージョンが合ってないからだわ。",
    "精度が実態より高く見えていたのは、重複サンプルに数字が引っ張られていたためです。",
    "rank 3 以外のプロセスが固まっている。rank 3 だけが barrier を飛ばす分岐に入っている。",
])
def test_round66_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # both reasons after the dash and the semicolon belong to the ruling-out
    "Not a dataloader stall — the queue is never empty; the GPU trace shows the gaps inside the optimizer step.",
    "fwiw its not flash-attn, same NaN with the eager kernel",
    "データローダの問題は外しました。合成データでも同じ速度でした。",
])
def test_round66_ruled_out_causes_are_negated(message):
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    # a dash with no spaces; 'speculative decoding' is no hedge
    "Latency tripled after the bump—the new release turned speculative decoding on by default.",
    # the failure IS a thing, also when that thing is a mechanism with no article
    "The loss explosion at step 900 is a single malformed row with a 60k-token line.",
    "Reward collapse after 300 updates is reward hacking: the KL penalty is far too small.",
    "Calling scheduler.step() per micro-batch instead of per optimizer step is why the LR reaches zero a third of the way in.",
    "It's TF32 matmuls that make the same seed give different loss curves on A100s.",
    "The resume path loads the base weights, so training restarts from scratch — hence the loss jumping back to 3.1.",
    "its the accelerate 1.1 change to gradient accumulation, loss gets scaled wrong and the grads end up tiny",
])
def test_round67_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a count of the problems that follow, and our fix
    "Two separate problems in the eval run; both are fixed on `fix/eval`.",
    # a root-cause section that opens by saying there is none yet; 'before the scheduler killed
    # it' says when
    "## Root cause\nUnknown so far. The job hangs on roughly 1 in 4 launches, and I could not get a stack dump before the scheduler killed it.",
    # a PR's 理由 section gives the change's motive
    "## 概要\nログ出力を YAML で設定できるようにしました。\n\n## 理由\nチームごとに出力先が違うため、ハードコードだと変えづらかったからです。",
    # how empty_cache works: a memory that does not shrink is no failure here
    "`torch.cuda.empty_cache()` は未使用のキャッシュを返すだけなので、参照中のテンソルの分は減りません。",
])
def test_round67_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Checked the NCCL versions: all nodes run 2.21.5, so a version mismatch can't explain the hang.",
    "- ドライバ: 同じノードで別のジョブは正常に動くので除外",
    "- NCCL: 2.18 と 2.19 のどちらでも再現するので関係なし",
    "seed の固定漏れではありません。決定的アルゴリズムを有効にしても差は変わりませんでした。",
    "AMP はシロでした。fp32 でも同じステップで NaN が出ます。",
])
def test_round67_ruled_out_causes_are_negated(message):
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    "That's why resuming costs ~0.4 in loss: the optimizer state is not saved, so Adam restarts from zeroed moments.",
    # a failure, then a part set where it should not be, a default that changed, a state not restored
    "Loss plateaus at 1.9 from epoch 2 on. Weight decay is being applied to the LayerNorm weights as well, which pins them to zero.",
    "p99 latency jumped to 700 ms after the upgrade. The new version disables CUDA graphs by default above 256 sequences, and we run 512.",
    "The resumed run doesn't pick up at the right batch. The sampler state isn't restored, so the first part of the epoch is seen again.",
    "Reward hacking in the RLHF run: the KL coefficient is reset to 0 after warmup, so nothing keeps the policy close to the reference.",
    "worker のメモリ増加は、巨大な list への参照カウント更新で copy-on-write が起き、ページが複製されることで引き起こされています。",
    # 「DDP にすると」 is the topic, not a condition; 「しか見ていない」 is no "not looked at yet"
    "DDP にすると精度が落ちるのは、BatchNorm が各 GPU の統計しか見ていないからです。",
])
def test_round68_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Temperature 0 makes decoding greedy, so outputs are identical apart from floating-point nondeterminism in the kernels.",
    # what we will do next, under a conclusion heading
    "## 結論\n`max_grad_norm: 1.0` を設定して step 8000 の checkpoint から再開します。",
])
def test_round68_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "nah not the NIC, a single-node run is just as slow per step",
    "We can rule out label noise: relabelling 500 samples by hand changed nothing.",
    "num_workers=0 にしても同じ step で止まるので、原因は別のところにあります。",
])
def test_round68_ruled_out_causes_are_negated(message):
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    "Low GPU util is the JPEG decoding in the dataset. It runs on one core and the GPU idles between steps.",
    "the model produces garbage after a few tokens in batched generation because the tokenizer pads on the right.",
    "LR never leaves warmup — the scheduler got the total step count as warmup steps. That's the whole reason the loss curve looks flat.",
    # after a semicolon, a clause on what was just named explains; it restates no symptom
    "Grad norm spikes every 500 steps; those batches blow up the attention logits.",
    "So the eval numbers differ between 1 and 8 GPUs: the sampler pads the val set with duplicates.",
    "The env workers all produce identical trajectories: the seed is derived before the workers fork.",
    "テストの accuracy 98% はリーク。同じ患者の画像が train と test に入っている。",
    # っぽい describes the symptom in the topic, it hedges no cause
    "生成結果が壊れているっぽいのはそういうこと。",
])
def test_round69_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a verb of output with its failure as the object states the symptom alone
    "The rollout workers all produce identical trajectories.",
    "The model produces garbage after a few tokens.",
    "RL rollouts were producing identical samples for every prompt.",
    # a list under "the cause is not settled, these are suspect" holds hypotheses
    "## 状況\n原因はまだ確定していませんが、以下が疑わしいと考えています。\n\n"
    "1. softmax を bf16 で計算していることによる精度低下\n2. 評価時だけ autocast が効いていないこと",
])
def test_round69_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round69_it_cannot_be_x_rules_x_out():
    message = "It can't be the pinned memory — you get the same 2 it/s with pin_memory=False, so that's not your bottleneck."
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    # "what the config suggests" hedges nothing
    "## Root cause\nThe OOM at step 1 is from max_length=8192 in the collator: every batch is padded to the full context, "
    "so activation memory is about 4x what the config suggests.",
    "Reward collapsed around iteration 200. The reference logprobs were computed with a different chat template than the policy's, so the KL term was huge from the start.",
    "The loss has a sawtooth with a 20-step period: the scheduler expects epochs but we step it every batch.",
    # "is fine" inside a contrast rules nothing out
    "Batched generation outputs garbage while single-sample generation is fine, which comes down to right padding.",
    "Loss scaler keeps skipping steps. The custom LayerNorm casts to fp16 before computing the variance, and that overflows.",
    "The 70B fine-tune OOMs on 8 GPUs as FSDP wraps the whole model as a single unit.",
    "loss 横ばいの件わかった、weight decay が LayerNorm と bias にもかかってて正則化が強すぎ。",
])
def test_round70_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Suspect the calibration set is too small. Worth rerunning with 512 samples before we blame the kernel.",
    "Seeding isn't it either.",
    "Gradient accumulation is correct, so the plateau has to come from somewhere else.",
    # frozen weights, a deliberate timeout, a doc section on a tool, a log with no errors in it
    "LoRA keeps the base weights frozen and learns a low-rank update, so trainable parameters scale with r.",
    "To cause a deliberate NCCL timeout in the test, the fixture sleeps on rank 1.",
    "## `torch.compile` について\n初回の呼び出しではグラフのキャプチャとコード生成が行われるので、最初の数 step は時間がかかります。",
    "推論サーバが 503 を返し続けていて、Pod のログにはエラーが何も出ていません。",
])
def test_round70_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "I checked the sampler theory and it doesn't hold — every rank gets the same number of batches, so uneven shards can't be why rank 2 stalls.",
    "ドライバはシロ。535 と 550 の両方で同じ NaN が出ます。",
])
def test_round70_ruled_out_causes_are_negated(message):
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    # "Why <a number> is bad" heads a cause section
    "## Why p99 latency is 1.8 s\nThe serving container loads the model in fp32: from_pretrained is called without torch_dtype.",
    "The run-to-run variance in val loss is `cudnn.benchmark=True` picking different algorithms on each launch.",
    "I looked into this and it's a regression in transformers 4.40: the SDPA path ignores the attention mask.",
    # 推定 as a noun ("the estimate is coarse") hedges nothing
    "量子化モデルの出力が同じ単語を繰り返すのは、キャリブレーションが 32 サンプルしかなく scale の推定が粗いからです。",
    "完全に eval 側のバグです。EMA の重みを戻し忘れていて、評価しているのは生の重み。",
    "model.eval() を呼ばずに推論しているので、Dropout が有効なままで毎回予測が変わっています。",
    # 「原因は 2 つありました。」 heads a list of causes; it is no cause itself
    "学習が遅い件、原因は 2 つありました。\n\n1. データ拡張が CPU 1 コアで走っていること。\n"
    "2. もう一つは AMP が無効になっていたことで、行列演算がすべて fp32 で走っていました。",
])
def test_round71_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Added a `--deterministic` flag that seeds every worker, so bisecting flaky runs gets easier.",
    # why a practice is used, in general
    "warmup を入れる理由は、学習初期は Adam の二次モーメントの推定が不安定だからです。",
])
def test_round71_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round71_it_isnt_x_then_the_same_failure_rules_x_out():
    message = "fwiw it isn't the dataloader, a synthetic-data run stalls at the same step"
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


def test_round71_a_count_of_causes_over_cited_sections_blocks_nothing():
    message = ("## 調査結果\n学習が数時間おきに落ちる件、原因は 2 つありました。\n\n### 1. 保存が遅い\n"
               "rank 5 だけ NFS に書いていて、1 回の保存に 30 分以上かかっています: `save_checkpoint took 1843.2s on rank 5`")
    ev = [Evidence("E1", "[rank5] save_checkpoint took 1843.2s on rank 5\n", "grep save logs/rank5.log")]
    assert decision(analyze(message, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    # a sentence whose subject is inline code goes on from the failure before it
    "The run stalls at step 0. `MASTER_PORT` is hard-coded to 29500, which collides with another job on the node.",
    "The eval OOM is not a capacity issue. `validate()` runs without `torch.no_grad()`, so the graph of every batch is kept and memory grows until it fails.",
    "The LR reaches zero a quarter of the way in. `total_steps` was derived from the per-GPU batch instead of the global batch.",
    # where the fault lies, said as one kind of problem and not another
    "The 0.3 accuracy was an evaluation problem, not a training problem.",
    "The eval loss sits below the train loss for a boring reason: the eval split was sampled from the train files.",
    "adapters aren't learning at all: the target module names are wrong for this model, so none of them is wrapped.",
    "So the reason the logits differ between the ONNX export and eager is the attention mask dtype: bool in one, float in the other.",
    # a forum reply that has seen the same thing, then what it was
    "I hit the same thing on 2x L4 nodes. It's the default bucket size in DDP when you use activation checkpointing.",
    "The quantised model falls apart on long prompts. Large activations get clipped by the per-tensor scale.",
    # Japanese
    "fix: collate の pad 指定ミスで loss が NaN になっていたのを修正",
    "PPO の報酬崩壊は、KL 係数が小さすぎて policy が参照モデルから離れすぎたのが原因でした。",
    "NaN の件、eval の lr が train の 10 倍になっていました。",
    "bf16 にしたら loss が NaN になった件、スケーラーを使わずに fp16 で backward しているので、勾配がアンダーフローしています。",
])
def test_round72_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a count of findings, each named and cited after it
    "Three separate issues explain why the benchmark looked too fast.",
    # a scheduled event, and a motive for a plan
    "Due to the storage migration on Saturday, all jobs will be preempted at 09:00; please save a checkpoint first.",
    "理由としては、来週から GPU が別チームに回るので、それまでに評価を終わらせたいからです。",
    # two suspects, neither ruled out yet
    "loss がぶれる理由は、データ順なのか非決定的なカーネルなのか、まだ切り分けられていません。",
    # "exists for a reason" says it is deliberate
    "Gradient clipping exists for a reason: early updates can be very large.",
    # what an investigation found is not its cause
    "調べた結果、学習は最後まで正常に進んでいました。",
])
def test_round72_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round72_x_isnt_the_explanation_rules_x_out():
    message = "The seed isn't the explanation for the gap: five seeds land within 0.1 of each other."
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


def test_round72_a_split_before_code_keeps_the_joined_reading_too():
    # one diagnosis across the cut: the failure first, the code-led reason after it
    message = "Loss is flat. `target_modules` are BERT names; in this model the projections are `q_proj`, so only the head trains."
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "That's why the perplexity never drops below 30: the eval set is tokenized with the base vocab, and the new tokens map to <unk>.",
    "this is a known issue with deepspeed 0.14, the optimizer state is saved twice when you enable `offload`. pin 0.13 and it stops.",
    "It's the nondeterministic scatter kernel that makes the runs irreproducible - it accumulates in a different order on every launch.",
    "NaN at the first step. The eps is 1e-10, in fp16 that rounds to zero and the norm divides by zero on empty rows.",
    "## Why the fine-tune did nothing\n`lora_alpha` is 0 in the config, so every adapter update is scaled to nothing.",
    # Japanese
    "loss が 4 倍に見えるのは、ロガーが micro batch の loss を合計して出しているためです。",
])
def test_round73_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "There is no runtime overhead when tracing is disabled, since the hooks are only installed on request.",
    "Quick explainer: the scaler multiplies the loss before backward so small gradients survive fp16; that's why you see `scaler.scale(loss)` in the loop.",
    "This is why the order of layers matters for speed: buckets fill in reverse order of registration.",
    "The 13B run diverges near step 9k; the 3B config on the same data is stable through 50k.",
    "bias には weight decay をかけないのが普通です。かけると性能が落ちやすい、という経験則によるものです。",
])
def test_round73_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round73_a_control_before_a_contrast_keeps_the_cause_ruled_out():
    message = ("Not a network issue - the same job runs fine on two other racks with the identical NIC firmware, "
               "and the hang followed the job rather than the rack.")
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


def test_round73_an_exception_class_name_alone_cites_nothing():
    message = "The server fails on startup because the model was exported with a newer opset - the log shows `[ONNXRuntimeError]`."
    ev = [Evidence("E1", "E0612 failed to load 'enc': [ONNXRuntimeError] : 1 : FAIL : Load model failed\n", "docker logs srv")]
    assert decision(analyze(message, evidence=ev)) == "block"


def test_round73_a_table_then_a_quote_that_points_back_cites_the_claim_above():
    message = ("## 原因\nloss が 4 倍に見えるのは、ロガーが micro batch の loss を合計しているためです。\n\n"
               "| step | ログ | 平均 |\n|---|---|---|\n| 100 | 9.21 | 2.30 |\n\n"
               "`logged_loss=9.2104 per_micro_mean=2.3026` の通り、ちょうど 4 倍です（E1）。")
    ev = [Evidence("E1", "logged_loss=9.2104 per_micro_mean=2.3026 accum=4\n", "python check_loss.py")]
    assert decision(analyze(message, evidence=ev)) == "allow"
    no_pointer = message.replace("` の通り、ちょうど", "`。ちょうど")
    assert decision(analyze(no_pointer, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "Peak memory is the KV cache: it grows to 60 GB once the batch holds 32 long prompts.",
    "Eval accuracy tanked after the merge. Token ids got shifted by one in the new packing code.",
    "The val loss stops improving after epoch 2 because the sampler never reshuffles.",
    "The loader workers die because of a pyarrow / numpy ABI mismatch.",
    "Run b goes NaN since the loss scaler was removed in the refactor.",
    "The warmup ends far too early — the scheduler counts micro-batches, not optimizer steps.",
    "Runs aren't reproducible because cudnn.benchmark picks a different kernel on each launch.",
    # Japanese
    "rank 3 だけメモリが 8GB 多い件 → 全 rank が checkpoint を cuda:0 に読み込んでいる。",
    "fix: eval で model.eval() を呼んでおらず、dropout が効いたまま精度が揺れていたのを修正",
])
def test_round74_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # "Run" as a verb still gives an instruction
    "Run the eval again with the fixed seed, since the last one crashed.",
    "Peak memory is the same as before the change.",
    "The warmup is too early to judge from 200 steps.",
])
def test_round74_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round74_a_casual_no_rules_the_suspect_out():
    message = "nope not the dataloader, a synthetic batch stalls at the same step"
    assert decision(analyze(message)) == "allow"
    assert "negated" in kinds(message)


@pytest.mark.parametrize("message", [
    "The BLEU numbers in the report were wrong — the scorer deduplicated the candidate set first, which drops the hardest references.",
    "Node 4 logged `watchdog caught collective operation timeout`, which is the RoCE link on that host flapping.",
    "Train loss flattens at step 3k — the scheduler never leaves warmup, so the LR stays at its floor.",
    "Two launches with the same seed differ from step 10 since the data workers seed themselves from the clock.",
    "Validation accuracy is off by a wide margin due to the labels being shifted by one after the resize.",
    "Your loss stays at 6.9 because the labels never reach the loss: the collator drops them.",
    # Japanese
    "結局、OOM は評価中に `torch.no_grad()` を付け忘れてたのが全てでした。",
    "fix: 再開時に scheduler の状態が読み込まれず、warmup がやり直されて loss が跳ねていた問題を修正",
])
def test_round75_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Here's how the eval pipeline works now, for anyone new to it:\n\n"
    "1. The sampler shards prompts across ranks, so each rank sees a stale copy at most one step old.",
    "Due to the storage migration, all jobs on the h100 queue will be preempted Saturday 01:00-05:00 UTC.",
    "I added a retry loop, which is a guard against the link flapping.",
    # Japanese
    "`NCCL_BLOCKING_WAIT` は、collective が止まったときにタイムアウトでプロセスを落とし、ハングを防ぐための設定です。",
    "FlashAttention は、メモリ帯域がボトルネックになる長い系列の学習で効果を発揮します。",
    "準備に時間をかけたのが全てでした。",
    "fix: seed を固定して、評価が揺れていた問題を修正",
])
def test_round75_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round75_a_quoted_error_and_where_it_is_raised_cite_no_cause_after_them():
    # The symptom's quote shows what failed and where; the cause in the next sentence quotes
    # nothing that was printed, so it is uncited.
    message = ("The OOM happens during decoding: `torch.OutOfMemoryError: CUDA out of memory. Tried to "
               "allocate 2.00 GiB` is raised from `beam_search()`. It's because every beam keeps its own "
               "copy of the cache, so `num_beams=8` multiplies memory by eight.")
    ev = [Evidence("E1", "Traceback (most recent call last):\n  File \"gen.py\", line 40\n"
                         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has 3 GiB free\n",
                   "python gen.py --num-beams 8")]
    assert decision(analyze(message, evidence=ev)) == "block"
    # Quoting what shows the cause is accepted.
    cited = message + " The profile shows it: `kv cache per beam: 2.0 GiB x 8`."
    ev.append(Evidence("E2", "kv cache per beam: 2.0 GiB x 8\n", "python profile_cache.py"))
    assert decision(analyze(cited, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    "The hang only shows up on 16 nodes, and the py-spy dump confirms it's the shared-memory queue filling up.",
    "Loss is NaN from step 1 with fused Adam. eps=1e-10 rounds to zero in fp16 and the update divides by zero.",
    # Japanese
    "あー OOM してたの eval 中の KV キャッシュ不足でした。",
    "`drop_last=False` にしているので最後のバッチだけ小さくなり、val loss が 2 エポック目から下がらなくなっています。",
    "pad_token を eos_token と同じにしているので EOS がマスクされ、モデルが生成を止められなくなっています。",
])
def test_round76_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Please attach the exact command and its output when you write up a root cause in the postmortem.",
    "CI sets CUBLAS_WORKSPACE_CONFIG=:16:8 before torch is imported, which is why the determinism job can run.",
    "Root cause still unknown. The hang reproduces only on the 8-node jobs, which points somewhere around the "
    "bootstrap, but I have nothing conclusive yet.",
    "These are H100s, so the config now uses bf16 and drops the loss scaler entirely.",
    "nccl isnt to blame, NCCL_DEBUG=INFO shows every ring connected before the stall",
    # Japanese
    "昨日待っていたのは部品の入荷待ちでした。",
    "学習率を下げたので、loss が改善しなくなるかもしれません。",
])
def test_round76_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round76_an_evidence_id_the_session_lacks_uncites_its_claim():
    # The claim names E3, which was never recorded; the E1 of the evidence section beside it
    # shows the symptom only and does not stand in for the missing id.
    message = ("## Root cause\nStep time doubled after the upgrade because the new wheel no longer ships the "
               "fused kernel for head_dim 256 (E3).\n\n## Evidence\nStep times before and after are in E1.")
    ev = [Evidence("E1", ".venv-old  312 ms/step\n.venv-new  640 ms/step\n", "python bench.py")]
    assert decision(analyze(message, evidence=ev)) == "block"
    # With E3 recorded, the same answer passes.
    ev.append(Evidence("E3", "UserWarning: no fused kernel for head_dim=256, falling back\n", "python probe.py"))
    assert decision(analyze(message, evidence=ev)) == "allow"


def test_round76_a_restating_summary_draws_on_the_cited_findings_before_it():
    message = ("## 原因\nNCCL timeout は rank 3 がデータ読み込みで止まり、all_reduce に入ってこないことで起きています。"
               "`rank 3 stuck in _load_shard` と出ています (E1)。\n\n"
               "つまり rank 3 はシャード読み込みから戻ってこず、他の rank が collective で待たされたままタイムアウトしています。")
    ev = [Evidence("E1", "watchdog: rank 3 stuck in _load_shard (data.py:212)\n", "py-spy dump --pid 77")]
    assert decision(analyze(message, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    # a result clause whose subject is inline code
    "The collator pads on the left, so `input_ids[:, 0]` holds a pad token for every short prompt and the loss goes NaN.",
    # "has no effect", then a dash and what is set up wrong
    "The adapter has no effect at eval time — the `lora_target` names don't match any module in this model.",
    # an issue closed by naming the change behind it, with a relative clause about it
    "Closing — this was the accelerate 0.28 change that made `split_batches` default to True, which silently "
    "halves our per-device batch.",
    # Japanese: たら with a past result reports what happened, so the frame after it claims
    "fp32 に戻したら直ったので、結局 fused Adam の実装が原因でした。",
    # memory that keeps growing is a failure
    "RSS が epoch ごとに増えていくのは、評価結果を毎回リストに溜め込んでいるからです。",
    # the source of a NaN named tersely
    "NaN の出どころ、`F.normalize` の分母。",
    # a change stated, then 「これで」 and the failure it brought
    "tokenizer を更新したタイミングで pad_token の既定値が変わった、これで評価スコアがズレた。",
    # the matter after 「件：」, then a part missing from the set-up
    "eval だけ精度が低い件：eval 用の前処理に resize が入っていない。",
])
def test_round77_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # where a setting makes errors surface, not an error that happened
    "Setting `CUDA_LAUNCH_BLOCKING=1` serialises launches, so an error is raised at the line that triggered it "
    "instead of at the next synchronisation.",
    # a tool's display after "so" is what one sees, not a failure
    "vLLM reserves the cache up front, so `nvidia-smi` shows most of the memory in use even when nothing runs.",
    "Dropout has no effect on the gradient norm here, it only scales activations.",
    "Closing — fixed by #412 in the 0.9 release.",
    # Japanese: a plan with たら, and 「これで」 reporting a fix
    "bf16 にしたら NaN が消えるかどうか、次に試します。",
    "出力がズレていたので sdpa を eager に戻しました。これで直りました。",
    "NaN が出ていたので lr を下げた、これで NaN が出なくなった。",
    "NaN が出ていたので lr を下げた、これで loss が下がった。",
])
def test_round77_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round77_a_ruled_out_suspect_after_its_not_is_negated():
    for message in ("pretty sure it's not NCCL, the same hang shows up with gloo on CPU",
                    "Can confirm it's not the driver — both nodes crash the same way on 535 and 550."):
        kinds = [c.kind for c in analyze(message).claims]
        assert kinds == ["negated"], (message, kinds)


def test_round77_an_evidence_line_under_a_table_cites_the_claim_above_it():
    message = ("## Summary\nThe accuracy drop comes from quantising the classifier head; keeping it in fp16 "
               "recovers it.\n\n| run | acc |\n|---|---|\n| int8 all | 61.2 |\n| int8, head fp16 | 73.9 |\n\n"
               "From the sweep: `skip=head  acc=73.9` against `skip=none  acc=61.2`.")
    ev = [Evidence("E1", "fp16        acc=74.1\nskip=none  acc=61.2\nskip=head  acc=73.9\n", "python sweep.py")]
    assert decision(analyze(message, evidence=ev)) == "allow"
    # the same answer whose quotes no tool printed is still blocked
    assert decision(analyze(message.replace("73.9`", "75.0`").replace("61.2`", "60.0`"), evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    # two figures that should agree, after "That's why"
    "That's why train accuracy reads 99% while the holdout sits at 64%.",
    # a failure, then two steps in the wrong order
    "The fine-tuned checkpoint has no effect at eval. `save_pretrained()` runs before `merge_adapter()`, so we "
    "write the base weights and lose the tuned ones.",
    # a failure set beside what coincides with it, then why
    "Loss spikes at step 30k, which is exactly where the second data mix kicks in - that mix has thousands of "
    "empty strings.",
    # a commit subject naming the failure, then its cause
    "fix eval hang: the collate fn waited on a queue that the main process never fills",
    # Japanese: 「理由、それは」, and gradients that keep adding up
    "学習が遅い理由、それは毎 step で `torch.cuda.synchronize()` を呼んでいることです。",
    "`optimizer.zero_grad()` がループの外にあるので、勾配が毎 step 足され続けています。",
])
def test_round78_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "fix OOM: move the eval loop under no_grad",
    "Three candidates for the slowdown, none confirmed yet: the new kernel, the logging hook, or the smaller batch.",
    "The root-cause column of the incident tracker is still blank for two entries.",
    "The step time matches the deploy, but that's just a coincidence as far as I can tell.",
    # Japanese: how a mechanism works and what it entails; a plan to investigate; a case not yet
    # seen; causes announced before they are given
    "Adam は勾配の一次と二次のモーメントを移動平均で持ち、その比で更新量を決める仕組みです。"
    "そのため学習率が同じでも実際の更新幅はパラメータごとに変わります。",
    "スループット低下の原因を特定するため、まず nsys でプロファイルを取ります。",
    "bf16 にしても発散するようなら別の原因です。",
    "ハングとメモリ増加の件、両方とも原因が分かりました。詳細は下に書きます。",
])
def test_round78_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round78_ruled_out_suspects_are_negated():
    for message in ("The regression isn't the tokenizer; the ids match token for token across both versions.",
                    "データローダのリークを疑ってたけど違いました。"):
        kinds = [c.kind for c in analyze(message).claims]
        assert kinds == ["negated"], (message, kinds)


def test_round78_a_summary_draws_on_the_details_section_that_bears_on_it():
    message = ("## 概要\n評価が 2 時間ごとに止まる件、原因は rank 0 の checkpoint 書き出しです。\n\n"
               "## 詳細\n1. 他の rank は `Watchdog caught collective operation timeout` で落ちています（E1）。\n"
               "2. 同じ時刻の rank 0 は `write_checkpoint (ckpt.py:88)` で止まっています（E2）。\n")
    ev = [Evidence("E1", "[rank3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)\n", "grep Watchdog"),
          Evidence("E2", "Thread 1 (active): write_checkpoint (ckpt.py:88)\n", "py-spy dump --pid 4")]
    assert decision(analyze(message, evidence=ev)) == "allow"
    # Details that show only the symptom do not stand behind the summary's cause.
    message = ("## TL;DR\nTraining is slow because the compiler recompiles on every batch.\n\n"
               "## Details\nStep times in E1 show it.\n")
    ev = [Evidence("E1", "step 1 | 41.2 s\nstep 2 | 38.9 s\n", "python train.py --max-steps 2")]
    assert decision(analyze(message, evidence=ev)) == "block"
    # Without a summary heading above it, a later section does not cite the claim.
    message = message.replace("## TL;DR", "## Notes").replace("Step times in E1 show it.", "`recompiling` shows in E1.")
    ev = [Evidence("E1", "step 1 | 41.2 s  recompiling\n", "python train.py --max-steps 2")]
    assert decision(analyze(message, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    # a pseudo-cleft that names what drives the failure
    "What's keeping the eval F1 pinned at 0.33 is that the label map is rebuilt in a different order on each worker.",
    # a table whose column explains the symptom beside it
    "## Diagnosis\n\n| Symptom | Explanation |\n|---|---|\n| Hang after epoch 1 | the sampler's `set_epoch()` is "
    "called on rank 0 only |\n",
])
def test_round79_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a preview of the report's parts, not a claim
    "The fp16 run goes NaN at step 900. Two findings first, then the root cause.",
    # a table of steps with an explanation column, and a settings table with a reason column
    "| Step | Explanation |\n|---|---|\n| 1 | loads the shards |\n| 2 | builds the vocab |\n",
    "| Option | Default | Why |\n|---|---|---|\n| lr | 3e-4 | the loss diverged at 1e-3 |\n",
    # Japanese: the report's subject named as a matter; a reason that is a policy; a cause
    # that only lies somewhere else
    "## Summary\n長時間学習で RSS が増え続け、最後に OOM killer に落とされる件の調査結果です。",
    "チェックポイントの保存先を NFS からローカル SSD に移しました。チームの方針によるものです。",
    "同じ seed で 2 回回しても loss がずれるので、seed 以外の要因です。",
])
def test_round79_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round79_a_casual_no_to_a_suspect_is_negated():
    message = "nah not a leak in our dataloader — tracemalloc stays flat for 5k steps, the RSS growth is elsewhere"
    assert [c.kind for c in analyze(message).claims] == ["negated"]


@pytest.mark.parametrize("message", [
    # an HTTP status in the plural is a failure
    "The gateway returns 502s under load since every worker reuses one connection pool that is not thread-safe.",
    # Japanese: the hedge describes how the symptom looks, inside the topic; the cause is asserted
    "学習率が上がっていないように見えるのは、`scheduler.step()` を epoch ごとにしか呼んでいないからです。",
])
def test_round80_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a root-cause sentence that says it is not known, after a ruled-out cause
    "The network looks healthy — iperf reaches 90 Gb/s between the nodes — so the stall isn't a bandwidth issue. "
    "Root cause still open.",
    # Japanese: an aside on how something works; a status that waits on data; a reason for our
    # own change, named as the reason; a topic introduced with 「原因ですが」; neither A nor B
    "参考までに: AdamW は weight decay を勾配とは別に掛けるので、loss がスパイクしても decay の量は変わりません。",
    "補足: `empty_cache()` は未使用のキャッシュを返すだけです。なので OOM 対策としてはほぼ効きません。",
    "今週のステータス: 13B の評価はデータ待ちのため未着手です。",
    "今回は batch size を 64 に下げました。理由は、前回の実験で 128 だと OOM になったためです。",
    "ハングの原因ですが、NCCL なのかデータローダーなのか、現時点では判断できません。",
    "## 結果\n- sampler のバグではありませんでした。全 rank のインデックスを突き合わせましたが、重複も欠けもありません。",
    "## 調査結果\n- 量子化は関係ありません。bf16 のままでも同じ文字化けが出ます。",
])
def test_round80_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round80_a_ruled_out_why_is_negated():
    for message in ("Checked for duplicates: none across the splits, so that's not why the val loss is this low.",
                    "Seeds don't account for the NaN loss: with every seed fixed it still goes NaN at step 900."):
        assert [c.kind for c in analyze(message).claims] == ["negated"], message


@pytest.mark.parametrize("message", [
    # "does nothing at inference", then a dash and what is set up wrong
    "The adapter does nothing at inference — `target_modules` names `q_proj` but this model calls it `query`.",
    # a finding announced that names a step done twice
    "Turns out the collator adds EOS twice — the template already ends with `</s>` and we append another.",
    # Japanese: the matter as 「やつ」, then the reason said outright
    "初回の推論だけ 5 秒かかるやつ、CUDA graph のキャプチャが最初のリクエストで走ってるからだわ。",
])
def test_round81_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The reason we run eval on 4 GPUs rather than 8 is that the eval set is small, and 8 ranks would only add "
    "startup latency.",
    "### Changelog\n- Added `--strict-load`, which fails if a key is missing from the checkpoint.",
    "For context, `torch.cuda.synchronize()` waits for queued kernels, so a timing taken without it only measures "
    "launch overhead.",
    # Japanese: what a mechanism prevents; a fix report; the matter of a report; why we acted
    "GradScaler は loss をスケールしてから backward することで、小さな勾配がアンダーフローするのを防ぎます。",
    "## Fix\nPID 4121 を停止してから同じ設定で再実行し、OOM は再現しなくなりました。",
    "## Summary\neval のたびに GPU メモリが 2GiB ずつ増えて、4 回目で OOM になっていた件です。",
    "ジョブ 51234 落ちてたので、同じ設定で再投入しときました",
])
def test_round81_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round81_a_fix_commit_still_names_its_cause():
    # the act is a fix: what it fixed, and why, is a claim (not the motive for a rerun)
    assert decision(analyze("fix: unscale_ の前に clip していたためクリッピングが効かず発散していた問題を修正")) == "block"


@pytest.mark.parametrize("message", [
    # a failure, "=", then its cause
    "torch.compile failing on the new image = the image ships triton 3.1 and our pinned torch wants 3.0",
    # Japanese: a conditional inside the cause that then came true
    "transformers 4.41 で既定値が変わっていて、`pad_token_id` を渡さないと EOS で止まらなくなったのが原因です。",
])
def test_round82_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## Why\nPeople keep sending screenshots when they report slow training, so this makes a trace one flag away.",
    "I set `NCCL_ASYNC_ERROR_HANDLING=1` so that if a rank does hang, the job fails with a stack trace instead of "
    "sitting idle until the scheduler kills it.",
    "## Fix\nPID 9921 を停止してから再実行し、step 800 まで OOM なしで進むことを確認しました。",
])
def test_round82_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round82_ruled_out_suspects_are_negated():
    for message in ("I checked whether the data order was to blame, and it isn't: a fixed order gives the same NaN.",
                    "shm 不足説は消えました。--shm-size=16g にしても同じところで worker が死にます"):
        kinds = [c.kind for c in analyze(message).claims]
        assert kinds and kinds[0] == "negated", (message, kinds)


@pytest.mark.parametrize("message", [
    # a pseudo-cleft whose cause has no article
    "What's slowing the run down is host-to-device copies of the whole batch on every micro-step.",
    # "goes from X to Y" is a failure in a number
    "Recall goes from 0.82 to 0.61 after the export because the `max_length` of the tokenizer got reset to 128.",
])
def test_round83_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Activation offloading trades speed for memory: tensors move to the host after forward, which is why each step "
    "gets about 15% slower when you turn it on.",
    "This PR adds a `--resume-from` flag. The reason is simple: we keep restarting jobs on spot nodes by hand.",
    "## Fix\nKilled PID 7712 (a leftover of mine) and relaunched; the run is at step 900 with no OOM.",
    # Japanese: what to look at next; a control after a ruled-out cause
    "まだ分かっていません。`NCCL_DEBUG=INFO` を付けて再実行し、どの collective で止まっているかを見てから判断します。",
    "seed の問題ではありません。seed を 5 通り変えても val acc は 71.2±0.3 で安定していて、今回の劣化幅の方がずっと大きいです。",
])
def test_round83_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round83_ruled_out_suspects_are_negated():
    for message in ("The OOM is not fragmentation — reserved and allocated stay within 300 MB of each other.",
                    "The leak isn't in the training step — RSS grows just as fast when the step body is `pass`.",
                    "Quantisation is off the table for the latency spike: the fp16 model shows the same p99."):
        assert [c.kind for c in analyze(message).claims] == ["negated"], message


@pytest.mark.parametrize("message", [
    # the culprit named as a label
    "Slow eval. Culprit: `num_workers=0` plus decoding every JPEG twice inside `__getitem__`.",
])
def test_round84_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## Why\nSo that preempted spot jobs can pick up where they stopped, since the nightly runs move to spot nodes.",
    "The reason we use bf16 instead of fp16 on the H100s is the wider exponent range, which lets us drop the loss "
    "scaler entirely.",
    # Japanese: a feature's fallback; a requirement that names a failure to keep away
    "T4 では bf16 が使えないので、自動的に fp16 にフォールバックします。",
    "量子化は int4 ではなく int8 を選びました。精度低下を 1pt 以内に抑えるという要件があるからです。",
])
def test_round84_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round84_two_symptoms_in_a_row_are_read_in_the_plain_text():
    # 「`loss nan` になって止まりました」: a failure inside inline code, then the next one; the
    # sentence reports what happened and claims nothing
    message = "学習が step 900 で `loss nan` になって止まりました。ログは `runs/exp3/train.log` にあります。"
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # "since" before a version that the clause then says something about
    "The import fails since torchvision 0.15 doesn't ship the `v2` transforms module.",
    # numbers in the head of "<failure>: <why>" are not words of its length
    "Step time went from 310 ms to 720 ms after the driver update — the new driver disables peer-to-peer copies "
    "between the two PCIe switches.",
    # a metric too good to be true, with a gerund as the subject
    "Test AUC looks too good: the patient ids overlap between the train and test folds.",
    "Fine-tuning sees the same shards twice: the resume path doesn't skip what the sampler already yielded.",
    # the failure before it, named as a mechanism
    "Loss hits NaN after step 800. It is a plain bf16 underflow in the variance term of the layer norm.",
    # Japanese: loss 「が飛ぶ」; something counted that should not be
    "gradient clipping を外したせいで loss が飛んでいます。",
    "attention_mask を渡していないため、padding まで平均に含まれていました。",
])
def test_round85_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "We checkpoint every 1000 steps since that keeps the I/O overhead under 3%.",
    "Because of how DDP buckets gradients, the first backward after a graph change allocates new buckets; that's "
    "expected and not an error.",
    "NCCL looks healthy — all_reduce reaches 150 GB/s between these hosts — so the stall isn't bandwidth.",
    "Serving p95 went from 90 ms to 300 ms after the deploy; the dashboard link is in the ticket.",
    # Japanese: why a setting was left as it was; jumping to a definition
    "weight decay を 0.01 のまま据え置いたのは、0.05 にしても検証 loss がほとんど変わらなかったためです。",
    "行番号をクリックすると定義に飛ぶので、そこから呼び出し元を辿ってください。",
])
def test_round85_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # "since `setting` ..." is a reason, and a server that "502s" fails
    "The gateway 502s on large uploads since `client_max_body_size` is still the 1 MB default.",
    # "as the reference policy ..." names a subject, as "as the workers ..." does
    "Eval is slow as the reference policy gets rebuilt from disk on every call.",
    # text the tokenizer cannot represent
    "The new tokenizer was trained without accented names, so every one of them maps to <unk>.",
    # Japanese: a driver too old; something masked that should not be; 「の推定に」 is no hedge
    "ドライバ 525 は CUDA 12.4 には古すぎるので、起動時に `cudaErrorInsufficientDriver` を返します。",
    "attention_mask の作り方が逆で、本文まで mask されていたためです。",
    "量子化後に日本語だけ崩れるのは、calibration データが英語だけで scale の推定に日本語の分布が入っていないからです。",
])
def test_round86_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "it's been returning 502 since ~9am, can someone take a look?",
    "Re the 502s under load — I suspect, though I haven't checked it, that the pool is too small because the "
    "default is 4.",
    # Japanese: a me-too report gives the reporter's setup, not a finding
    "同じ症状です。環境は torch 2.4, CUDA 12.4, A100 x4 です。",
])
def test_round86_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round86_a_ruled_out_part_and_a_bare_error_class():
    assert [c.kind for c in analyze("The tokenizer isn't at fault: 500 decoded samples round-trip exactly.").claims] \
        == ["negated"]
    # the error's class alone, even as a dotted path, shows what failed, not why
    ev = [Evidence("E1", "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL",
                   "python serve.py")]
    report = analyze("The server crashes because the model was exported with opset 18: "
                     "`onnxruntime.capi.onnxruntime_pybind11_state.Fail`.", evidence=ev)
    assert decision(report) == "block"


@pytest.mark.parametrize("message", [
    # a number with its unit ends a sentence before a lower-case word; a mechanism named where
    # it happens, right after the failure
    "Eval loss jumps to inf at step 12k. bf16 underflow in the rotary cache; computing it in fp32 fixes it.",
    # a model that disregards what it was given
    "The reason the agent ignores the stop sequences is that the server strips them from the request.",
    # Japanese: 「これで」 takes up the setting named before it
    "`cudnn.benchmark` が有効です。これで毎回カーネルの選択が変わり、同じ入力でも出力が一致しません。",
    # 「再推定」 is no hedge; a polite aside before a colon does not hedge what follows it
    "再開後に loss が跳ねるのは、scheduler の state を保存していないせいで学習率が warmup から再推定されるからです。",
    "たぶん既知だと思いますが念のため報告です：推論が遅いのは `use_cache=False` が渡っているからです。",
])
def test_round87_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # how a part works, introduced as such; a cost that stays small
    "Here's how the prefix cache works in this server:\n\n1. Each prompt is hashed per block.\n"
    "2. Matching blocks are reused.\n\nBecause blocks are shared, fragmentation stays low even under mixed traffic.",
    # an honest "not known yet" with the observations after it
    "We don't know yet what's leaking memory — RSS grows ~150 MB per epoch and tracemalloc points nowhere.",
    # Japanese: an answer to the user's question about how something works
    "ご質問の件ですが、`DataCollatorWithPadding` は pad の位置を -100 にします。損失計算では -100 が無視されるので、"
    "pad は loss に寄与しません。",
])
def test_round87_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round87_a_control_with_instead_of_still_rules_out():
    message = "It's not the batch size — I reran with 8 instead of 32 and it still OOMs at the same layer."
    assert [c.kind for c in analyze(message).claims] == ["negated"]
    # a contrast that names the real problem still claims it
    message = "Mixed precision is not the problem, the real problem is the mask being added as 0/1, so padding gets weight."
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a step that loses what it should keep, right after the failure
    "After merging the adapter the model scores 4 points lower. Casting to int8 rounds most of the update away.",
    # a number that is off; two settings that should agree, apart
    "Eval macro-F1 is off because the scorer includes padded positions.",
    "Staging vs prod gap is config skew: prod loads the fp16 weights and staging loads bf16.",
    # Japanese: results that change despite a fixed seed; redone work every token; a cause row
    "要は、seed を固定しても出力が毎回変わるのは `index_add_` が非決定的だから、ということです。",
    "生成だけ極端に遅い。`use_cache=False` が渡っていて、毎トークン全系列を再計算している。",
    "| 項目 | 内容 |\n|---|---|\n| 落ちる step | 2210 |\n| 原因 | 学習データへの重複サンプルの混入 |\n",
])
def test_round88_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # why a default is what it is
    "Since the checks cost 8% throughput, the option is off by default. We want it for bisecting regressions.",
    # Japanese: the error's name says how the job died, not why; an unknown cause row
    "学習ジョブ #77 が step 3000 で `NCCL timeout` により停止しました。ログは共有ディスクにあります。",
    "| 項目 | 内容 |\n|---|---|\n| 原因 | 未特定 |\n| 次の手 | `NCCL_DEBUG=INFO` で再実行 |\n",
])
def test_round88_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # a result said not to be real, then the leak that made it
    "The test F1 of 97.8% is not real. Validation clips are duplicated in the training set, so the model has seen them.",
    # a knob set wrong, right after the failure
    "Rollouts collapse to a single token after ~300 updates. The entropy bonus is too weak, and the policy found "
    "that stopping early scores best.",
    # the agent of the damage, in a commit subject
    "fix(metrics): recall was inflated by the scorer counting ignored labels as hits; drop them first",
    "Everything after epoch 4 is flat because the scheduler already decayed to zero.",
    "Two seeds landing 2 points apart isn't noise: the data order changes with the worker count.",
    "Slow first batch on every node: the dataset index is built lazily on the first `__getitem__` call.",
])
def test_round89_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # how a feature trades one cost for another, and what to expect
    "Activation offloading trades speed for memory: activations are dropped to host RAM and fetched back for "
    "backward, so expect steps to be about 20% slower.",
    # how a failure reads in general, and the advice it leads to
    "In NCCL a watchdog timeout doesn't tell you which rank is to blame; every rank times out together, which is "
    "why you want per-rank stack dumps when debugging hangs.",
    # the value of a setting of ours, and why
    "The reason for the long heartbeat timeout is that node restarts take up to a minute, and we'd rather wait "
    "than fail the run.",
])
def test_round89_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round89_ruled_out_as_unrelated():
    message = "Seeds are fine. Two runs with seed 7 match bit for bit up to step 3k, so the later spike isn't seed-related."
    assert "negated" in [c.kind for c in analyze(message).claims]
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # "the 503s" as a noun, "502s from"; "since <tool> <version> has no ..."
    "The 503s from the gateway happen because the upstream pool has only four connections.",
    "install fails since CUDA 11.6 has no sm_90 target, so the kernels have to be built with 12.x.",
    # a failure word a few words from its object: "eats the 40GB of host RAM"
    "lol it's the prefetch thread again, thats what eats the 60GB of host RAM",
    # Japanese: loss that does not come all the way down
    "あー分かった、labels の pad を 0 で埋めてる。だから pad にも loss が乗ってて下がりきらないんだ",
])
def test_round90_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # our own probe aimed wrong; an honest unknown before a list of observations
    "I don't know yet why rank 5 hangs. The stack dump I took was from the wrong PID, so I have nothing to report.",
    "## Root cause\nUnknown so far. What I have:\n\n- The hang only happens on multi-node runs.\n"
    "- It shows up 2 to 6 hours in.\n",
    # freezing weights on purpose; a fix reported; a ruled-out theory
    "Adapters freeze the base weights and train two small matrices per layer, which is why the checkpoint is tiny.",
    "## Fix\nDropped the `profile.yaml` include from the launcher; utilisation is back to ~90%.",
    "we can drop the dataloader theory — step time is flat with synthetic data, so whatever stalls the job isn't "
    "input loading",
    # Japanese: a merit as the reason for a choice of ours (「キャリブレーション」 is no 「ブレ」)
    "量子化は AWQ を採用しました。キャリブレーションデータが少なくても精度が落ちにくい、というのが理由です。",
    "seed は関係ない。seed を変えても 0.2pt しか動かないから、今回の差は別の何か",
])
def test_round90_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # a metric said to mislead; slower than it should be, by numbers
    "The accuracy of 0.97 is misleading: the test set is 90% one class, so predicting it always scores that.",
    # Japanese: a setting too short for the point where the failure shows
    "発散は step 3100、ちょうど LR が peak に届くところ。warmup 500 step では短すぎる。",
])
def test_round91_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a cost by design
    "Activation checkpointing trades compute for memory: activations are recomputed in backward instead of "
    "stored, so step time goes up by about a third.",
    # a theory checked and ruled out, the cause still unknown
    "checked the driver theory, both hosts run 550.54 so it's not a driver mismatch. still no idea what's hanging",
])
def test_round91_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # a failure stated, then a chain of cause and effect with no failure word of its own
    "Validation loss diverges after the first epoch. The EMA copy and the live model point at the same tensors, "
    "so the averaged weights are just the live ones and nothing smooths the updates.",
    "The reward model got worse after the refresh. The new preference pairs were labelled by the policy itself, "
    "so the model learns its own biases.",
    # a heading that asks why something is slower sets a root-cause section
    "## Why the exported model is slower\nTensorRT falls back to the generic kernels for every attention layer.",
    # a fix commit whose look-back cue names the bug
    "fix(metrics): recall was computed over the padded batch, which is why it never went above 0.8",
    # Japanese: a cleft that ends in the evidence id it names (an id this session does not hold)
    "学習が止まるのは NFS のロック待ちです（E7）。",
])
def test_round92_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # what a setting shows, not what causes a failure
    "I turned on `TORCH_NCCL_ASYNC_ERROR_HANDLING` so a stuck rank aborts the job. It changes nothing by itself, "
    "it only makes hangs visible.",
    # our own act under a fix heading
    "## Fix\nKilled the zombie workers (pids 311, 312) and restarted the trainer.",
    # a measure taken until the cause is known
    "原因が特定できるまで、夜間の学習ジョブは止めておきます。",
    # a failure already answered by a design, then how the design works
    "Spot nodes vanish without notice, which is why we checkpoint every ten minutes. Shards are written under a "
    "temporary name and renamed at the end, so an interrupted write never replaces the latest good shard.",
    # a list of changes after a failure word
    "## Changes\n- Retries now back off with jitter.\n- The readiness probe no longer runs a forward pass, so it "
    "answers in a few milliseconds.",
])
def test_round92_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round92_a_root_cause_paragraph_draws_on_its_subsections():
    """The paragraph opening a root-cause section sums up the numbered subsections under it;
    their quotes of output cite it, when they bear on it."""
    ev = [Evidence("E1", "step 900 | loss 2.1\nscaler: overflow, reducing loss scale to 1.0\nstep 920 | loss nan\n"),
          Evidence("E2", "first non-finite: encoder.11.softmax (dtype=torch.float16)\n")]
    msg = ("## Root cause\nThe loss scale keeps shrinking from overflow until the loss turns NaN.\n"
           "### 1. The scaler\nThe log shows `overflow, reducing loss scale to 1.0` just before `step 920 | loss nan`.\n"
           "### 2. Where it starts\nThe first non-finite tensor is the fp16 softmax (E2).\n"
           "## Next\n- run the softmax in fp32\n")
    rep = analyze(msg, evidence=ev)
    assert decision(rep) == "allow", [(c.text, c.cited) for c in rep.claims]
    # the same summary with nothing under it that bears on it still blocks
    msg = ("## Root cause\nThe dataloader workers leak pinned host buffers on every epoch.\n"
           "### 1. The scaler\nThe log shows `overflow, reducing loss scale to 1.0` just before `step 920 | loss nan`.\n")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    # a failure stated, then "<defect>, so on reload <effect>" with no failure after the cue
    "Eval F1 collapsed after the resume. The tokenizer files aren't copied into the checkpoint, so on reload "
    "the default vocab gets used.",
    # a symptom's number with a tilde
    "The val loss plateau at ~1.9 is a frozen embedding layer left over from the LoRA config.",
    # the writer's own why-question opening the paragraph that answers it
    "Why did eval get 3x slower? The metric code tokenizes every reference again on each call.",
    # sameness across replicas where each should draw its own
    "Each of the 4 replicas gets the identical shuffle — the sampler seed ignores the rank.",
    # Japanese: garbage tokens are a failure; one rank leaving before the collective
    "chat template を二重に適用しているので、応答の先頭にゴミトークンが混ざります。",
    "NCCL timeout の件、rank 5 だけ評価ループの前で early return しています。",
])
def test_round93_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a deprecated name that keeps working
    "Renamed `--lr-warmup` to `--warmup-steps`; the old flag is still accepted with a warning.",
    # the asker's own question, then their setup
    "Why does my run OOM at step 1? I'm on a single 24 GB card with batch size 8 and bf16.",
    # Japanese: a guess said to be a guess before the cause it proposes
    "あくまで推測ですが、eval が遅いのは毎回 tokenizer を読み込み直しているせいです。",
    "推測の域を出ませんが、KL が急増しているのは reward hacking が起きているようにも見えます。",
    "自信はないですが、warmup が短すぎて発散しているのだと思います。",
    # confidence said outright is no hedge
])
def test_round93_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round93_confident_japanese_is_not_a_hedge():
    assert decision(analyze("確証があります。warmup が短すぎて発散しています。")) == "block"


def test_round93_an_announced_finding_is_as_cited_as_the_finding():
    ev = [Evidence("E1", "Thread 4121 (idle): MainThread\n    _read_image (data/dataset.py:88)\n", "py-spy dump --pid 4121")]
    msg = ("## Summary\n学習が 10 分止まってから落ちる件、原因を特定しました。\n\n## Root cause\n"
           "rank 3 が画像の読み込みで詰まっています: `_read_image (data/dataset.py:88)` (E1)。\n")
    assert decision(analyze(msg, evidence=ev)) == "allow"
    # announced, and then nothing cited: the finding blocks
    assert decision(analyze(msg.replace("`_read_image (data/dataset.py:88)` (E1)", "画像デコードです"), evidence=ev)) == "block"


def test_round93_a_quote_only_the_agents_own_search_holds_is_no_citation():
    """`grep -e PATTERN` that printed other lines: quoting PATTERN beside the id cites nothing.
    A line grep did print, with the pattern in it, still cites."""
    ev = [Evidence("E1", "src/data.py:12:    num_workers=8,\n", "grep -rn -e 'persistent_workers=True' -e 'num_workers' src/")]
    msg = "Every epoch restarts the workers because the loader is built without `persistent_workers=True` (E1)."
    rep = analyze(msg, evidence=ev)
    assert decision(rep) == "block"
    assert any("search pattern" in n["why"] or "agent itself" in n["why"] for n in rep.claims[0].near_misses)
    ev = [Evidence("E1", "src/data.py:12:    loader = DataLoader(ds, persistent_workers=False)\n", "grep -rn 'persistent_workers=' src/")]
    msg = "Every epoch restarts the workers because of `DataLoader(ds, persistent_workers=False)` (E1)."
    assert decision(analyze(msg, evidence=ev)) == "allow"
    # naming the command it ran is no made-up quote: the id still cites
    ev = [Evidence("E1", "Thread 77 (active): MainThread\n    read (fsspec/http.py:612)\n", "py-spy dump --pid 77")]
    msg = "The hang comes from rank 2 blocking in an HTTP read: see `py-spy dump` (E1)."
    assert decision(analyze(msg, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    # "hypotheses" in the MT sense is no hedge
    "ROUGE is low because the detokenizer is skipped, so BPE fragments end up in the hypotheses.",
    # a failure noun of torch.compile's; an adapter that does nothing at eval time
    "The recompiles are the dynamic batch sizes: each new size builds another graph.",
    "The adapter didn't do anything at eval time — it was attached to a copy of the model.",
    # Japanese: a guess taken back, then the cause said outright
    "重いの、たぶんとかじゃなくて完全に毎ステップ tokenizer を作り直してるせい。",
])
def test_round94_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a count of causes, named after it
    "The timeouts come from two separate problems.",
    # Japanese: our choices and what they bring about, not diagnoses
    "推論の timeout を 60 秒から 5 分に延ばしたのは、長い入力の生成に最大 3 分かかるためで、障害の対策ではありません。",
    "結果がばらついていたので、seed を固定して決定的アルゴリズムを有効にしました。これで毎回同じ結果になります。",
    "- リトライ回数は 3 回（上流の設定に合わせたため）\n- タイムアウトは 30 秒\n",
    "batch size を 512 にしている理由: 小さい batch では勾配が不安定になりやすいと言われているので、論文の設定に揃えました。",
])
def test_round94_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round94_a_count_of_causes_above_cited_findings_passes():
    ev = [Evidence("E1", "Last State: Terminated\n  Reason:       OOMKilled\n", "kubectl describe pod api-0"),
          Evidence("E2", "ValueError: maximum context length is 4096 tokens. However, you requested 6211 tokens\n",
                   "kubectl logs api-0")]
    msg = ("## Summary\nThe 503s come from two separate problems.\n\n## Findings\n"
           "- The pod is OOM-killed while loading the weights: `Reason:       OOMKilled` (E1).\n"
           "- Long prompts are rejected: `maximum context length is 4096 tokens` (E2).\n")
    assert decision(analyze(msg, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    # the culprit named, then a comma and how it fails ("its" for "it's", as people type)
    "its the prefetch_factor=8 + 32 workers combo, host runs out of RAM and the trainer crawls",
    # CUDA's own failure words
    "The decode kernel hits an illegal memory access because the KV index is off by one.",
    # Japanese: a cleft naming the defect; a step skipped under a matter heading; a gap as a
    # failure; an English error message in a Japanese sentence
    "調べた結果、F1 が 0.99 出ていたのは学習データに評価データが混ざっていたリークでした。",
    "ROUGE が異様に低い件：改行を除去せずにそのまま scorer に渡していた。",
    "val の loss が train とかけ離れてるの、augmentation が val にもかかってるからやん",
    "コンテナの driver が古いままだったので、`illegal memory access` が出てました。",
])
def test_round95_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # why a setting has its value
    "The reason `save_steps` is 2000 and not 500 is disk: each checkpoint is 140 GB.",
    # a cleft that asks whether there is a defect, not one that names it
    "確認したのは、設定ミスがないかどうかでした。",
])
def test_round95_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # a short cause, then the label of the log under it, on one line
    "NaN because of fp16 logits. Log:\n\n```\nstep 812 | loss nan\n```",
    # "is definitely from <something> <doing>", after a hedge that a "but" ends
    "Not sure about the step, but the shard corruption is definitely from two workers writing the same file.",
    # Japanese: casual endings still end a predicate; low utilisation is a failure; a step skipped
    "GPU 使用率 25% しか出ないの、完全に tokenizer 待ちだわ",
    "CER が急に悪化した件：8kHz 前提のモデルに 48kHz の音声をリサンプリングせずに突っ込んでいた。",
])
def test_round96_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # Japanese: a small cost as a merit of our choice; the reason for a practice
    "量子化には AWQ を選びました。キャリブレーションが速く、精度の劣化もわずかだったためです。",
    "attention mask を左に寄せる理由は、生成では最後のトークンの次を予測するので、右に pad があると生成が崩れてしまうからです。",
    # which of two it is, not known yet
    "GPU 使用率が 35% しか出ない件、ボトルネックが I/O なのか前処理なのかはまだ分からないです。",
    # an English label line after a sentence: the summary of findings heads the list below it
    "Done. Summary of what I found:\n- The eval set has 2,000 prompts.\n- Updated the README with the new eval command.\n",
])
def test_round96_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round96_a_summary_of_findings_heads_its_list():
    """"Done. Summary of what I found:" is a sentence, then the findings label: the causal items
    under it claim, as under "What I found"."""
    msg = ("Done. Summary of what I found:\n"
           "- The extra 6 minutes per eval come from detokenizing in a Python loop; I switched to `batch_decode`.\n")
    assert decision(analyze(msg)) == "block"


@pytest.mark.parametrize("message", [
    # a metric explained away as a flaw of the data
    "The 0.998 validation AUC is pure leakage, nothing more.",
    # chat English without apostrophes
    "its the kernel module. 550 doesnt match the userspace libs on node7, thats why nvidia-smi shows no GPUs there",
    # a fix commit's subject, a dash, then why it broke
    "fix nan in dice loss - log(x) hits -inf when the mask is empty in bf16, add eps",
    # a comma splice: the symptom, then the stale input behind it
    "heads up the leaderboard scores are wrong, the scorer was loading stale predictions from the old run dir",
    # Japanese: the topic particle dropped after the reason (「理由、」)
    "推論が遅い理由、毎回 tokenizer を from_pretrained でロードし直してること。",
])
def test_round97_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # Japanese: an option's default, with the cost that made it opt-in
    "この PR で各 eval の予測サンプルを保存するようにしました。書き出しで eval が遅くなるので、`--save-preds` を付けたときだけ有効です。",
    # the only candidates that come to mind, and the plan to check both
    "止まる原因はまだ不明です。ドライバの差か、共有ストレージの遅延くらいしか思い当たらないので、明日両方確かめます。",
    # why a practice is needed (not why something failed)
    "なぜ loss scaling が必要なのかというと、fp16 では小さな勾配がアンダーフローして 0 になり、そのため学習が進まなくなるからです。",
    # English: a comma splice of two observations
    "The eval numbers look wrong, the dashboard shows 0.31 for every run since Monday.",
])
def test_round97_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round97_a_casual_rule_out_is_negated():
    """"checked, its not the tokenizer": a suspect cleared in chat English is reported as ruled
    out, not read as nothing."""
    claims = analyze("checked, its not the tokenizer. encode/decode roundtrip is byte identical on both versions").claims
    assert [c.kind for c in claims] == ["negated"]


@pytest.mark.parametrize("said, read", [
    ("lol its the driver, thats why", "lol it's the driver, that's why"),
    ("it doesnt start and cant find the GPU", "it doesn't start and can't find the GPU"),
    # a possessive "its" is not a contraction
    ("the sampler reshuffles its indices", "the sampler reshuffles its indices"),
])
def test_round97_chat_english_gets_its_apostrophes_back(said, read):
    assert sentences.apostrophes(said) == read


@pytest.mark.parametrize("message", [
    # a change that should act and barely does, then why (after "The reason is that" or a colon)
    "The new LoRA has almost no effect on the generations. The reason is that the adapter only wraps the output head.",
    "Prompt tuning has almost no effect on accuracy: the soft prompt is reinitialised on every resume.",
    # a fix commit's subject names what broke; the colon gives why
    "fix eval bleu: the references were lowercased twice and the score was inflated",
    # a cold start measured in seconds, then what it is
    "First request after each restart takes 25 s — that's vLLM capturing CUDA graphs, the warmup hook is never called.",
    # Japanese: what was not set up, and the failure that came of it
    "`expandable_segments` を有効にしていなくて断片化が進み、空きがあっても OOM で落ちています。",
])
def test_round98_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # what a setting will lead to, in advice
    "You can pin the kernel choice with `torch.backends.cudnn.deterministic = True`; note that some convolutions will then run slower because the fastest algorithms are non-deterministic.",
    # a message that opens as a short explainer of how a part works
    "Quick explainer, since it keeps coming up: the dataloader prefetches `prefetch_factor` batches per worker. That's why a slow worker shows up as a stall on the main process.",
    # Japanese: a guess with 「とは思いますが」 after "not known yet"; a maintenance notice
    "原因はまだ特定できていません。評価のときだけ遅くなるので、キャッシュ周りだとは思いますが、確認はこれからです。",
    "明日は GPU ノードのメンテなので、9 時以降ジョブが止まります。",
])
def test_round98_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Not the sampler. The same slowdown shows up with a plain `SequentialSampler`, so the sampler is out of the picture.",
    "データローダの設定ミスではありませんでした。num_workers=0 でも同じ step で止まります。",
    "CUDA のバージョン差は外しました。12.1 と 12.4 で同じ結果です。",
])
def test_round98_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # a participle that gives the effect
    "The collator pads every batch to the longest sequence in the dataset, inflating step time 3x.",
    # a failure, a dash, then two steps in the wrong order said in words
    "Resume is broken — the scheduler state gets loaded before the model is wrapped with FSDP, so the LR restarts from warmup.",
    # a comma splice: the defect first, the failure after
    "warmup is computed per epoch instead of per step, LR hits the peak at step 1 and the loss blows up",
    # Japanese: a change of state that leads to the failure after it (ことで, no comma)
    "バッチごとに系列長が変わることで CUDA graph が作り直され、スループットが半分に落ちています。",
])
def test_round99_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # how to debug a failure, not why it happened
    "OOMs are easier to track down with `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`, which makes the allocator report fragmentation instead of failing late.",
    # Japanese: a default explained with a hypothetical "even if some rank stops"
    "DataLoader の timeout はデフォルトで 0 なので、どれかの worker が止まってもエラーにならずに待ち続けます。",
    # measuring a cause-laden quantity is our purpose
    "乱数によるばらつきを見るため、各条件 3 seed ずつ回しています。",
    # no error, just slow
    "エラーは出ていなくて、単に遅いだけです。",
])
def test_round99_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "I checked, and the leak isn't in the tokenizer cache — its size stays flat over 10k steps.",
    "The sampler is fine: every rank sees a disjoint set of indices in the dump.",
    "データローダの線は消しました。num_workers=0 でも同じ速度です。",
    "PyTorch のバージョン差ではなかった。2.3 と 2.4 で同じ所で止まる",
])
def test_round99_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # a terse note's "=" gives the cause
    "Accuracy plateau at 0.10 = labels shuffled in a different order than the images.",
    # "did nothing", then why
    "The new warmup did nothing: the scheduler ignores `warmup_steps` entirely.",
    # the failure, then the event it lines up with; the point a failure begins
    "Summary of the investigation:\n\n- The slowdown starts at step 9k, which lines up with the point where the page cache is full.\n",
    "Step time goes from 0.3 s to 1.8 s once the prefetch queue runs dry.",
    # memory held on to
    "fix memory leak in eval. we were storing the logits with their graph, which kept every batch's activations alive",
    # Japanese: output gone to mush; two things combined as the cause
    "padding_side が right のままなので generate の出力がぐちゃぐちゃになっています。",
    "スループットの低下、`torch.compile` と動的 shape の組み合わせで、毎バッチ再コンパイルが走っています。",
])
def test_round100_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


def test_round100_the_summary_in_english_headings_draws_on_its_findings():
    """A Japanese report under "## Summary" / "## Findings": the summary's cause is shown by the
    cited findings (here by a `top` line that shares "CPU" with it)."""
    msg = ("## Summary\nGPU 使用率が低い件、原因は CPU 側のデコード律速でした。\n\n"
           "## Findings\n1. **デコードが律速**: worker がいずれも CPU 99% に張り付いています (E1)。\n")
    ev = [Evidence("E1", "  PID USER  %CPU COMMAND\n 4121 ml    99.3 pt_data_worker\n")]
    assert decision(analyze(msg, ev)) == "allow"


@pytest.mark.parametrize("message", [
    # NCCL as the means of a design, not a failure
    "学習と rollout を別プロセスに分ける構成にしました。同じプロセスだと管理が複雑になるので、重みは NCCL で同期しています。",
])
def test_round100_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Data order isn't why the runs differ: with the same order they still split at step 300, so the source is something we haven't found yet.",
    "Can confirm this is not related to the tokenizer upgrade. Pinned the old version, same hang.",
])
def test_round100_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # a failure word the packs lacked, then why
    "The student learns nothing after epoch 2 since the teacher logits are detached twice, so the KL term is constant.",
    "fix resume: scheduler state was restored before the FSDP wrap so the step counts didn't line up; restore it after wrapping now",
    "Empty completions in the reward rollouts: the stop list contains a newline, so vLLM stops on the first token.",
    # what makes the failure so, named as the subject's complement
    "What makes the dropout masks identical across ranks is the shared CUDA generator: every rank seeds it with the same value.",
    # someone else's release changed a default
    "Decoding got 3x slower after the upgrade. The new release no longer compiles the sampler by default, so every token goes through eager Python.",
    # Japanese: an arrow that points at the culprit; HTTP 5xx after a chain of events
    "学習が急に遅くなった件、`pin_memory=False` ← これ。H2D コピーが毎回同期になってる。",
    "タイムアウトが 60 秒のままで、生成がそれを超えると worker が落ちて 504 になっています。",
])
def test_round101_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a plan that asks which op does it
    "My guess is the spikes come from the bf16 layernorm, but I haven't confirmed it. Next step is to rerun with anomaly detection and see which op produces the first NaN.",
    # a time, not a reason: 「〜直後からです」
    "p99 レイテンシが 300ms から 1.1s に悪化しています。リリース直後からです。",
    # how a mechanism works, under a mechanism heading
    "## mixed precision の仕組み\nGradScaler は loss に大きな係数を掛けてから backward します。勾配を unscale してから step するのは、更新量を元のスケールに戻すためです。",
    # what an endpoint is for, not why it fails
    "`/readyz` を追加します。ロードバランサから叩くためのもので、モデルのロードが終わるまでは 503 を返します。",
    # "What causes X for people is": common confusion, not a failure
    "What causes the most confusion for new users is that `gradient_accumulation_steps` also divides the logged loss.",
])
def test_round101_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "fwiw not a CUDA thing on our side, same result on 12.1 and 12.4. still no idea what's going on",
    "データローダを疑ってたけど違った。num_workers=0 でも同じ所で止まる",
])
def test_round101_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # what drives the failure, named as the complement
    "What drives the step time to 3 s is the host-side augmentation running in the main process.",
    # a failure said as "bottoms out halfway", then why
    "The LR bottoms out halfway through training — the scheduler counts micro-batches while `num_training_steps` counts optimizer steps.",
    # Japanese: 「〜のが効いてた」 says it was the cause
    "loss が揃わなかったの、dropout の seed を rank ごとに変えてなかったのが効いてた。",
])
def test_round102_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a failed run beside one that is still fine: a control, not a reason
    "The run at lr=1e-3 diverged at step 900 (loss 2.3 → 11.0); the 3e-4 run is still healthy at step 5k.",
    # a test added so that a future regression would fail CI: a purpose
    "I added a test that checks every label id is below the vocab size, so a regression in the tokenizer config would fail CI.",
    # Japanese: the cause not found yet; suspicions listed; the name of a countermeasure
    "学習が遅い件を調べましたが、決定的な原因はまだ見つけられていません。",
    "loss が跳ねる件、いくつか疑っている点があります。",
    "weight decay は 0.1 にしています。過学習対策のためです。",
    # the reason for our migration; a choice whose cost was the same
    "学習ログは wandb から MLflow に移行しました。理由は、社内の認証基盤と統合しやすかったためです。",
    "蒸留には KD を採用しました。学習が速く、精度の劣化も今回のデータでは同程度だったので。",
])
def test_round102_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The slowdown isn't in cuDNN itself: the standalone benchmark runs at full speed on the same node.",
    "not the dataloader. ran it with num_workers=0 and the same spike shows up at step 4k",
    "NaN は学習率のせいではありません。1e-6 まで下げても同じ step で出るので、別の要因です。",
])
def test_round102_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # a finding announced, a defect, and the failure it leads to
    "turns out the tokenizer has no eos token so it falls back to pad, and the model learns to never stop generating",
    # the failure, then "That's the X holding on to every graph"
    "RSS grows ~150 MB per epoch. That's the `metrics.append(loss)` in the eval loop holding on to every autograd graph.",
    # no effect at inference, then why (done to the wrong object)
    "The adapter has no effect at inference: it was merged into a copy of the model and the copy was never saved.",
    # "What's happening is that ..." after the failure
    "The endpoint returns 500s under load. What's happening is that all workers share one tokenizer instance that isn't thread-safe.",
    # "it was the X all along", then the defect
    "lol it was the tokenizer all along, someone pushed a vocab with the special tokens shifted by one",
    # MT sense: the detokenizer mangles the hypotheses
    "BLEU fell from 28 to 9 after the refactor. The detokenizer is applied twice, which mangles the hypotheses.",
    # Japanese: 「〜はずっと」 is no hedge
    "結論から言うと、学習が遅かったのは前処理を CPU 1 コアでやっていたからで、GPU 側はずっと待っていました。",
])
def test_round103_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


def test_round103_a_root_cause_section_draws_on_the_findings_before_it():
    """"## Findings" with cited items, then "## Root cause" that adds them up: the root cause is
    shown by the findings (here they share "validation" and "rank")."""
    msg = ("## Findings\n"
           "1. Ranks 1-15 time out in the all-reduce: `Timeout(ms)=1800000 ran for 1800084 milliseconds` (E1).\n"
           "2. Rank 0 alone runs validation: `validation done in 2493.2s` (E2).\n\n"
           "## Root cause\n"
           "Rank 0 spends 41 min in single-rank validation while the other ranks wait in the all-reduce, "
           "so the watchdog kills them at 30 min.\n")
    ev = [Evidence("E1", "[rank3] Timeout(ms)=1800000 ran for 1800084 milliseconds before timing out\n"),
          Evidence("E2", "step 6000 | validation done in 2493.2s | val_loss 1.873\n")]
    assert decision(analyze(msg, ev)) == "allow"
    assert decision(analyze(msg)) == "block"


@pytest.mark.parametrize("message", [
    # Japanese: how GradScaler is built, and that the skips are expected
    "GradScaler は勾配に inf が出たらその step を飛ばして scale を下げる仕組みなので、序盤に何回か skip が出るのは正常です。",
])
def test_round103_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round103_a_rule_out_with_it():
    claims = analyze("Checked the LR theory: three runs at 1e-5 all plateau at the same loss, so the LR doesn't explain it.").claims
    assert "negated" in [c.kind for c in claims] and "assertion" not in [c.kind for c in claims]


@pytest.mark.parametrize("message", [
    # the failure as the subject, its kind after "is"
    "The `undefined symbol` import error on the new nodes is an ABI mismatch between torch and apex.",
    # what a quoted error means
    "`RuntimeError: CUDA error: device-side assert triggered` means some label is out of range for the classifier head.",
    # one way of doing it where the other was meant, in a comma splice
    "the val accuracy on the board is wrong, the eval loop normalises by token not by example so short answers dominate",
    # a regression put down to a named change
    "This is a regression introduced by the cache refactor.",
    # an output judged terrible, the effect after "so"
    "Since the upgrade the collator drops the attention mask, so perplexity looks terrible.",
    # unknown tokens as the symptom, then a defect ("fine-tuned" is not "fine")
    "Generation spits out `<unk>` for every prompt. The tokenizer came from the base repo instead of the fine-tuned one.",
    # Japanese: the failure as the topic, the defect's name with no copula
    "学習の失敗は tokenizer の設定ミス。",
])
def test_round104_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # Japanese: why nothing breaks (a failure word inside the reason)
    "NCCL のタイムアウトは 30 分に設定してあるので、多少ノードの起動が遅れても問題ありません。",
    # Japanese: whether it is the cause is still to be checked
    "OOM が一時確保によるものかどうかは、これから切り分けが必要です。",
])
def test_round104_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round104_a_rule_out_naming_the_cause_with_kiin():
    claims = analyze("AMP 起因ではありません。fp32 でも同じ step で NaN になりました。").claims
    assert "negated" in [c.kind for c in claims] and "assertion" not in [c.kind for c in claims]


@pytest.mark.parametrize("message", [
    # a reply that had the same failure names what it was (chat English, apostrophe dropped)
    "had the same issue, its the nccl in the base image, it ships 2.18 and torch wants 2.19",
    # what did the damage, after "killed by" (not who carried it out)
    "The worker was killed by a leaked file handle per request, not by the request volume.",
    # Japanese: the output called odd ("変に"), its reason before it
    "eos が入ってないから生成が変になってますね。",
    # Japanese: the failure as the matter, then why (a system's doing, not ours)
    "評価の前に毎回 20 秒止まる件、`persistent_workers=False` なので DataLoader が worker を全部作り直しています。",
])
def test_round105_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # who carried the kill out only says how it died
    "The job was killed by the OOM killer at 03:12.",
    # Japanese: why we acted on the matter, not a claim
    "OOM の件、batch が大きいので 16 に下げておきました。",
])
def test_round105_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The collator isn't responsible; batches built by hand show the same drift.",
    "fwiw its not nccl, NCCL_ALGO=Ring didnt change anything and it stalls on one gpu too",
    "データローダは疑わなくてよさそうです。合成データでも同じ step で止まりました。",
])
def test_round105_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # "zero effect" as a failure, then why
    "The adapter had zero effect on the outputs: it was attached after `merge_and_unload()` ran.",
    # the model acts untrained; after ";" the error that was swallowed
    "Inference predicts like an untrained model; `load_state_dict(strict=False)` swallowed the missing keys.",
    # chat: the cause put on a part of the install
    "yeah its the driver version, 535 has the nvlink bug on these boards",
    # a known issue with a named release
    "this is a known issue w/ accelerate 0.27, the scheduler is stepped once per process",
    # Japanese: something included that should not be
    "LoRA マージ後に出力が崩れる件: `lm_head` まで対象に入っていました。",
])
def test_round106_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # Japanese: a schedule we keep, then its reason (a failure word only in a condition)
    "チェックポイントは 1000 step ごとに保存しています。毎 step 保存すると学習が 3 倍遅くなってしまうので。",
    # what an option of ours only hides
    "This only silences the warning; the tokenizer itself is unaffected.",
])
def test_round106_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The latency gap isn't kernels we launch: the profile shows the same GPU time on both builds.",
    "not the scheduler fwiw, i logged the lr every step and it matches the config",
    "Checked the mixed-precision path: the scaler is created once, so the 3x isn't coming from there.",
])
def test_round106_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


def test_round106_a_root_cause_that_points_back_at_numbered_findings():
    """「## Summary / ### 1. ... (E1) / ### 2. ... (E2) / ## Root cause / この 2 つが重なって…」: the
    root cause says it is the two findings together, so their evidence is its evidence."""
    msg = ("## Summary\nTTFT が悪化した件の調査結果です。\n\n"
           "### 1. キャッシュが無効\n起動ログに `enable_prefix_caching=False` と出ており (E1)、毎回プリフィルされています。\n\n"
           "### 2. 同時実行数\nメトリクスが `num_requests_waiting 57.0` になっていて (E2)、キュー待ちが発生しています。\n\n"
           "## Root cause\nこの 2 つが重なって TTFT が悪化しています。\n")
    ev = [Evidence("E1", "INFO engine: enable_prefix_caching=False max_num_seqs=16\n"),
          Evidence("E2", "vllm:num_requests_waiting 57.0\n")]
    assert decision(analyze(msg, ev)) == "allow"
    assert decision(analyze(msg)) == "block"


@pytest.mark.parametrize("message", [
    # Japanese: how we run things (a polite verb of doing, no failure), then why
    "推論サーバは 2 台構成で運用しています。1 台だとデプロイ中にリクエストが落ちるためです。",
])
def test_a_practice_then_its_motive_passes(message):
    assert decision(analyze(message)) == "allow"


def test_a_finding_then_its_reason_still_claims():
    # (「〜ていました」 reports a state found, not a practice of ours)
    assert decision(analyze("warmup が 0 になっていました。設定ファイルの継承順が逆だったためです。")) == "block"


@pytest.mark.parametrize("message, expected", [
    # the culprit named in a sentence of its own, the failure right after it
    ("It's the pin_memory thread. The host runs out of page-locked memory and the main process stalls.", "block"),
    ("its the shm size. docker gives /dev/shm 64MB and the workers deadlock", "block"),
    # the failure right before it
    ("The job is slow on Mondays. It's the backup cron on the NFS server.", "block"),
    # hedged: proposed, not asserted
    ("It's the driver, I think. The node hangs at init.", "allow"),
    # no failure anywhere near: small talk, or a description
    ("it's the weekend, the cluster is quiet", "allow"),
    ("It's the A100 node pool, 8 GPUs each.", "allow"),
    ("can someone review #1482? it's just the config rename, no logic changes", "allow"),
])
def test_a_culprit_named_on_its_own_claims_beside_a_failure(message, expected):
    assert decision(analyze(message)) == expected


@pytest.mark.parametrize("message, expected", [
    # a failure named as what it is, plural or not, with a longer subject
    ("Latency spikes are the Redis client pool maxing out at 10 connections.", "block"),
    ("Cold-start latency on the inference pods is the model being pulled from S3 on every start.", "block"),
    ("The 40-minute startup is `datasets` re-hashing the map function on every launch.", "block"),
    # what it is not, or an open question
    ("The p99 on the Triton deployment is the open question.", "allow"),
    ("The latency is the same on both nodes.", "allow"),
])
def test_a_failure_named_as_what_it_is(message, expected):
    assert decision(analyze(message)) == expected


@pytest.mark.parametrize("message, expected", [
    # two sizes of one unit that should agree, right after the failure
    ("CER tripled on the call-centre set. The audio is 8 kHz and the frontend assumes 16 kHz.", "block"),
    ("The notebook kernel keeps dying. It loads a 40 GB parquet into pandas on a 32 GB machine.", "block"),
    # a setting, then what it should have matched
    ("Generation repeats the same token forever: the config has pad_token_id=0 but the tokenizer's EOS is 2.", "block"),
    # timings measure, they do not configure
    ("Throughput dropped. Batch 32 takes 120 ms and batch 64 takes 250 ms.", "allow"),
    # a change over time is the symptom again
    ("Memory climbs steadily. RSS went from 18 GB to 41 GB over the epoch.", "allow"),
])
def test_two_values_that_should_agree(message, expected):
    assert decision(analyze(message)) == expected


@pytest.mark.parametrize("message", [
    # a factor off from the baseline, then why, in a clause on "we"
    "Eval loss is 2x higher than the baseline: we scale the logits by the temperature twice.",
    # "rarely-updated" is no hedge
    "Divergence at step 9k. The bf16 epsilon rounds to zero, the denominator collapses on the rarely-used rows, updates blow up.",
    # a schedule off in time, after "which means"
    "The scheduler is built before the dataloader is wrapped, which means the LR decays 4x too fast.",
    # a one-word culprit after "in the end", the failure right after
    "In the end it was autocast. The custom layernorm runs in fp16 and overflows on long inputs.",
    # Japanese: time per step as the failure, after a reason
    "勾配を CPU に退避してるので、毎回転送が入って 1 step 6 秒かかってます。",
])
def test_round107_causes_are_claims(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # why a change of ours is made
    "The reason for the split is that the train and eval transforms had drifted apart; one module keeps them together.",
    # a pointer to where the cause is tracked
    "The cause of this failure is tracked in #812; this PR only adds the test.",
    # a repro on fewer nodes, with the old count in brackets
    "Reproduced the NCCL timeout on 4 nodes (was 32).",
])
def test_round107_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "checked whether the loss was off by a factor of world size. it isn't, the logged value matches a manual sum",
    "bf16 が悪さをしている線は消えました。fp32 でも同じ step で発散します。",
])
def test_round107_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    # where a file came from is no cause
    "The bug report says \"hang on H100\" but the attached trace is from an A10; could you attach the H100 one?",
    # Japanese: asking why we set something, then answering
    "なぜ `shuffle=False` にしているかというと、評価の順番を毎回揃えて差分を見やすくしたいからです。",
    # Japanese: a routine of ours as the topic, a failure only in a condition
    "トークナイザを事前ロードするのは、リクエストごとに読み込むとレイテンシが跳ねるからです。",
])
def test_round108_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "We can exclude the dataloader: feeding cached batches gives the same step time.",
    "The optimizer is fine. I logged the update norms and they match the reference run.",
    "Doesn't look like a driver problem: the same container runs at full speed on the old nodes.",
    "OOM は cache じゃないです。`empty_cache()` を毎 step 呼んでも同じところで落ちるので。",
    "seed の問題ではありません。seed を 4 通り変えても loss は 2.31〜2.33 に収まっていて、ブレでは説明できない差です。",
    "AMP は無関係でした、fp32 でも普通に NaN 出る",
])
def test_round108_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


def test_round108_a_hedge_on_one_spike_does_not_cover_the_other():
    msg = "Not sure about the second spike, but the first divergence at step 9k is definitely the bad shard."
    assert decision(analyze(msg)) == "block"


def test_round108_a_summary_that_counts_the_causes_draws_on_the_findings():
    msg = ("## Summary\nTwo separate problems explain the inflated eval score.\n\n"
           "## Findings\n1. **Overlap.** The check prints `overlap by id: 311 / 5000 rows` (E1).\n"
           "2. **Padding counted.** The debug run shows `pad share of labels: 0.41` (E2).\n")
    ev = [Evidence("E1", "overlap by id: 311 / 5000 rows\n"), Evidence("E2", "pad share of labels: 0.41\n")]
    assert decision(analyze(msg, ev)) == "allow"
    assert decision(analyze(msg)) == "block"


def test_round108_an_opening_paragraph_draws_on_the_findings_after_it():
    msg = ("eval の loss が NaN になるのは、attention の logits が fp16 の上限を超えているためです。\n\n"
           "## Findings\n1. 第 12 層で `max attention logits: 70211.0` となっています (E1)。\n")
    ev = [Evidence("E1", "layer 12 max attention logits: 70211.0 (fp16 max 65504)\n")]
    assert decision(analyze(msg, ev)) == "allow"
    assert decision(analyze(msg)) == "block"


@pytest.mark.parametrize("message", [
    # a failure that IS a library at a version
    "the segfault is pyarrow 15 with numpy 2, rebuilding the wheel fixes it",
    # a step done twice, said with "by"; a part that has been quietly doing something wrong
    "The reward scale has been silently doubling: the advantages are multiplied by `gamma` twice.",
    # a culprit in chat, the limit exceeded said as "blow through"
    "its the ulimit. the default is 1024 open files and the loader workers blow right through it",
    # the real cause named after a comma, once the suspect is cleared
    "the tokenizer isn't the problem, it's the collator dropping the last label of every sequence",
    # sameness across epochs said with "in exactly the same order"
    "Each epoch draws samples in exactly the same order because the generator is re-seeded every epoch.",
    # a fix commit whose cause opens on an -ed adjective
    "fix val loss NaN: masked average divided by zero on batches that were all padding",
    # Japanese: a finding announced in the clause before it
    "NaN の原因わかった、loss の mask 掛け忘れてて padding まで平均に入ってた",
])
def test_round109_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # the fix itself after the commit's colon
    "fix val loss NaN: clamped the denominator to 1e-6 in the masked average",
    # cleared, then the same failure again: no new cause
    "Not the kernel, it's the same hang with 5.15 and 6.1.",
    # Japanese: a practice of ours, its motive a failure that would happen otherwise
    "チェックポイントは rank 0 だけが書くようにしています。全 rank が書くとファイルが重複してしまうためです。",
])
def test_round109_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round109_throughout_is_no_te_form_cause():
    msg = "リークではないです。`memory_reserved()` は 3 epoch 通して 21.4 GB で一定でした。"
    kinds = [c.kind for c in analyze(msg).claims]
    assert "negated" in kinds and "assertion" not in kinds


def test_round109_a_summary_in_general_terms_draws_on_specific_details():
    # "the input pipeline" in the summary, worker count and decode time in the details
    msg = ("## Summary\nThe step time is dominated by the input pipeline.\n\n"
           "## Findings\n- The profiler shows `data_time=0.91 step_time=1.02` (E1).\n"
           "- The config resolves to `num_workers: 1` (E2).\n")
    ev = [Evidence("E1", "avg data_time=0.91 step_time=1.02\n"), Evidence("E2", "  num_workers: 1\n")]
    assert decision(analyze(msg, ev)) == "allow"
    assert decision(analyze(msg)) == "block"
    # a cause elsewhere is not shown by loader figures
    other = msg.replace("the input pipeline", "optimizer state being offloaded to the CPU")
    assert decision(analyze(other, ev)) == "block"


@pytest.mark.parametrize("message", [
    # a model that never learned part of its task
    "turns out the collator was truncating on the left too, so the answers got cut and the model never really learned to close a JSON object",
    # a utilisation measured low, then what it is
    "GPU util hovering around 40% is the tokenizer running in the main process.",
    # a quoted error, as a kind of failure, said to be a thing
    "The intermittent `Broken pipe` errors during upload are the proxy's 30 s idle timeout.",
    # generation that ends before it starts
    "The summariser outputs EOS immediately: the labels start with the pad token, which is also EOS here.",
    # Japanese: a metric halved, and the note after the arrow
    "検証の ROUGE が前回の半分 → 参照側だけ句読点を除去済み、生成側はそのまま。",
    # Japanese: a logged value N times off
    "`accumulate_grad_batches=8` なのにロス集計が micro step ごとに足されていて、ダッシュボード上の loss が 8 倍に表示されていました。",
    # Japanese: the found cause, how it works said with a condition
    "原因判明しました。Linux だとデフォルトで fork なので、CUDA を初期化した後に DataLoader のワーカーを作ると子プロセスで CUDA が使えずに落ちます。",
    # Japanese: since a change of ours, it started failing
    "FSDP を有効にしてから、checkpoint 保存が毎回タイムアウトするようになりました。",
])
def test_round110_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # why a default is what it is, said after the fact
    "Added a `--strict-shapes` flag; off by default since it costs a recompile per new shape.",
    # something learned about a tool
    "TIL `accelerate` only syncs gradients on the last micro-batch, so logging grad norms mid-accumulation shows the local ones unless you call `clip_grad_norm_` through it.",
    # a hedge, then what points that way
    "Not sure, but the slow start might be the page cache being cold after the reboot; the second epoch is twice as fast, which points that way.",
    # which tests fail is no cause
    "The remaining failures are the two flaky S3 tests, which we skip on CI.",
    # Japanese: only the timing of a failure
    "再現しました。3 回とも loss scale が 1 まで下がってから発散しています。原因はまだ分かっていません。",
    # Japanese: a runbook's instruction with its reason in parentheses
    "運用メモ: NCCL_P2P_DISABLE は付けないこと（all-reduce が大きく遅くなるため）",
    # Japanese: what an option does
    "`TORCH_NCCL_BLOCKING_WAIT=1` を付けるとタイムアウトが例外として上がるので、どの rank で止まったかがログに出ます。",
    # Japanese: the source of the variance is still being looked into
    "seed の違いではありません。同じ seed 同士では loss が完全に一致しました。ばらつきの出どころは引き続き調べます。",
])
def test_round110_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "The learning-rate schedule can be ruled out: a constant LR run diverges at the same step.",
    "ストレージじゃないっぽい、ローカル SSD にコピーしても同じ step で止まる。",
])
def test_round110_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


def test_round110_a_symptom_under_a_root_cause_heading_does_not_cite_the_cause_after_it():
    msg = ("## 原因\nA100 でだけ `RuntimeError: CUDA error: misaligned address` が出ます。"
           "これは custom kernel が 16 バイト境界を仮定しているためで、H100 では同じコードが通ります。\n")
    ev = [Evidence("E1", "RuntimeError: CUDA error: misaligned address\n")]
    assert decision(analyze(msg, ev)) == "block"
    # the cause itself quoted: allowed
    cited = msg.replace("仮定しているためで", "仮定しているためで(`assumes 16-byte alignment`)")
    ev2 = ev + [Evidence("E2", "kernel.cu:88: assumes 16-byte alignment of q_ptr\n")]
    assert decision(analyze(cited, ev2)) == "allow"


def test_round110_a_supposed_cause_stays_a_hypothesis_and_code_assuming_is_no_hedge():
    assert decision(analyze("原因は NCCL のバージョン差だと仮定しています。")) == "allow"
    assert decision(analyze("学習が落ちるのは、カスタムカーネルが 16 バイト境界を仮定しているためです。")) == "block"


@pytest.mark.parametrize("message", [
    # a result said to be an artefact
    "The NDCG@10 gain on the new split is leakage: the same sessions appear in train and test.",
    # a fine-tuned model that behaves like the base one
    "That's why the tuned model scores the same as the base — the export saves the wrapper's base model, so the adapter weights are dropped.",
    # a value off by a factor, and what our code does after the dash
    "Reported throughput is 4x too high — we count padded tokens and then the logger multiplies by world size again.",
    # a step of training that never happens, then the defect
    "Warmup never kicks in. `scheduler.step()` runs once per epoch instead of once per optimizer step.",
    # a tail latency that doubled, explained after a semicolon
    "p95 doubled after the cache change; every request now rebuilds the tokenizer.",
    # Japanese: the cause in a nominal ending
    "eval 時に model.eval() を呼んでいなかったのが精度低下の原因。",
])
def test_round111_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # how two parts work together, and what follows from it as intended
    "How DeepSpeed stage 2 interacts with gradient clipping here: the norm is computed on the partitioned grads after the reduce. That's why the log shows one NCCL call per step before the clip — it's by design.",
    # a part doing what it is built to do
    "DistributedSampler pads the index list so that each rank receives the same number of samples, which is why a few examples are evaluated twice unless you trim them.",
    "This isn't it, sorry — wrong thread.",
])
def test_round111_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "the dataloader isn't it. swapped in a synthetic dataset and the step time is unchanged",
    "Batch size doesn't explain the gap: both runs use 256 per step.",
    "I doubt the driver is to blame: the same image runs fine on the old nodes.",
])
def test_round111_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


def test_round111_an_id_beside_a_symptom_does_not_cite_a_cause_its_output_never_mentions():
    msg = ("学習 loss が NaN になっています: `step 120 loss=nan` (E1)。"
           "原因は tokenizer の語彙外 ID が埋め込み層の範囲を超えていることです。")
    log = Evidence("E1", "step 119 loss=3.10\nstep 120 loss=nan\n")
    assert decision(analyze(msg, [log])) == "block"
    # an id whose output does show what the claim names still cites it
    shows = Evidence("E1", "step 120 loss=nan\nwarning: token id 50311 exceeds embedding size 50257 (tokenizer vocab)\n")
    assert decision(analyze(msg, [shows])) == "allow"


@pytest.mark.parametrize("message", [
    # a mechanism named right after the failure, with "That's"
    "Host memory climbs 1 GB an hour in each worker. That's copy-on-write: every refcount touch dirties a shared page.",
    # the kind of culprit, named alone, then the failure
    "this is a kernel thing. 5.4 kernels can't pin that much memory, upgrade the node and the loader stops crashing",
    # a chat opener is no word of the head
    "fyi the accuracy numbers in the weekly report were wrong — the eval job reads the checkpoint before the last sync.",
    # a service that keeps dying
    "The inference pods restart on every deploy because the readiness probe times out before the weights load.",
    # a measured duration as the failure subject
    "The 25 s cold start is the container pulling the 14 GB image on every scale-up.",
])
def test_round112_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Neither is wrong; the two configs serve different hardware.",
    "Due to the release freeze the driver upgrade waits until March, so please don't build images against CUDA 12.6 yet.",
    "すみません、今日は移動日なので DataLoader の件は明日の午前中に見ます",
    "予算が限られているので、まずは 3B で試して、精度が足りなければ 7B を検討する方針です。",
    "ホストメモリが足りていない件は、コールドスタートだけ 30 秒かかるのとは別件です。",
])
def test_round112_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Seed variance can't account for the gap: five seeds land within 0.2 of each other.",
    "The fp8 matmuls aren't what hurts the eval score: the bf16 run scores the same.",
    "I don't think it's the kernel version — the old kernel hangs at the same step.",
    "I don't think this is the driver. Both drivers show the same drop, so the driver can be ruled out.",
])
def test_round112_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


def test_round112_an_opening_conclusion_draws_on_the_paragraph_of_evidence_after_it():
    msg = ("学習ジョブが起動直後に落ちる件、イメージの CUDA がノードのドライバより新しいのが原因です。\n\n"
           "起動時に `CUDA driver version is insufficient` で落ちており (E1)、ノードのドライバは 470 系でした (E2)。\n")
    ev = [Evidence("E1", "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"),
          Evidence("E2", "Driver Version: 470.182.03\n")]
    assert decision(analyze(msg, ev)) == "allow"
    assert decision(analyze(msg.split("\n\n")[0])) == "block"


@pytest.mark.parametrize("message", [
    "The robotic arm's jitter is a control-rate mismatch: the policy runs at 10 Hz but the controller expects 50 Hz.",
    "The 3x step time since the upgrade is XLA recompiling for every new sequence length.",
    "crash is bc the container only has the sm_80 kernels and this box is sm_90",
    "Nondeterminism in the eval is index_add_ on CUDA; atomic adds are order-dependent.",
    "`RESOURCE_EXHAUSTED` on the pod slice is down to the activations being kept for the whole sequence.",
    "生成結果の最後に変な記号が並ぶのは eos_token の設定漏れのせいです。",
    "再開すると学習率が初期値に戻る → optimizer の state しか保存していなかった。",
    "int4 にしたら精度がガタ落ちしたの、calibration データが英語だけだったせいだね。",
])
def test_round113_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The 16-node job hung again at step 9,120 — last log line from rank 77 is the eval at step 9,000.",
    "`torch.cuda.empty_cache()` only releases cached blocks; it doesn't free tensors you still hold, so nvidia-smi drops while allocated memory stays put.",
    "We don't know yet why the kernel restarts at the fit cell; there's no traceback, and the node logs are blocked on the managed service.",
    "- 入力チェックを pydantic に移したことで、エラーメッセージの形式が統一されます",
    "32 スレッドは p99 が悪化するので、本番は 16 スレッドで行きます。",
])
def test_round113_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Rolled the kernel back: the old one gives the same step time, so the kernel is off the table.",
    "Not a leak — allocated memory is flat for 10k steps, so whatever triggers the OOM, it isn't accumulation.",
    "The warmup length isn't what's hurting recall: 500, 1000 and 2000 steps all land within 0.1.",
])
def test_round113_ruled_out_causes_are_negated(message):
    kinds = [c.kind for c in analyze(message).claims]
    assert "negated" in kinds and "assertion" not in kinds


@pytest.mark.parametrize("message", [
    "Checkpoint divergence at 12k: the EMA decay is 0 in the resumed config.",
    "fyi the benchmark numbers from last night are useless, the runner ran with the kv cache disabled so every token recomputed the prefix.",
    "The bf16 and fp32 evals disagree because the softmax is computed in bf16 before the mask is applied.",
    "Loss differs between the 2- and 4-node runs because the sampler drops a different tail on each world size.",
    "The 502s under load come from the gateway closing idle upstream connections after 60 s.",
    "The 0.99 F1 on the fraud model is an artifact — the label column leaks through `chargeback_date`.",
    "Throughput on the video run sits at ~40% of peak and it's all on the decode side.",
    "Latency doubled on the new nodes. The NIC now sits behind a PCIe switch, which halves the bandwidth to host memory.",
    "本番で AUC が落ちたのは特徴量のスキューです。",
    "再開すると lr が跳ねる件：scheduler の state が復元されておらず、warmup からやり直している。",
])
def test_round114_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The ranking model's recall dropped after Monday's data refresh. I haven't found the cause yet; next I'll diff the feature distributions.",
    "This PR doesn't fix the root cause tracked in INFRA-77; it only adds a watchdog so the next stall dumps stacks before it is killed.",
    "HNSW は近似探索なので、ef を小さくすると速くなる代わりに recall が下がります。",
    "キャッシュの線は消えました。100 回回しても使用量は 3.1GB で横ばいのままでした。タイムアウトが出るのは相変わらず大きい画像のリクエストだけです。",
])
def test_round114_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round114_a_quoted_symptom_before_the_cue_does_not_cite_the_cause():
    log = Evidence("E1", "step 880 | loss 2.31 | grad_norm 0.9\nstep 881 | loss nan | grad_norm nan\n")
    bare = ("Training goes NaN at step 881 — `step 881 | loss nan | grad_norm nan` — and the culprit "
            "is the attention softmax scale, which overflows in fp16.")
    assert decision(analyze(bare, evidence=[log])) == "block"
    # the quote that shows the cause itself, put before a cue that points back, still cites it
    dedup = Evidence("E2", "kept 1,204 of 90,000 rows (98.7% exact duplicates)\n")
    shown = ("The training set is mostly duplicates — dedup reports `kept 1,204 of 90,000 rows (98.7% exact "
             "duplicates)` — which is why the model memorizes it and val loss climbs after epoch 1.")
    assert decision(analyze(shown, evidence=[dedup])) == "allow"
    # a Japanese reason comes first: the quote before 「ので」 is the cause
    quota = Evidence("E3", "OSError: [Errno 122] Disk quota exceeded\n")
    ja = "保存が `OSError: [Errno 122] Disk quota exceeded` で失敗しているので、チェックポイントがないのはクォータが原因です。"
    assert decision(analyze(ja, evidence=[quota])) == "allow"


def test_round114_named_log_values_show_the_symptom_only():
    log = Evidence("E1", "step 500 | loss=0.41 grad_norm=1.2\nstep 510 | loss=nan grad_norm=inf\n")
    msg = ("## 結論\nstep 510 で `loss=nan grad_norm=inf` が出て以降、学習が壊れています。"
           "これは前処理で空の文字列が混ざり、loss が無限大を返しているためです。")
    assert decision(analyze(msg, evidence=[log])) == "block"


@pytest.mark.parametrize("message", [
    "The recall@10 is inflated. Duplicate images between the train and gallery splits leak the answers into training.",
    "The 504s from the embedding service are the autoscaler draining pods mid-request: it scales down after 30 s of low CPU.",
    "## Why the adapter barely learns\nThe loss hardly moves. With `alpha=1` and `r=128` the update is scaled by 1/128, which makes the effective step size tiny.",
    "Same config, different losses: `cudnn.benchmark = True` picks a different conv algorithm on each run.",
    "The gateway rejects long prompts because `max_tokens` defaults to the full context and the KV cache for it can't fit.",
    "I'm not certain about the second stall, but the first one is clearly the bad node: its NIC reports 400 link flaps an hour.",
    "結局ドライバが古くて triton のカーネルがコケてるだけです。",
])
def test_round115_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "I set `NCCL_TIMEOUT=600` so that a stuck rank kills the job instead of hanging for hours.",
    "The reason this suite is marked `@slow` is that it downloads the full checkpoint.",
    "評価は 5 seed ずつ回しています。seed 間のばらつきを見るためです。",
])
def test_round115_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "## What it's not\n- **Not OOM:** peak memory stays at 52 of 80 GB right up to the crash.",
    "We can exclude label leakage: the hash check found zero overlap on the holdout collected in May.",
    "It isn't allocator fragmentation either; with `expandable_segments` on, the run still dies at the same step.",
    "量子化のせいではないと思います、fp16 のままでも同じくらいのレイテンシです。",
    "`torch.compile` は犯人ではありませんでした。残りは I/O 周りですが、まだ未確認です。",
])
def test_round115_ruled_out_causes_are_not_blocked(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    "Slow first step, fast afterwards: the kernels are compiled on the first call and cached on disk.",
    "つまりボトルネックは通信で、計算側ではありません。",
    "vLLM の 400 返ってくるやつ、max_model_len を 4096 にしてるのに 8k のプロンプト投げてるからっすね",
])
def test_round116_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "スコアは 5 seed の平均を載せています。単一 seed だとばらつきが大きいので、その対策です。",
    "OOM が出たので、batch_size を 32 → 16 にして再実行中です。",
    "p99 が周期的に跳ねるのは GC なのか、バッチングの待ち時間なのか、まだ切り分けできていません。",
    "API のリトライを指数バックオフに変えました。429 が返ったときに即座に再送して負荷をかけるのを避けるためです。",
])
def test_round116_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "i dont think its the allocator, expandable_segments didnt move the OOM point at all",
    "Checked the warmup after resume, it matches the clean run exactly, so that's not where the spike comes from.",
    "リークは tokenizer 側ではなさそうです。tokenizer だけを 10 万回回しても RSS は一定でした。",
    "5 seed 回して全部 0.61±0.01 なので、精度が低いのは再現性の問題とは別の話。",
])
def test_round116_ruled_out_causes_are_not_blocked(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round116_a_fix_after_a_defect_still_claims_and_the_system_doing_it_again_too():
    assert decision(analyze("fix: padding_side が right のままで batch 生成が崩れていたので left に変更")) == "block"
    assert decision(analyze("1 epoch ごとに 30 秒止まる件、`persistent_workers=False` なので epoch ごとに worker を作り直しています。")) == "block"


@pytest.mark.parametrize("message", [
    "It's the warmup schedule that flattens the loss curve: warmup is 10 steps instead of 10% of them.",
    "LR hits zero after the first epoch. The scheduler's `T_max` is the number of epochs, but `scheduler.step()` runs every batch.",
    "fix nan grads in the dice loss: the denominator underflows to 0 on empty masks, add eps",
    "The F1 we report is ~6 points under the paper's. the scorer lowercases references that were already normalized.",
    "Loss spiking after the resume? Yeah, that's the optimizer state — we never save it, so Adam restarts from zero moments.",
    "all_reduce が毎 micro-step で走っていて、これが step 時間の 30% を食っています。",
])
def test_round117_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Loss scaling exists because fp16 gradients underflow below about 6e-8: the scaler multiplies the loss before backward.",
    "That's a design constraint of fork-based workers, not a PyTorch bug.",
    "- `configs/base.yaml`: `eval_every` を 500 から 1000 に変更(評価が学習時間の 20% を占めていたため)",
])
def test_round117_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round117_an_exception_class_ending_in_failed_proves_nothing():
    ev = [Evidence("E1", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n")]
    msg = "## Root cause\n`torch.compile` の inductor が Triton 3.0 と非互換なのが原因です。実際に `torch._dynamo.exc.BackendCompilerFailed` が発生しています。"
    assert decision(analyze(msg, evidence=ev)) == "block"


def test_round117_even_so_is_no_because():
    msg = "NCCL のバージョン違いは除外できます。全ノードで揃っているのを確認済みで、それでも timeout は再現しました。"
    rep = analyze(msg)
    assert decision(rep) == "allow" and [c.kind for c in rep.claims] == ["negated"]


def test_round117_a_possessive_ends_a_sentence():
    text = "The BLEU is 10 points under the paper's. sacrebleu re-tokenizes the references."
    assert len(sentences.split(text)) == 2
    assert len(sentences.split("See J. smith for the details.")) == 1


@pytest.mark.parametrize("message", [
    "Resumed runs start ~0.2 nats above where they stopped — the checkpoint never stores the scheduler state.",
    "The constant recompilation under `torch.compile` comes down to dynamic batch sizes.",
    "The LR hits `eta_min` after the first epoch and then climbs back up again: `T_max` was set to `len(loader)` instead of `len(loader) * epochs`.",
    "it's your deepspeed config — fp16 is on there and it overrides the bf16 flag, the loss scaler then eats your grads.",
])
def test_round118_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The NCCL watchdog timeout defaults to 30 minutes; you can change it with the `timeout` argument.",
    "量子化後の精度劣化、外れ値の多いチャネルが原因って線もありえるけど、正直まだわからん",
])
def test_round118_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "## 切り分け結果\n- fp16 の overflow ではありません: fp32 に戻しても同じステップで発散します。",
    "seed の固定漏れを疑ってましたが、決定的アルゴリズムでも差が出るので、そこは外しました。",
])
def test_round118_ruled_out_causes_are_not_blocked(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round118_a_log_prefix_is_no_word_an_id_shares_with_the_cause():
    ev = [Evidence("E1", "[rank0]: Traceback (most recent call last):\n"
                         "[rank0]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")]
    msg = ("学習が OOM で落ちています: `torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB`（E1）。"
           "原因は ZeRO stage が 1 になっていて、optimizer state が全 rank に複製されているためです。")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    # a culprit named alone, then the defect that explains it
    "It's the collator. It treats the padding ids as real tokens when it builds the labels.",
    # the assert itself fails, for a stated reason
    "The kernel assertion fires because the class ids run up to 1000 and the head only has 999 outputs.",
    # a failure set off by a named defect
    "The exporter fails on a version mismatch between onnx and onnxruntime.",
    # a "Why <metric> plateaus" heading and a stated defect under it
    "## Why val loss plateaus after epoch 2\nThe warmup was set in epochs but counted in steps.",
    "the metric is double-counting: every sample in the last batch goes in twice, so recall reads 1.3",
    "訓練の F1 が高すぎる件、評価で重複サンプルを二回数えていて、スコアが水増しされていました。",
    "遅くなった件、`num_workers=0` で回っているだけ。",
])
def test_round119_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # repro steps: "start it, and it stops after an hour" tells the order of events, not why
    "手順です。`torchrun --nproc_per_node 4 train.py` で起動して、1 時間ほどで止まります。",
    "It's the weekend, so the cluster queue is short. Jobs start within a minute.",
    "The job fails on step 400 with the same traceback every time.",
])
def test_round119_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "## 切り分け結果\n- **ネットワークではない**: 同じノード内の 2 GPU でも同じ step で止まります。",
    "I looked at the sampler as a suspect for the hang and can rule it out — every rank gets a disjoint index set.",
])
def test_round119_ruled_out_causes_are_not_blocked(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # after the failure, what is doing it, pointed at
    "Two runs with the same seed diverge after epoch 1; that's `torch.use_deterministic_algorithms(False)` letting scatter_add pick its order.",
    # a quoted message is one word of the head
    "The gateway was rejecting uploads with `413 Request Entity Too Large: body exceeds 10 MB` for big clients — the proxy caps request bodies at 10 MB.",
    # "Reason:" as a label, right after the failure
    "The eval job crashes on the first batch. Reason: the collator returns lists where the model expects tensors.",
    "Our WER is far below what the paper reports. Reason: the reference transcripts were normalized twice.",
    # a commit subject, and a noun phrase that names where the failure came from
    "fix inf in grad norm: division by zero from an empty mask when every token is padding",
    # Japanese: a quote that only shows the failure, then a cause with nothing of its own
    "ログでは `step 812 | loss nan` となっており、AdamW の eps が 0 に設定されていたことが原因です。",
    "GPU 利用率が 40% 前後に留まっているのは、前処理が 1 プロセスで走っているためです。",
])
def test_round120_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The `Some weights of the model were not initialized` message is expected: the classification head is new, so its weights start random.",
    "Testing: killed a 4-node job at step 900 and resumed; the loss curve picks up where it left off.",
    "If the stall really is the NFS mount, moving the shards to local disk should fix it — that's the next thing I'll check.",
    "推論時に `model.eval()` を呼ぶのは、dropout が学習時のままだと出力が毎回変わるからです。",
])
def test_round120_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round120_ruled_out_cause_named_as_a_topic_is_not_blocked():
    rep = analyze("データローダーのリークは外しました。RSS は 12 時間で横ばいです。")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round120_a_conclusion_closing_the_findings_draws_on_them():
    ev = [Evidence("E1", "Thread 1 (active): \"MainThread\"\n    save_checkpoint (train.py:88)\n"),
          Evidence("E2", "Thread 1 (idle): \"MainThread\"\n    all_reduce (torch/distributed/distributed_c10d.py:2288)\n")]
    msg = ("## Findings\n"
           "1. Rank 0 is writing a checkpoint: `save_checkpoint (train.py:88)` (E1).\n"
           "2. Rank 1 waits in the all-reduce: `all_reduce (torch/distributed/distributed_c10d.py:2288)` (E2).\n\n"
           "So the hang is rank 0 saving synchronously while rank 1 has already entered the next all-reduce.")
    assert decision(analyze(msg, evidence=ev)) == "allow"
    # the same conclusion with no findings above it has nothing to draw on
    assert decision(analyze("## Findings\nSo the hang is rank 0 saving synchronously while rank 1 waits.",
                            evidence=ev)) == "block"


def test_round120_a_log_quote_of_the_failure_does_not_cite_the_cause_after_it():
    ev = [Evidence("E1", "step 811 | loss 2.31\nstep 812 | loss nan\n")]
    msg = "ログでは `step 812 | loss nan` となっており、AdamW の eps が 0 に設定されていたことが原因です。"
    rep = analyze(msg, evidence=ev)
    assert decision(rep) == "block"
    en = "The run diverges: the log has `step 812 | loss nan` (E1). This is caused by eps being 0 in AdamW."
    assert decision(analyze(en, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "The distilled student is indistinguishable from the untrained model because the KD loss weight is 0 in the config.",
    # a participle that gives the effect
    "The scheduler steps twice per batch: the callback calls step() and so does the loop, leaving the LR at zero and the loss stuck from epoch 3 on.",
    # a cleft that sets the cause apart
    "It's the NFS client cache that drags the data time up; every worker re-reads the index file.",
    # a chat culprit, then one of a pair done and the other left out
    "lol it's the dropout. you called model.eval() on the encoder but not the decoder, so the outputs change on every call",
    "The OOM steps are the ones where the packer put two 8k documents into one row.",
    "fix: eval NaNの原因だったゼロ除算を修正(空のバッチで割っていた)",
    "学習が NCCL timeout で落ちる件。NCCL_P2P_DISABLE=1 が環境変数に残ってた",
])
def test_round121_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # "can start" is not "cannot start"
    "`--max-model-len 8192` を付けると起動できることを確認しました。",
    "It's only rank 3 that hangs; the other ranks finish the step.",
])
def test_round121_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round121_a_rule_out_then_the_suspect_it_clears_is_negated():
    rep = analyze("Ruled out the tokenizer as a suspect by diffing the ids of both runs — they match exactly, "
                  "yet the loss still diverges.")
    assert decision(rep) == "allow" and [c.kind for c in rep.claims] == ["negated"]


@pytest.mark.parametrize("message", [
    "The 8-bit model keeps repeating the same phrase because the KV cache is never reset between prompts.",
    "Different losses across reruns with one seed: the dataloader workers are seeded from the wall clock.",
    "The two ranks save to the same path at the same moment; there's your corrupted checkpoint.",
    "Samples/sec halved after the upgrade. Length bucketing got disabled by the new loader default.",
    # the failure in one paragraph, the defect that explains it in the next
    "Accuracy was logged as 97.0 instead of 71.3.\n\nThe padding labels were counted in the accuracy: the mask is applied after the argmax.",
    "ドライバが古いままなのが悪くて、`torch.cuda.is_available()` が False になります。",
])
def test_round122_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Filed #812 to track the flaky eval crash; it has shown up twice in 30 nightly runs.",
    # a paragraph that opens with the fix describes the change, not what was wrong
    "The eval loss was reported as 0.4 instead of 1.9.\n\nFix: the metric now divides by the unmasked token count instead of the batch size.",
    "## まとめ\n現時点で断定できる原因はありません。\n\n| 候補 | 根拠 |\n|---|---|\n| merge 時に fp16 へ落ちて丸め誤差が出ている | base は bf16 |",
])
def test_round122_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round122_a_clean_bill_for_a_suspect_in_chat_is_a_rule_out():
    rep = analyze("sampler is fine btw — every rank gets a disjoint slice, and the loss still spikes at step 900")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # a symptom, then the defect that explains it in the next sentence
    "The exported encoder rejects inputs longer than 128 tokens. The sequence length is hard-coded to 128 in the export script.",
    "The classifier predicts every image as class 4 — the head was swapped for a fresh one and its weights never got loaded.",
    "Loss drops to exactly 0 within 200 steps; that's every label being masked: the collator masks the answer instead of the prompt.",
    "Four nodes are only 2.5x faster than one; the gradient buckets aren't overlapped with backward because of the hook we registered.",
    # "was fine-tuned" is no clean bill of health
    "The model was fine-tuned with an added EOS token and the server still stops on the old one, so every reply runs on forever.",
    "resume 直後の精度低下：optimizer の state が復元されておらず、Adam のモーメントがゼロから始まっている。",
    "tokenizers のビルドが通らないのは Rust のツールチェーンが古いからです。",
    "- 2 epoch 目から step 時間が 3 倍に → 可変長の入力でカーネルが毎回選び直されている",
])
def test_round123_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # why a flag or a check of ours exists, not why something failed
    "The reason for the `--no-deps` flag in the Dockerfile is that the base image already ships a patched torch.",
    "- Invalid rows now raise instead of being silently skipped, since that is what hid the label shift last quarter.",
    "【連絡】今夜 22:00〜翌 2:00 はストレージのメンテナンスのため、チェックポイントの保存が止まります。",
])
def test_round123_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round123_a_suspect_ruled_out_with_a_space_before_no_sei_is_negated():
    rep = analyze("データ順 のせいではないと思います。シャッフルを止めても同じ step で発散しました。")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round123_a_quote_in_quotation_marks_that_no_output_holds_uncites_the_claim():
    ev = [Evidence("E1", "rss=3.1GB after epoch 1\nrss=4.0GB after epoch 2\nrss=5.2GB after epoch 3\n", "python train.py")]
    # the second quote says 9.2GB where the output says 5.2GB: the id beside it does not vouch for it
    msg = ('Host memory leaks in the cache: RSS climbs from "rss=3.1GB after epoch 1" to '
           '"rss=9.2GB after epoch 3" (E1), because every decoded image is kept in a dict.')
    rep = analyze(msg, evidence=ev)
    assert decision(rep) == "block"
    assert any("rss=9.2GB" in str(n) for c in rep.claims for n in (c.near_misses or []))
    honest = msg.replace("9.2GB", "5.2GB")
    assert decision(analyze(honest, evidence=ev)) == "allow"


def test_round123_a_measured_symptom_before_a_fresh_cause_does_not_cite_it():
    ev = [Evidence("E1", "warmup done\nthroughput: 212 samples/s\n", "python bench.py")]
    msg = ("推論が遅い件、`throughput: 212 samples/s` しか出ていないことは確認しました。"
           "原因は前処理が毎回 CPU で画像をリサイズしているためです。")
    assert decision(analyze(msg, evidence=ev)) == "block"
    # a claim that builds on the measured value ("これだと") still draws on it
    built_on = ("推論が遅い件、`throughput: 212 samples/s` しか出ていないことは確認しました。"
                "これだと 1 エポックに 3 時間かかるので、夜間バッチに収まりません。")
    assert decision(analyze(built_on, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    "The adapters learn nothing. `modules_to_save` matches no modules in this model, so only the bias terms get updates.",
    "Value loss explodes after ~5k updates: the return normaliser divides by a running std that shrinks to zero.",
    "- The real problem: the scheduler is stepped before the optimizer, so the first 500 steps run at the wrong learning rate.",
    "Eval hangs on 8 GPUs. The uneven shard gave rank 5 one extra batch and it waited in the final all-gather forever.",
    "The remaining mismatch between the two runs comes from `scatter_add_`, which accumulates with atomics on CUDA.",
    "## Fix for the vLLM startup crash\nThe image ships CUDA 12.1 and the prebuilt kernels need 12.4, so the worker aborts on the first launch.\n\nBumped the base image to 12.4.",
    "その版だと 8bit の optimizer state が壊れるから loss が全然下がらんのよ",
])
def test_round124_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a reason to do something, not a reason something failed
    "Padding repeats samples when the dataset doesn't divide evenly. That's the reason to de-duplicate predictions before scoring.",
    # the fix after the diagnosis, with the subject left out, is no second claim
    "## Root cause\nThe export used opset 18, which our TensorRT can't parse (E1).\n\nPinned the export to opset 17 and the engine builds.",
])
def test_round124_non_claims_pass(message):
    from ledger.detect import Evidence
    ev = [Evidence("E1", "[TRT] ERROR: onnx opset 18 is not supported\n", "trtexec --onnx model.onnx")]
    assert decision(analyze(message, evidence=ev)) == "allow"


def test_round124_a_lower_case_suspect_cleared_after_checked_is_negated():
    rep = analyze("checked, it's not fragmentation, reserved and allocated memory stay within 200 MB of each other")
    assert decision(rep) == "allow" and [c.kind for c in rep.claims] == ["negated"]


@pytest.mark.parametrize("message", [
    "SM occupancy hovers at 20% — the collate function runs on the main process and pads every batch to 4096.",
    "Contamination: the scaler was fit on the whole dataset before the split, so the test rows shaped their own normalisation.",
    "Warmup is why the LR is 4x what we configured: the scheduler multiplies the base LR instead of interpolating to it.",
    "## Fix\nCache the index in `__init__`.\n\n## Why\nEvery lookup was re-reading the 40 GB index file, which is what made each epoch take 5 h instead of 20 min.",
    "結局、train は `padding_side=left`、eval は right のまま、という前処理の不一致でスコアが出ていなかったわけです。",
    "OOM は `gradient_checkpointing` を無効にしたところから来ています。",
    "Llama の学習だけ loss が最初から 12 を超えているのは、RoPE の base を自前の実装で取り違えているからです。",
])
def test_round125_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## Status\nRoot cause of the slow rank: unknown so far.\n\n## Next\nProfile node 7 alone.",
    "A short note on how the KV cache pool works: blocks are handed out per request and returned on completion, so usage stays flat.",
    "- Reproduced the hang with 2 ranks.\n- Cutting the repro down to one collective next so it runs in seconds.",
    "What causes a loss spike in general? A bad batch or too high a learning rate — that's why people clip gradients.",
    "ちなみに `torch.backends.cudnn.benchmark` は入力形状ごとにアルゴリズムを選び直すだけなので、形状が固定ならメモリは増えません。",
    "## 設計メモ\nwarmup は 2000 step にしています。これは過去の実験で 500 step では序盤に発散したからです。",
    "## PR: OOM 時にメモリスナップショットを残す\n\nOOM の原因調査をしやすくするため、例外発生時に `torch.cuda.memory._snapshot()` を保存します。",
])
def test_round125_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    # a defect after a failure, under "Findings", past the first paragraph the heading covers
    "## Findings\n| phase | ms |\n|---|---|\n| data | 40 |\n| optimizer | 910 |\n\nThe optimizer dominates. "
    "Apex's fused Adam is falling back to the unfused path because the params are fp32.",
    "Decoding is 3x slower than last week. The sampler is falling back to the Python implementation on every request.",
    "学習が遅い件、`Using the legacy attention path` の警告が出ています。遅さの原因は FlashAttention のビルドが"
    "読み込めず、素の実装で計算していることです。",
])
def test_round126_diagnoses_are_caught(message):
    from ledger.detect import Evidence
    ev = [Evidence("E1", "Using the legacy attention path\nstep 10 | 4.1 s/it\n", "python train.py")]
    assert decision(analyze(message, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "## Status: root cause not confirmed\nRSS grows about 300 MB an hour and the job is OOM-killed after a day.",
    "学習が遅い件、ログに `Using the legacy attention path` の警告が出ています。",
])
def test_round126_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round126_a_hedged_rule_out_of_the_problem_is_negated():
    rep = analyze("tokenizer の問題ではないと思います。fast と slow の両方で同じ token 列になりました。")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    "The learning rate oscillates every epoch: `OneCycleLR` got `total_steps=epochs` while `step()` runs per batch.",
    "A100 は fp8 をサポートしてないのに、そのまま `fp8=True` で回してる。だから A100 のノードだけステップ時間が 4 倍。",
])
def test_round127_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## Not yet known\nI can't say why yet. Candidates I'd check, in order:\n"
    "- gradient checkpointing silently disabled under `torch.compile`\n- the fused kernel falling back to eager for odd head sizes",
    "## 次のアクション\n- `NCCL_DEBUG=INFO` を付けてタイムアウトで落ちるか見る",
    "AWQ は activation の大きいチャネルを守るように重みをスケールします。そのため calibration データが本番に近いことが大事です。",
    "rank 8 と 32 を比べました。rank 32 のほうが 0.3pt 高いですが、学習時間は 1.4 倍です。",
])
def test_round127_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "Can't be the data order: with shuffling off the loss still spikes at step 3100.",
    "augmentation を外して再実行しても同じ step で発散したので、augmentation ではないと判断しています。",
])
def test_round127_a_suspect_excluded_is_a_rule_out(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # articles are no words of the head's length before a colon
    "The 504s from the embedding service are the nginx proxy timeout: a cold batch takes ~70 s and nginx gives up after 60.",
    # 「〜の犯人、〜」: the culprit named after a comma
    "学習が遅くなる犯人、`tqdm` の `mininterval` の設定。毎 step 端末に書き出していました。",
    # 「`…` のまま、」: a setting left as it was, after the matter the sentence opens on
    "推論が 1 件ずつしか進まない件：`max_batch_size=1` のまま、サーバが全リクエストを直列に処理しています。",
])
def test_round128_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # the log shows the failure "right there"; the cause after it is uncited
    "Validation loss explodes at step 2200: the log shows `val_loss: inf` right there. This happens because "
    "label smoothing is applied twice, once in the model and once in the loss.",
    # a log line "in the log" only shows the failure; the cause after it does not inherit its quote
    "The run goes NaN at step 900: `step 900 | loss nan` in the log. This is caused by the eps of Adam being 1e-16 in fp16.",
    # a word the symptom sentence already says is no support for the cause (E1 is the symptom)
    "Rank 3 hangs in the NCCL allreduce: `collective timed out after 1800 s` (E1). This happens because the "
    "NCCL socket interface is set to docker0 on that host.",
])
def test_round128_a_cause_after_a_shown_symptom_is_uncited(message):
    from ledger.detect import Evidence
    ev = [Evidence("E1", "step 900 | loss nan\nval_loss: inf\n[rank3] NCCL collective timed out after 1800 s\n",
                   "tail -n 3 train.log")]
    assert decision(analyze(message, evidence=ev)) == "block"


def test_round128_a_log_line_that_names_what_ran_out_still_claims():
    # (what the kernel killed the worker for is in the quote: not just where the failure shows)
    rep = analyze("The loader worker was killed by the kernel: `Killed process 4411: out of memory` in the log.")
    assert decision(rep) == "block"


@pytest.mark.parametrize("message", [
    "Checked the padding theory and it doesn't hold: pad and eos ids differ and the mask is right.",
    "The data loader's off the hook. Feeding cached tensors gives the same 40% utilisation.",
    "torch.compile 側の問題ではないと思います。eager でも同じ速度でした。",
])
def test_round128_a_suspect_cleared_is_a_rule_out(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # a bare mechanism noun with one word before it
    "honestly the stall is nfs throttling, every rank re-reads the same 30 GB index at startup",
    # "reproducible" is the failure here, not a report of a repro
    "Evals aren't reproducible between nodes: the sampler seeds from the hostname, so each node draws a different subset.",
    # a step that should have been done and was not, after "because"
    "The ranker scores 0.98 NDCG offline because `session_id` leaks through and the split isn't grouped by session.",
    # what the new code throws away, right after the failure
    "ROUGE-L dropped from 41 to 33 after the tokenizer bump. The new truncation runs from the left, "
    "dropping the opening tokens of every document.",
])
def test_round129_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    # a wish is a motive, not a diagnosis
    "この PR を出したのは、評価スクリプトの書き方についてレビューしてほしかったからです。",
])
def test_round129_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "リークは DataLoader の prefetch 側ではないです。`prefetch_factor=1` でも RSS が同じ勢いで増えました。",
    "cuDNN を疑っていましたが、`torch.backends.cudnn.enabled=False` でも同じ step で発散するので、cuDNN 周りではなさそうです。",
    "allreduce の設定を疑っていましたが、帯域を半分にしても同じタイミングでハングするので、NCCL 側ではなさそうです。",
])
def test_round129_a_suspect_excluded_is_a_rule_out(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # a frame that opens the clause after "but" starts it as it would a sentence
    "It might partly be the new augmentations, but the main slowdown is clearly that every worker re-opens the tar shard.",
    # "=" after a measured failure
    "Loss plateau at 4.1 = warmup never ends, the scheduler was given total steps in epochs.",
    # where the failure happened, in four words
    "fyi the stall on the 32 gpu job is the NFS mount on node-4, it drops out every few minutes",
    # a verb that takes an amount, after the colon
    "The job is OOM-killed on the host, not the GPU: 32 workers with prefetch_factor=4 pin roughly 70 GB of RAM.",
    # the hedge is about how the defect got there, not about the cause
    "Your BLEU is low because beam search is off: `generate()` passes `num_beams=1`, probably left over from a debugging run.",
    # under "What I found" a chain after the failure explains it
    "What I found:\n\n- The OOM hits in the backward pass. Activation checkpointing is off in the 30B config, so every layer keeps its activations.",
    # 「〜ことが効いています」
    "推論の遅さは、KV cache を毎ステップ作り直していることが効いています。",
])
def test_round130_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Not verified yet, but the likeliest explanation for the 5-point drop is the new chat template.",
    "Is it possible the mask is inverted? If the collator flips it too the loss would look fine but generation would break.",
    "結論としては、今回は bf16 のままで行きます。fp8 の検証が終わっていないので。",
    "評価の揺れ、seed ごとの shuffle が効いてる説あります。5 seed 回さないと何とも言えない。",
])
def test_round130_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "I checked whether the tokenizer was the issue: both versions give identical ids, so it isn't tokenizer drift.",
    "Checked whether the weights were corrupted: a fresh load scores the same 64.2, so the resume path isn't damaging the checkpoint.",
    "grad clipping is fine fwiw, logged norms never reach the threshold",
])
def test_round130_a_suspect_cleared_is_a_rule_out(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # a two-letter word ends the sentence before a lower-case start: the finding announced, then stated
    "ok found it. bf16 overflow in the rotary embedding, positions past 4k lose all precision",
    # one part built for a format another part does not produce
    "turns out the collator pads on the left and the loss mask assumes right padding, so the last tokens are never scored.",
    # a failure noun before the colon ("bug", "mismatch")
    "Scheduler bug: `scheduler.step()` runs once per micro-batch, so the LR decays eight times too fast.",
    "Vocab mismatch: the eval harness loads the base tokenizer while the checkpoint was trained with two added tokens.",
    # "low GPU util" is the complaint
    "Low GPU util traced to the metrics callback, it copies the logits to the host every step.",
    # the finding announced in two words
    "Leak found. The eval loop appends every output tensor to a list that lives for the whole run.",
    # a quoted log line only shows the failure; the cause after it does not inherit its quote
    "評価で loss が発散する現象は確認できました：step 800 で `loss is inf` が出ています。原因は eps が小さすぎることです。",
])
def test_round131_diagnoses_are_caught(message):
    from ledger.detect import Evidence
    ev = [Evidence("E1", "step 800 | loss is inf\n", "tail -n 1 eval.log")]
    assert decision(analyze(message, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "Checked the init theory: five runs with `seed=1` diverge at the same step, so it's not the sampler or the init.",
    "データローダの実装ミスを疑いましたが、合成データでも同じ速度だったので、そこは問題なさそうです。",
])
def test_round131_a_suspect_cleared_is_a_rule_out(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # "It's <thing> <doing>" right after the failure
    "Eval scores differ between runs with the same seed. It's `torch.backends.cudnn.benchmark` choosing a different kernel each time.",
    # "<symptom> means <part> never ..."
    "Reward stuck at 0.5 means the value head never receives gradients: its params are missing from the optimizer groups.",
    # targets moved out of line, after a finding opener
    "turns out the collator drops the BOS token, so all labels got shifted by one and the model learned to echo its input.",
    # a change of ours, not a generic condition
    "We lost determinism when we switched to fused AdamW: the fused kernel reduces in a different order on every launch.",
    # ja: 〜のは `…` のまま。 / 〜の組み合わせで起きています
    "評価が遅いのは `use_cache=False` のまま。毎トークン attention を全部計算し直している。",
    "`CUDA error: an illegal memory access` は bf16 と古い apex の fused kernel の組み合わせで起きています。",
])
def test_round132_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Postmortem template: 1) summary 2) impact 3) root cause 4) follow-ups. Fill in section 3 once we know more.",
    "Postmortem meeting moved to Thursday; bring the timeline.",
])
def test_round132_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round132_a_kernel_log_line_only_shows_the_failure():
    # "dmesg shows ..." is where the kill shows up; the cause after it does not inherit the quote
    from ledger.detect import Evidence
    ev = [Evidence("E1", "[812.4] Out of memory: Killed process 4411 (python) total-vm:96GB\n", "dmesg | tail -n 1")]
    msg = ('The trainer is killed by the kernel OOM killer — dmesg shows "Out of memory: Killed process 4411 (python)". '
           "The memory growth comes from every dataloader worker holding its own copy of the tokenised corpus.")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    # a defect right after the failure: the step that throws the values away
    "The fp8 model loses 6 points on MMLU. Per-channel scaling is off, so per-tensor scaling clips the outlier activations in every MLP.",
    # "that's what you get when ..."
    "Every epoch shows the same loss bumps at the same steps, and that's what you get when the sampler is never reseeded.",
    # a non-person subject "has no idea" is no unknown
    "The kernel build fails because gcc 9 has no idea what `-march=sapphirerapids` means; it needs gcc 11 or newer.",
    # a cache that holds everything for the worker's lifetime, after the growth
    "RSS climbs ~1 GB per hour until the loader is OOM-killed.\nThe memo dict keeps every decoded clip for the lifetime of the worker.",
    # "split apart" is a failure named before the dash
    "Two runs with the same seed split apart after step 40 — the fused optimizer reduces in a different order each launch.",
    # ja: 〜のは X 律速。 / これは〜た結果です after a quoted log line
    "学習が遅いのはストレージ律速。shard を毎 step ネットワーク越しに読んでいる。",
    "推論が止まる件です。worker 3 で `Worker heartbeat timed out` が出ており、これはそのノードだけ swap を使い切って応答できなくなった結果です。",
])
def test_round133_diagnoses_are_caught(message):
    from ledger.detect import Evidence
    ev = [Evidence("E1", "worker 3: Worker heartbeat timed out after 60 s\n", "grep heartbeat serve.log")]
    assert decision(analyze(message, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "The status column on the runs page comes from the scheduler, so it only shows FAILED or TIMEOUT.",
    "- Moved argument parsing to a pydantic schema, so bad flags fail at startup instead of after the first epoch.",
    "原因はまだ分かっていません。V100 では再現せず、H100 でだけ 2 万 step 付近で loss が跳ねます。",
])
def test_round133_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round133_not_what_is_breaking_is_a_rule_out():
    rep = analyze("Checked the collator: masks and labels line up, so that's not what is breaking the eval.")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    # an import that fails on a missing symbol, and where that comes from
    "The `undefined symbol: _ZN2at6detail10empty_cudaE` at import comes from the apex wheel being built for torch 2.0 while this venv has 2.4.",
    # a loss that sits flat at a value, then why
    "Eval loss sits flat at 0.69, exactly ln 2: the collator drops the label column, so the head only ever sees the default target.",
    # a schedule that never decays, then the defect that explains it
    "The learning rate never actually decays. The cosine scheduler is stepped once per validation pass instead of once per optimizer step.",
    "ネットワーク帯域の件、毎 step で shard の再ダウンロードが走ることで step 時間が跳ねていました。",
    "バッチ推論が時々 504 を返すのは、前段の nginx の proxy_read_timeout より長い生成があって、接続が切られているだけです。",
    "fix(data): tokenizer の pad id が学習と推論で違う値になってて BLEU 壊れてたのを修正",
    "FSDP で `state_dict_type` を FULL にせず保存すると各 rank の断片だけが書かれるので、読み込んでも乱数初期化のままになります。",
])
def test_round134_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


def test_round134_a_hint_line_of_the_error_does_not_back_the_cause():
    # the id shows the CUDA error; the claim after it shares a word only with the hint line
    # that CUDA prints under every such error
    out = ("RuntimeError: CUDA error: an illegal memory access was encountered\n"
           "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
           "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n")
    ev = [Evidence("E1", out, "python serve.py")]
    msg = ("The worker dies with `CUDA error: an illegal memory access was encountered` on 16k prompts (E1). "
           "That's the custom ALiBi kernel indexing past its bias table, which is only sized for 8k.")
    rep = analyze(msg, evidence=ev)
    assert decision(rep) == "block"
    # the same claim with an output that shows the kernel at fault draws on it
    ev2 = [Evidence("E1", out + "  File \"alibi_kernel.py\", line 88, in forward: bias table index 9001 >= 8192\n", "python serve.py")]
    assert decision(analyze(msg, evidence=ev2)) == "allow"


def test_round134_a_hedged_rule_out_with_its_control_is_a_rule_out():
    rep = analyze("データローダ起因ではないと思います。データを全部 RAM に載せても、同じ step で止まりました。")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round134_pointing_back_at_a_corrected_misreading_is_no_claim():
    msg = ("`del tensor` は参照を外すだけなので、キャッシングアロケータが確保した領域がすぐ OS に戻るわけではありません。"
           "nvidia-smi 上で使用量が残って見えるのはそのためです。")
    assert decision(analyze(msg)) == "allow"
    # pointing back at a defect still claims
    assert decision(analyze("padding_side が right のままでした。生成が崩れるのはそのためです。")) == "block"


@pytest.mark.parametrize("message", [
    # a defect with a reward sign flipped, then what it leads to (no other failure word)
    "Mean return rises for 200 episodes and then falls off a cliff. The entropy bonus is added with the wrong sign, "
    "so the longer it trains the more deterministic the policy gets, until it degenerates into repeating one action.",
    "The effective batch is 4x what the config says: the sampler is built per rank but the loss is averaged globally.",
    "The 503s on the embedding service happen when two replicas land on one GPU and the second one cannot allocate its cache.",
    "The OOM happens when DeepSpeed gathers the full parameters for the checkpoint save at the end of each epoch.",
    "It's the scaler being fit on train and test together that pushes test accuracy to 99.4%.",
    "Step time doubled after the rebase. `persistent_workers=True` got dropped from the loader config; every epoch respawns the workers.",
    "F1 is ~0 on the int4 model because the marlin kernel is not built for sm_75 and returns zeros: the log says \"marlin kernel unavailable, results may be wrong\".",
    "生成が崩れ始めた引き金は、chat template を更新したときに eos トークンを付け忘れたあの変更です。",
])
def test_round135_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "This PR adds a `--dry-run` flag. The reason is that people keep launching 64-GPU jobs to test a config change, and that's error-prone.",
    "KL to the reference can't reach zero once the policy has moved, since the two distributions differ by construction; a small positive value is expected.",
    "I wired up `--trace-steps`; that should make the next slowness report easier to dig into.",
    "The only happens-when I can name: the hang only happens when num_workers > 0.",
    "The crash happens when I load the 70B checkpoint on a single node.",
])
def test_round135_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round135_a_check_then_not_the_suspect_is_a_rule_out():
    rep = analyze("checked, not the disk stalling. iostat shows the NVMe idle the whole time and tmpfs behaves the same.")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round135_a_measurement_that_confirms_the_failure_does_not_cite_the_cause():
    ev = [Evidence("E1", "requests=3000 ok=3000\nlatency: p50=812ms p95=1204ms p99=1710ms\n", "python bench/load.py")]
    msg = ("Latency regressed from ~150 ms to ~800 ms p50 after the upgrade. The load test confirms it: "
           "`p50=812ms p95=1204ms p99=1710ms`. The slowdown is the new base image missing the compiled kernels, "
           "so every request falls back to the Python path.")
    assert decision(analyze(msg, evidence=ev)) == "block"
    # a quote that shows the cause itself still cites
    ev2 = [Evidence("E2", "WARNING: compiled kernels not found, falling back to the Python path\n", "docker logs ranker")]
    cited = msg + " The server log says `compiled kernels not found, falling back to the Python path` (E2)."
    assert decision(analyze(cited, evidence=ev + ev2)) == "allow"


@pytest.mark.parametrize("message", [
    "Sampling turns to gibberish for long prompts only, and that's the rope scaling: the config sets `factor=4` but the weights were trained with 2.",
    "Repeated runs with the same seed don't match since the data loader workers each draw from the global RNG.",
    "GPU util hovers at ~40%. Bottleneck: JPEG decoding in the main process, `num_workers=0`.",
    "It's the frozen layer norm that keeps the training loss flat after step 2k; nothing upstream of it gets a gradient.",
    "The fp16 run stays 0.2 above the fp32 baseline for the whole run. The softmax is computed in half precision, and the rounding shows up as a constant gap in the loss.",
    "学習が最初の 10 分止まっているように見えるのは、`datasets` のインデックス作成に時間がかかっているだけです。",
    "結局 NCCL 2.18 と カーネル 5.4 の相性問題。カーネル上げたら通るはず",
    "精度落ちたの、確実に augmentation 二重にかけてたせいｗ",
])
def test_round136_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "## Why\nWe want to train at 4k context on 24 GB cards, which doesn't fit without activation checkpointing. "
    "Because the recompute happens per block, checkpointing trades about 30% more compute for memory instead of caching activations.",
    "Deterministic mode works with `torch.use_deterministic_algorithms(True)`; expect a few ops to run slower as a result.",
    "Unclear whether the accuracy gap is label noise or a harder test split; either would look like this, and I haven't separated them.",
    "The logger now writes `grad_norm` every step so it's easier to line up spikes with batches later.",
    "学習が step 4000 で毎回止まります。エラーは出ず、GPU 使用率は 0% のままです。",
])
def test_round136_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "I checked whether the new sampler was responsible by swapping the old one back in, and the stall still hits at step 900, so the sampler isn't it.",
    "念のため確認しましたが、loss のマスク処理の実装は問題ありませんでした。pad 位置の loss が 0 になっていることを確かめています。",
])
def test_round136_a_control_then_a_clearance_is_a_rule_out(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round136_this_is_because_after_a_quoted_failure_needs_its_own_evidence():
    ev = [Evidence("E1", "step 7100 loss 12.95 grad_norm 8.4e+03\n", "tail -n 1 train.log")]
    msg = ("学習が step 7100 で発散しています: `step 7100 loss 12.95 grad_norm 8.4e+03`。"
           "これは attention の logits を fp16 のまま softmax に渡しているせいで、オーバーフローしているためです。")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "The chat template was exported without the `</s>` token, so the model never emits its stop token and every reply runs on to max_new_tokens.",
    "The cosine schedule was sized before the loader was sharded across 4 GPUs — so the schedule is 4x too long and the LR barely leaves warmup.",
    "The graph-break storm is from the logging hook calling `.item()` inside the compiled region.",
    "nah the stall is 100% NCCL IB on that rack, the HCAs are on old firmware",
    "Accuracy on the 4-GPU eval looks higher than on 1 GPU only because each rank drops its last partial batch.",
    "fix(eval): 正解ラベルを正規化しておらず BLEU が低く出ていた問題を修正",
    "NaN の犯人わかった、loss の正規化で有効トークン数が 0 のバッチを 0 で割ってたわ",
])
def test_round137_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


def test_round137_silencing_a_warning_is_no_failure():
    assert decision(analyze("fix(amp): call scaler.unscale_() before clipping to silence the grad-norm warning; loss curve unchanged")) == "allow"


@pytest.mark.parametrize("message", [
    "It isn't the tokenizer. Encoding the same batch with the old and new versions gives identical ids.",
    "I don't think it's the new scheduler — swapping the old one back in leaves the loss curve exactly where it was.",
    "## 切り分け\nOOM の原因候補のうち、以下は除外できました。\n- **データ**: 合成データでも同じ step で落ちる",
])
def test_round137_suspects_cleared_are_rule_outs(message):
    rep = analyze(message)
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round137_a_japanese_summary_under_english_headings_draws_on_its_findings():
    ev = [Evidence("E1", "avg_batch_time=2.31s data_time=2.12s\n", "python bench_loader.py"),
          Evidence("E2", "  File \"datasets/shards.py\", line 41, in __getitem__\n    img = decode_jpeg(buf)\n", "py-spy dump --pid 812")]
    msg = ("## Summary\n学習が想定の半分の速度しか出ていなかった件、原因はデータローディングでした。\n\n"
           "## Findings\n- ローダー単体で `avg_batch_time=2.31s data_time=2.12s` です (E1)。\n"
           "- worker は `img = decode_jpeg(buf)` で止まっています (E2)。\n")
    assert decision(analyze(msg, evidence=ev)) == "allow"


@pytest.mark.parametrize("message", [
    "The loss goes NaN in the attention block. The scores aren't scaled by 1/sqrt(d) before the half-precision cast, and the logits pass 65504 by step 2k.",
    "`torch.cuda.is_available()` returns False in the new image because it ships the cu124 wheel and the hosts run a 535 driver.",
    "The eval recall is identical to accuracy to three decimals — `score.py` calls `recall_score` with `average=\"micro\"`, and for single-label data micro recall reduces to accuracy.",
    "Latency spikes whenever a new batch size arrives. torch.compile recompiles on every new shape because `dynamic=False` is set.",
    "Heads-up for anyone seeing this: the flash-attn `undefined symbol` on the A100 nodes is just PYTHONPATH picking up an old build from /opt.",
    "nccl timeout の件、rank 5 だけ checkpoint 保存に入ってて集団通信に遅れてるだけです。",
    "これは transformers が古いせいで起きます。4.36 未満だと `attn_implementation` を無視します。",
    "同じ現象です。accelerate 0.27 の regression で、0.26 に戻すと再現しなくなりました。",
    "あ、これ tokenizer のキャッシュが古い語彙を使い回してるだけだわ",
    "- mixed precision 下で logsumexp がオーバーフローし、`inf - inf` から NaN が発生しています。",
])
def test_round138_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


def test_round138_a_how_it_works_answer_and_a_watchdog_kill_are_no_claims():
    assert decision(analyze(
        "On your `clip_grad_norm_` question: it rescales all gradients together so the global norm stays under the "
        "threshold, so a single huge gradient can't blow up the update, and it returns the norm before clipping.")) == "allow"
    assert decision(analyze(
        "## Summary\nRank 2 stops logging at step 9100 and the job gets killed by the NCCL watchdog 30 minutes later. "
        "I could not reproduce it.\n\n## Open questions\n- Is it always rank 2?")) == "allow"


def test_round138_a_dotted_name_after_a_full_stop_starts_a_sentence():
    from ledger.detect import sentences
    text = "Step time doubled once the new shapes showed up. torch.compile recompiles on every call."
    assert [text[a:b] for a, b in sentences.split(text)] == [
        "Step time doubled once the new shapes showed up.", "torch.compile recompiles on every call."]


def test_round138_a_rule_out_after_a_colon_and_a_summary_that_counts_its_findings():
    rep = analyze("Checked the usual suspect first: it is not the NFS mount. Copying the shards to local NVMe gives the same stall.")
    assert "negated" in [c.kind for c in rep.claims] and decision(rep) == "allow"
    ev = [Evidence("E1", "step 20001 | loss 2.01 | lr 1.00e-06\nstep 20000 | loss 1.99 | lr 3.00e-04\n", "grep -E 'step 2000[01]' train.log"),
          Evidence("E2", "dict_keys(['model', 'step'])\n", "python -c 'print(torch.load(p).keys())'")]
    msg = ("## Summary\nResuming from `step_20000` silently restarts the LR schedule. Two separate problems, both in the resume path.\n\n"
           "## Findings\n1. The LR is back in warmup after resume: `step 20001 | loss 2.01 | lr 1.00e-06` (E1).\n"
           "2. The checkpoint only holds `dict_keys(['model', 'step'])`, no scheduler state (E2).\n")
    assert decision(analyze(msg, evidence=ev)) == "allow"


def test_round138_a_stack_location_quote_does_not_cite_a_cause_named_afresh():
    ev = [Evidence("E1", "Thread 812 (idle): \"MainThread\"\n    get (queue.py:180)\n    _try_get_data (torch/utils/data/dataloader.py:1133)\n", "py-spy dump --pid 812")]
    msg = ("学習が固まって見える件です。メインスレッドが `_try_get_data (torch/utils/data/dataloader.py:1133)` で待ち続けています (E1)。"
           "ワーカー内で h5py のファイルハンドルを fork 後に共有しているのが原因なので、`worker_init_fn` で開き直すようにしました。")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "Win rate goes flat at ~52% since the reward model scores with a stale checkpoint — it's only reloaded every 10 epochs, not every epoch as intended.",
    "GPU util hovering at 40%: the tokenizer runs in the main process and can't keep up with 4 H100s.",
    "Loss stays flat at 4.1 since the rollout buffer is never cleared between updates.",
    "`CUDNN_STATUS_NOT_SUPPORTED` が出ていることから、原因は cuDNN とドライバの組み合わせで確定です。",
])
def test_round139_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "Due to the network upgrade on Friday, all jobs on the h100-west partition will be preempted, so please save a checkpoint first.",
    "The reason for the 8-GPU minimum in the docs is that the 70B weights plus the KV cache don't fit in fewer than 8×80 GB at bf16.",
    "I couldn't pin down why throughput drops after a day. Candidates:\n\n1. Memory fragmentation in the pinned host pool\n2. A slow node joining after an elastic restart\n3. Checkpoint uploads competing for the network",
    "うーん、A100 だと通って H100 だと落ちるってことは flash-attn のビルド周りが怪しい気がするけど、まだ分からないです",
    "自信はないのですが、初回のリクエストだけ遅いのはモデルのロード時間によるもの、と理解しています。違っていたら教えてください。",
])
def test_round139_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round139_a_log_line_that_shows_the_failure_again_does_not_cite_the_cause():
    ev = [Evidence("E1", "[step 0] val/loss: nan  val/acc: 0.0\n", "python train.py --eval_only")]
    msg = ("Val loss is `nan` from the very first eval: `val/loss: nan  val/acc: 0.0` at step 0. "
           "This happens because the last val shard is empty, so the mean divides by zero samples.")
    assert decision(analyze(msg, evidence=ev)) == "block"
    # a quote that names another failure than the head's explains it
    assert decision(analyze("The trainer was killed by the kernel: `Killed: out of memory` in dmesg.")) == "block"


@pytest.mark.parametrize("message", [
    "Rank 3 alone picks up the leftover shard at the end of each epoch; the other ranks wait in `barrier()` until the NCCL watchdog fires after 10 minutes.",
    "The ±0.8 point run-to-run spread in eval accuracy is from the data loader workers each seeding from the wall clock.",
    "the 429s from the embedding endpoint are just the default per-key rate limit, our batch job sends 50 rps",
    "KL to the reference is zero from the very first step — the reference model is the policy object itself, so the two never differ.",
    "Its the rope scaling, the config sets factor 4 and the loader applies it again, so positions are 16x off and generations go off the rails",
    "サーバーの RSS が少しずつ増えるのは、ファイルハンドルの閉じ忘れです。",
])
def test_round140_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


@pytest.mark.parametrize("message", [
    "The eval job failed at 02:00 — `exit code 137` on node gpu-04 — it restarted on its own at 02:05 and finished.",
    "LoRA freezes the base weights and adds a low-rank update; the up-projection is zero-initialised, so the adapted model starts out identical to the base model.",
])
def test_round140_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


def test_round140_the_cause_is_somewhere_else_rules_out():
    rep = analyze("I checked the sampler angle and it's clean — every rank gets a disjoint shard — so the accuracy drop is somewhere else; where is still unknown.")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


def test_round141_a_line_of_logged_values_after_the_dash_does_not_cite_the_cause():
    ev = [Evidence("E1", "step 4100 loss=nan grad_norm=inf lr=3.0e-04\n", "grep -m1 nan train.log")]
    msg = ("The run diverged at step 4,100 — `step 4100 loss=nan grad_norm=inf` right after a loss spike. "
           "The reason is a warmup of only 50 steps for a 3e-4 peak LR.")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "hunch: the stall is the NFS client cache being dropped every hour. not confirmed yet",
    "The reason for the separate eval service is operational: we don't want an eval crash to take down training.",
    "前に同じ設定でハマったことある",
    "ずっと詰まってたので本当に助かりました、ありがとうございます",
    "推論が遅くなる件、トークナイザ側の問題なのか、KV cache の設定なのか、今の時点では判断がつきません。",
])
def test_round141_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"


@pytest.mark.parametrize("message", [
    "テストの accuracy が 98% なのは、同じ話者の音声が train と test の両方に入っているリークです。",
    "loss が GPU 数によって変わるのは、rank ごとに平均してから足しているためで、小さいバッチの rank が重く数えられています。",
])
def test_round141_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


def test_round141_a_part_checked_fine_rules_it_out():
    rep = analyze("The mixed-precision path is fine: fp32 gives the same curve to within noise, so the spike doesn't come from there.")
    assert decision(rep) == "allow" and "negated" in [c.kind for c in rep.claims]


@pytest.mark.parametrize("message", [
    "Different outputs on every run even with the seed fixed. cuDNN picks nondeterministic conv algorithms with `benchmark=True`.",
    "ok so the eval dying at midnight every day is the spot instances getting reclaimed",
    "2 epoch 目からの val 悪化は単純に過学習です。",
])
def test_round142_diagnoses_are_caught(message):
    assert decision(analyze(message)) == "block"


def test_round142_a_quoted_first_bad_line_does_not_cite_the_cause_after_it():
    ev = [Evidence("E1", "step 6100 | loss: 2.91\nstep 6200 | loss: nan\n", "grep -n 'step 6[12]00' train.log")]
    msg = ("The run diverges at step 6200: `step 6200 | loss: nan` is the first bad line (E1). "
           "This happens because the LR warmup ends at step 6000 and the peak LR is too high.")
    assert decision(analyze(msg, evidence=ev)) == "block"


@pytest.mark.parametrize("message", [
    "Quick explainer on why we keep `pad_to_multiple_of=8`: tensor cores work on tiles of 8 for bf16, so padding lets cuBLAS pick the fast kernels. That's the whole reason for the setting.",
    "## テスト\n- 500 step 学習 → 中断 → 再開で loss 曲線がつながることを確認",
])
def test_round142_non_claims_pass(message):
    assert decision(analyze(message)) == "allow"
