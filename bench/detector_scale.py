"""How the detector's cost grows with the message and with the session's evidence.

    python3 bench/detector_scale.py            # messages up to 60,000 sentences; 2,000 x 110 KB outputs
    python3 bench/detector_scale.py --quick

Times are in-process (`analyze` only, rules compiled first) and printed with their ratio to the
smallest case of the same run: linear growth shows as a ratio close to the size ratio.
"""

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ledger.detect import Evidence, analyze, load_rules  # noqa: E402

DIAG = ("The loss diverged because the gradients exploded at step 420. "
        "I updated the config and reran the tests. ")


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def outputs(n, size):
    rnd = random.Random(1)
    words = ["loss", "step", "grad", "norm", "epoch", "rank", "cuda", "tensor", "batch", "lr"]
    base = []
    for _ in range(min(n, 20)):
        lines, total = [], 0
        while total < size:
            ln = "%s %d %s=%0.4f" % (rnd.choice(words), rnd.randint(0, 99999), rnd.choice(words), rnd.random())
            lines.append(ln)
            total += len(ln) + 1
        base.append("\n".join(lines))
    ev = [Evidence("E%d" % i, base[i % len(base)] + "\nid %d" % i, "cmd %d" % i) for i in range(1, n + 1)]
    ev[n // 2].output += "\nRuntimeError: CUDA error: an illegal memory access was encountered\n"
    return ev


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    load_rules()
    sizes = (1000, 4000, 16000) if args.quick else (1000, 4000, 16000, 60000)
    print("| message | sentences | seconds | ratio to first |")
    print("|---|---:|---:|---:|")
    for label, unit, per in (("'Done. ' x n", "Done. ", 1), ("diagnosis + status x n", DIAG, 2)):
        first = None
        for n in sizes:
            s = timed(lambda: analyze(unit * (n // per), evidence=[]))
            first = first or s
            print("| %s | %d | %.3f | %.1f |" % (label, n, s, s / first))
    print()
    n_out = 200 if args.quick else 2000
    ev = outputs(n_out, 110_000)
    found = "The run crashed because of `RuntimeError: CUDA error: an illegal memory access was encountered`."
    missing = ("The loss diverged because `grad norm exploded to 1e9 at step 7`.\n\n"
               "It hangs because `rank 3 waiting on barrier forever`.")
    print("| quotes vs %d x 110 KB outputs | seconds |" % n_out)
    print("|---|---:|")
    for label, msg in (("1 quote, found mid-session", found), ("2 quotes found nowhere", missing),
                       ("all 3", found + "\n\n" + missing)):
        print("| %s | %.3f |" % (label, timed(lambda: analyze(msg, evidence=ev))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
