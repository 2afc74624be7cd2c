"""How much one PostToolUse hook call costs, as a whole process, next to `python3 -c pass`.

    python3 bench/hook_bench.py            # 30 rounds
    python3 bench/hook_bench.py -n 100

Each round runs, in turn: the bare interpreter (`python -c pass`), the command `ledger install`
writes (`python -S .../ledger/hooks/entry.py claude`), the same with `site` loaded (what
earlier installs wrote), the console script (`ledger-hook claude`) and
`python -m ledger.hooks claude` (what earlier versions installed), each with a real PostToolUse
payload on stdin, writing into a throwaway ledger. Interleaving means a busy neighbour slows all three
alike, so the ratio of medians holds up on a shared machine even when the absolute times don't.

The interpreter is this one (sys.executable), not whatever `python3` resolves to on PATH: a
version-manager shim (pyenv) adds its own start-up to every call and would flatter the ratio.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = 2.5

PAYLOAD = {
    "session_id": "bench-session",
    "transcript_path": "/tmp/bench.jsonl",
    "cwd": "/home/dev/proj",
    "permission_mode": "default",
    "hook_event_name": "PostToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "tail -n 40 logs/train.log", "description": "read the log"},
    "tool_response": {
        "stdout": "\n".join("step %d loss=%.3f grad_norm=%.2f lr=3e-4" % (i, 2.0 - i / 1000, 1.0)
                            for i in range(40)),
        "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False,
    },
    "tool_use_id": "toolu_bench",
    "duration_ms": 31,
}


def console_script():
    """The `ledger-hook` next to this interpreter, or the first one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "ledger-hook")
    if os.path.exists(beside):
        return beside
    return shutil.which("ledger-hook")


def time_one(argv, data, env):
    start = time.perf_counter()
    result = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if result.returncode != 0 or result.stderr:
        raise SystemExit("%s failed: rc=%d %s" % (argv, result.returncode, result.stderr.decode()))
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=30, help="rounds (default 30)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="ledger-bench-")
    env = dict(os.environ, LEDGER_DB=os.path.join(tmp, "ledger.db"),
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("LEDGER_DISABLE", None)
    # An installed wheel has its .pyc files; a checkout run with PYTHONDONTWRITEBYTECODE would
    # recompile every module on every call and time the compiler instead of the hook.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    data = json.dumps(PAYLOAD).encode()

    entry = os.path.join(REPO, "ledger", "hooks", "entry.py")
    # What `ledger install` writes (hooks.command: `-S`, no site), what it wrote before, and the
    # bare interpreter without site beside it.
    commands = {"python -c pass": [sys.executable, "-c", "pass"],
                "python -S entry.py claude (installed)": [sys.executable, "-S", entry, "claude"],
                "python entry.py claude (site loaded)": [sys.executable, entry, "claude"],
                "python -m ledger.hooks claude": [sys.executable, "-m", "ledger.hooks", "claude"],
                "python -S -c pass": [sys.executable, "-S", "-c", "pass"]}
    script = console_script()
    if script:
        commands["ledger-hook claude"] = [script, "claude"]
    else:
        print("ledger-hook is not installed (pip install -e .); timing the module only", file=sys.stderr)

    try:
        for argv in commands.values():  # warm the page cache and create the ledger's schema
            time_one(argv, data, env)
        times = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(time_one(argv, data, env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = statistics.median(times["python -c pass"])
    base_s = statistics.median(times["python -S -c pass"])
    figures = {}
    for name, t in times.items():
        against = base_s if name == "python -S -c pass" else base
        figures[name] = {"median_ms": round(statistics.median(t) * 1000, 2),
                         "ratio": round(statistics.median(t) / against, 2)}
    if args.json:
        print(json.dumps({"runs": args.runs, "python": sys.executable, "target_ratio": TARGET,
                          "results": figures}, indent=2))
        return
    print("PostToolUse hook, whole process, %d interleaved rounds (%s)" % (args.runs, sys.executable))
    print("ratios: to `python -c pass` (the target's measure)")
    width = max(len(n) for n in figures)
    for name, fig in figures.items():
        verdict = "" if name.endswith("-c pass") else (
            "  ok (target <= %.1fx)" % TARGET if fig["ratio"] <= TARGET else "  OVER target %.1fx" % TARGET)
        print("  %-*s  median %7.2f ms  %5.2fx%s" % (width, name, fig["median_ms"], fig["ratio"], verdict))


if __name__ == "__main__":
    main()
