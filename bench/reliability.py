"""The reliability run: load, fuzz and crash tests at full size, and the figures they produce.

    python3 bench/reliability.py            # full size: 16 x 500 entries, 1000 fuzz cases per agent, 300 kills
    python3 bench/reliability.py --quick    # CI size

It runs the same tests as the suite (tests/test_load.py, test_fuzz_hooks.py, test_crash.py,
test_faults.py, test_verify.py, test_protect.py, test_privacy.py), scaled up through
environment variables, and prints what they measured. Exit status is pytest's: any failure
fails the run. Nothing here asserts on time; the wall time is printed for information.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FULL = {"LEDGER_LOAD_WRITERS": "16", "LEDGER_LOAD_ENTRIES": "500", "LEDGER_FUZZ_EXAMPLES": "1000",
        "LEDGER_CRASH_KILLS": "300"}
QUICK = {"LEDGER_LOAD_WRITERS": "16", "LEDGER_LOAD_ENTRIES": "50", "LEDGER_FUZZ_EXAMPLES": "150",
         "LEDGER_CRASH_KILLS": "30"}
TESTS = ["tests/test_load.py", "tests/test_fuzz_hooks.py", "tests/test_crash.py", "tests/test_faults.py",
         "tests/test_verify.py", "tests/test_protect.py", "tests/test_privacy.py", "tests/test_retention.py"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI sizes instead of the full run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    with tempfile.TemporaryDirectory() as tmp:
        figures_path = os.path.join(tmp, "figures.jsonl")
        count_path = os.path.join(tmp, "fuzz-count")
        junit = os.path.join(tmp, "junit.xml")
        env = dict(os.environ, LEDGER_RELIABILITY_OUT=figures_path, LEDGER_FUZZ_COUNT_FILE=count_path, **sizes)
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 "--junitxml", junit] + TESTS, cwd=REPO, env=env)
        wall = time.monotonic() - started
        figures = {}
        if os.path.exists(figures_path):
            for line in open(figures_path):
                entry = json.loads(line)
                figures[entry.pop("test")] = entry
        fuzz_cases = sum(1 for _ in open(count_path)) if os.path.exists(count_path) else 0
        tests_run = failures = skipped = 0
        if os.path.exists(junit):
            import xml.etree.ElementTree as ET

            suite = ET.parse(junit).getroot()
            suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
            tests_run = int(suite.get("tests", 0))
            failures = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skipped = int(suite.get("skipped", 0))
    load = figures.get("load", {})
    crash = figures.get("crash", {})
    out = {
        "size": "quick" if args.quick else "full",
        "entries_recorded_under_load": load.get("recorded"),
        "load_writers": load.get("writers"),
        "load_entries_each": load.get("entries_each"),
        "stop_checks_during_load": load.get("stop_checks"),
        "ledger_show_runs_during_load": load.get("show_runs"),
        "chain_problems_after_load": load.get("chain_problems"),
        "fuzz_cases_run": fuzz_cases,
        "sigkills": crash.get("kills"),
        "kills_survived": crash.get("killed_mid_run"),
        "kills_that_landed_after_exit": crash.get("finished_first"),
        "tests": tests_run, "failed": failures, "skipped": skipped,
        "wall_seconds": round(wall, 1),
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print()
        print("evidence-ledger reliability run (%s)" % out["size"])
        print("  entries recorded under load : %s of %s (%s writers x %s, while %s Stop checks and %s `ledger show` ran); chain problems: %s" % (
            out["entries_recorded_under_load"], (load.get("writers") or 0) * (load.get("entries_each") or 0),
            out["load_writers"], out["load_entries_each"], out["stop_checks_during_load"],
            out["ledger_show_runs_during_load"], out["chain_problems_after_load"]))
        print("  fuzz cases run              : %d, every one exit 0, nothing blocked" % fuzz_cases)
        print("  kills survived              : %s SIGKILLs mid-run (of %s sent), integrity_check ok, no partial entry" % (
            out["kills_survived"], out["sigkills"]))
        print("  tests                       : %d run, %d failed, %d skipped, %.0f s" % (tests_run, failures, skipped, wall))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
