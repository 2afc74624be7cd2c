"""How fast `ledger probe` scans a big log: generate one (default 2 GB) and time the log probe.

    python3 bench/probe_scan.py                 # 2 GB, every engine this machine has
    python3 bench/probe_scan.py --size 256M     # smaller
    python3 bench/probe_scan.py --engine rg --rounds 3

The log is a realistic training log (timestamped step lines with loss, lr, grad_norm,
tokens/s, HF-style dict lines, NCCL INFO lines), with a grad-norm explosion, a NaN
divergence that fills the last 2% and a CUDA OOM traceback at the end. The scan must find all
three: a fast scan that misses them does not count. Reported in seconds and GB/s, next to
`wc -l` on the same file as the machine's own yardstick: on a shared machine the seconds
swing with the load, so each scan is timed right after its own `wc -l` and the ratio between
the two is the figure to compare. With --rounds N the engines take turns N times and the
best round of each is reported.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ledger import probe, probe_logs  # noqa: E402


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def block(rng, step0, n):
    out = []
    for i in range(n):
        s = step0 + i
        r = rng.random()
        if r < 0.7:
            out.append(f"[2024-05-01 12:{s // 60 % 60:02d}:{s % 60:02d},{s % 1000:03d}] INFO trainer.py:2241 "
                       f"step {s} | loss={2.5 - s * 1e-7:.4f} | lr={3e-4:.2e} | grad_norm={0.5 + rng.random():.3f} "
                       f"| tokens/s={rng.randint(90000, 99000)}\n")
        elif r < 0.9:
            out.append(f"{{'loss': {2.4 + rng.random() / 10:.4f}, 'grad_norm': {0.6 + rng.random():.4f}, "
                       f"'learning_rate': 2.9e-05, 'epoch': {s / 1e5:.2f}}}\n")
        else:
            out.append(f"gpu-node-7:4121:4190 [{s % 8}] NCCL INFO Channel {s % 32:02d}/0 : {s % 8}[{s % 8}] -> "
                       f"{(s + 1) % 8}[{(s + 1) % 8}] via P2P/CUMEM/read\n")
    return "".join(out).encode()


TRACEBACK = b"""Traceback (most recent call last):
  File "/home/ml/train.py", line 212, in <module>
    main()
  File "/home/ml/train.py", line 188, in main
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.
"""


def generate(path, size):
    rng = random.Random(8)
    # Repeat a few distinct 4 MB blocks: generating 2 GB line by line takes longer than the scan.
    blocks = [block(rng, k * 50000, 30000) for k in range(4)]
    nan_from = int(size * 0.98)
    boom_at = int(size * 0.97)
    written = 0
    step = 0
    diverged = False
    with open(path, "wb") as f:
        while written < size:
            if written >= nan_from or diverged:
                b = "".join(f"[2024-05-01 13:00:00,000] INFO trainer.py:2241 step {step + i} | loss=nan | lr=3.00e-04 | "
                            f"grad_norm=nan | tokens/s=95000\n" for i in range(20000)).encode()
            else:
                b = blocks[step % 4]
                if written + len(b) > nan_from:
                    # End the block at a line before the divergence, so a small log has one too.
                    b = b[: b.rfind(b"\n", 0, nan_from - written) + 1]
                    diverged = True
            if boom_at <= written < boom_at + len(b):
                b = b"[2024-05-01 12:59:59,000] INFO trainer.py:2241 step 1 | loss=9.1 | lr=3.00e-04 | grad_norm=48213.5\n" + b
            b = b[: size - written] if written + len(b) > size else b
            f.write(b)
            written += len(b)
            step += 1
        f.write(b"\n" + TRACEBACK)


def wc_l(path):
    t = time.perf_counter()
    subprocess.run(["wc", "-l", path], stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def scan(path, engine):
    rules = probe.load_rules(os.path.dirname(path))
    t = time.perf_counter()
    findings = probe_logs.scan_log(path, rules, time.monotonic() + 600, tail_n=15, engine=engine)
    return time.perf_counter() - t, findings


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="2G", help="log size: 2G (default), 512M, 100000000")
    ap.add_argument("--engine", choices=["rg", "grep", "python", "all", "both"], default="all",
                    help="both: grep and python (kept for old scripts)")
    ap.add_argument("--rounds", type=int, default=1, help="take turns this many times; report the best")
    ap.add_argument("--keep", action="store_true", help="keep the generated log and print its path")
    args = ap.parse_args()
    size = parse_size(args.size)
    tmp = tempfile.mkdtemp(prefix="probe-bench-")
    path = os.path.join(tmp, "train.log")
    try:
        t = time.perf_counter()
        generate(path, size)
        actual = os.path.getsize(path)
        print(f"generated {actual / 1e9:.2f} GB in {time.perf_counter() - t:.1f} s: {path}")
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # warm the page cache for every engine alike
        engines = {"all": ["rg", "grep", "python"], "both": ["grep", "python"]}.get(args.engine, [args.engine])
        engines = [e for e in engines if e == "python" or shutil.which(e)]
        best = {}
        ok = True
        for _ in range(max(1, args.rounds)):
            for engine in engines:
                wc = wc_l(path)
                secs, findings = scan(path, engine)
                kinds = {f.kind for f in findings}
                need = {"nan_loss", "grad_explosion", "traceback", "last_step"}
                ok = ok and need <= kinds
                if engine not in best or secs / wc < best[engine][0] / best[engine][1]:
                    best[engine] = (secs, wc, need - kinds)
        for engine in engines:
            secs, wc, missing = best[engine]
            found = "all found" if not missing else f"MISSING {sorted(missing)}"
            print(f"{'probe log, ' + engine:18s} {secs:6.2f} s  {actual / secs / 1e9:5.2f} GB/s   "
                  f"wc -l just before {wc:5.2f} s  ratio {secs / wc:5.1f}x  ({found}; target: 2 GB < 5 s)")
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept {path}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
