"""A Stop reads a big output only where it needs it (store.DeferredRow): the same verdict,
reason and report as reading every output up front, whatever the big output holds and
whatever of it the detector, the integrity check and the suggestions end up needing."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import config as config_mod
from ledger import store
from ledger.hooks import stop

QUOTE = "loss=nan at step 4100"
MESSAGE = (
    "The loss became NaN because the learning rate was too high: the log shows `%s`.\n\n"
    "The checkpoint at step 4000 is corrupt because the save ran while the optimizer state "
    "was already poisoned.\n\nThe dataloader stalls were caused by the shared filesystem.") % QUOTE


def log(lines, rng, extra=""):
    out = ["step %d loss=%.4f grad_norm=%.3f lr=3.00e-03" % (i, rng.random() * 3, rng.random())
           for i in range(lines)]
    return "\n".join(out) + "\n" + extra


def build(path, big, quote_in_big=False, big_last=False):
    rng = random.Random(5)
    conn = store.connect(path)
    try:
        entries = [
            ("python train.py", "starting\n" + log(20, rng)),
            ("cat logs/full.log", big),
            ("grep -n save ckpt.py", "41: torch.save(state, path)  # the optimizer state"),
            ("tail logs/train.log", log(30, rng, "" if quote_in_big else QUOTE + "\n")),
            ("ls -la runs/", "total 12\ndrwxr-xr-x 2 dev dev 4096 ckpt"),
        ]
        if big_last:
            entries.append(entries.pop(1))
        for command, output in entries:
            store.record(conn, {"session_id": "s", "tool_name": "Bash", "command": command,
                                "output": output, "failed": "nan" in output[-200:], "exit_code": 0})
    finally:
        conn.close()


def judge(path, defer, message=MESSAGE, turn="t1"):
    """(what the Stop decided and said, the rows it read as DeferredRow: after it, whether each
    was read whole and whether it was scanned)."""
    stop.DEFER_OUTPUT_BYTES = defer
    read = []
    real = store.session_evidence

    def session_evidence(*args, **kwargs):
        rows = real(*args, **kwargs)
        read.extend(r for r in rows if isinstance(r, store.DeferredRow))
        return rows

    conn = store.connect(path)
    store.session_evidence = session_evidence
    try:
        config, _ = config_mod.load(None)
        event, checkpoint = {"turn_id": turn, "agent": "claude", "event": "Stop"}, []
        verdict, report, blocks = stop.judge(conn, event, "s", message, config, None, checkpoint)
        # As the hook does: the decision records the checkpoint the next Stop starts from.
        stop._record(conn, event, "s", verdict, report, blocks, config, message, checkpoint=checkpoint)
        return ((verdict.decision, verdict.reason, verdict.system_message, report.to_dict(), blocks),
                [(r.loaded, r._scan is not None) for r in read])
    finally:
        store.session_evidence = real
        conn.close()


# How each big output ends up read on the second Stop: (read whole, scanned without a str).
PATHS = {
    "ascii log": (False, True),  # the suggestion's last lines come from its end
    "crlf": (False, True),
    "no newline at all": (False, False),  # holds no term of the claims: never read at all
    "quote inside": (True, False),  # the detector reads it (the quote is there)
    "dotted capital I": (True, True),  # FTS folds it apart: the ranking reads its text
    "long s": (True, True),
    "japanese": (True, True),  # not ASCII: the suggestion's line is found in its text
}


BIGS = {
    "ascii log": lambda rng: log(9000, rng),
    "quote inside": lambda rng: log(9000, rng, QUOTE + "\n"),
    "dotted capital I": lambda rng: log(9000, rng, "Warnung: DİSK voll\n"),
    "long s": lambda rng: log(9000, rng, "ſtep 9001\n"),
    "japanese": lambda rng: log(9000, rng, "エラー: メモリ不足 step 9001\n"),
    "no newline at all": lambda rng: "x" * 400000,
    "crlf": lambda rng: log(9000, rng).replace("\n", "\r\n"),
}


@pytest.mark.parametrize("name", sorted(BIGS))
@pytest.mark.parametrize("big_last", [False, True])
def test_a_stop_judges_alike_with_big_outputs_read_on_demand(tmp_path, monkeypatch, name, big_last):
    monkeypatch.setattr(stop, "DEFER_OUTPUT_BYTES", stop.DEFER_OUTPUT_BYTES)
    big = BIGS[name](random.Random(9))
    assert len(big.encode()) >= 256 * 1024
    quote_in_big = name == "quote inside"
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    build(a, big, quote_in_big, big_last)
    build(b, big, quote_in_big, big_last)
    # First Stops (every entry re-hashed), then second ones (only what a claim cites).
    for turn in ("t1", "t2"):
        whole, none = judge(a, None, turn=turn)
        lazy, deferred = judge(b, 256 * 1024, turn=turn)
        assert none == [] and len(deferred) == 1
        assert lazy == whole
        assert whole[0] == "block"
        assert ("cat logs/full.log" in whole[1]) is (name != "no newline at all")
    # The first Stop re-hashes every entry, the big one too; the second reads it as PATHS say,
    # or whole when it is the newest entry (the detector looks there first).
    assert deferred == [(True, False) if big_last else PATHS[name]]
    # A quote that is nowhere: the near-miss search reads every output, the big one too.
    missing = MESSAGE.replace(QUOTE, "loss=nan at step 4101 on rank 7")
    assert judge(b, 256 * 1024, missing, "t3")[0] == judge(a, None, missing, "t3")[0]


@settings(max_examples=25, deadline=None)
@given(count=st.sampled_from([1, 5, 17, 2000]), lines=st.lists(
    st.text(alphabet="ab \r\n\t.x", max_size=30), min_size=0, max_size=60), size=st.integers(0, 5000))
def test_last_lines_from_a_tail_are_the_last_lines(count, lines, size):
    text = "\n".join(lines) * (size // 50 + 1)
    reads = []

    def tail(k):
        assert k > 0
        reads.append(k)
        return text[-k:]

    assert stop._last_lines("", count, len(text), tail) == stop._last_lines(text, count)
    assert stop._last_lines(text, count) == text.splitlines()[-count:]
