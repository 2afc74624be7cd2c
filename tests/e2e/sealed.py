"""Run Codex or Gemini once against its fake model, inside a loopback-only network namespace.

    result = run_sealed("fake_gemini", scenario, argv, env, cwd, workdir, timeout=90)

`run_sealed` starts `unshare -n sh -c 'ip link set lo up && exec python3 sealed.py SPEC'`;
the inner half (this file's __main__) refuses to go on if anything but `lo` exists, starts the
named fake server on a free 127.0.0.1 port, puts the port into the client's argv and env
wherever `{port}` appears, runs the client with stdin closed and a time limit, kills its whole
process group if it overruns, and writes rc, stdout, stderr and timed_out to a result file.
Standard library only. Every client's e2e run goes through here: Claude Code's too
(`harness.Session.run_sealed`, with `fake_anthropic`).
"""

import importlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


class SealedRun:
    def __init__(self, result, request_log, argv):
        self.rc = result["rc"]
        self.stdout = result["stdout"]
        self.stderr = result["stderr"]
        self.timed_out = result["timed_out"]
        self.argv = argv
        self.requests = []
        if os.path.exists(request_log):
            with open(request_log, encoding="utf-8") as f:
                self.requests = [json.loads(line) for line in f if line.strip()]

    def diagnosis(self):
        """What a failing test prints: enough to see why without rerunning."""
        lines = ["client rc=%s timed_out=%s" % (self.rc, self.timed_out),
                 "argv: %s" % " ".join(self.argv),
                 "--- client stdout (tail)", self.stdout[-3000:],
                 "--- client stderr (tail)", self.stderr[-4000:],
                 "--- fake model requests (%d)" % len(self.requests)]
        for r in self.requests:
            lines.append("%s %s" % (r["path"], json.dumps(r.get("body"))[-400:]))
        return "\n".join(lines)


def run_sealed(fake, scenario, argv, env, cwd, workdir, timeout=90, tag="run", run_class=SealedRun):
    request_log = os.path.join(workdir, tag + "-requests.jsonl")
    result_path = os.path.join(workdir, tag + "-result.json")
    spec_path = os.path.join(workdir, tag + "-spec.json")
    spec = {"fake": fake, "scenario": scenario, "request_log": request_log, "argv": list(argv),
            "env": env, "cwd": cwd, "timeout": timeout, "result": result_path}
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(spec, f, ensure_ascii=False)
    inner = "ip link set lo up && exec %s %s %s" % (
        shlex.quote(sys.executable), shlex.quote(os.path.abspath(__file__)), shlex.quote(spec_path))
    try:
        proc = subprocess.run(["unshare", "-n", "sh", "-c", inner], capture_output=True,
                              text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("the namespace runner itself hung: %s" % exc)
    if not os.path.exists(result_path):
        raise AssertionError("runner left no result (rc=%s)\nstdout: %s\nstderr: %s" % (
            proc.returncode, proc.stdout, proc.stderr))
    with open(result_path, encoding="utf-8") as f:
        result = json.load(f)
    return run_class(result, request_log, argv)


def interfaces():
    # /proc/net/dev belongs to the current network namespace, unlike /sys/class/net.
    with open("/proc/net/dev") as f:
        return [line.split(":")[0].strip() for line in f.readlines()[2:] if ":" in line]


def inner(spec_path):
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    result = {"rc": None, "stdout": "", "stderr": "", "timed_out": False}
    others = [name for name in interfaces() if name != "lo"]
    if others:
        result["stderr"] = "refusing to run: namespace has interfaces %s besides lo" % others
        return finish(spec, result, 3)

    sys.path.insert(0, HERE)
    fake = importlib.import_module(spec["fake"])
    server = fake.make_server(spec["scenario"], spec["request_log"])
    port = str(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()

    argv = [a.replace("{port}", port) for a in spec["argv"]]
    env = {k: str(v).replace("{port}", port) for k, v in spec["env"].items()}
    try:
        proc = subprocess.Popen(argv, cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=spec["timeout"])
        except subprocess.TimeoutExpired:
            # The whole group: the client, its hooks and any shell the model started.
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            result["timed_out"] = True
        result.update(rc=proc.returncode, stdout=out.decode("utf-8", "replace"),
                      stderr=err.decode("utf-8", "replace"))
    finally:
        server.shutdown()
        server.server_close()
    return finish(spec, result, 0)


def finish(spec, result, code):
    with open(spec["result"], "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)
    return code


if __name__ == "__main__":
    sys.exit(inner(sys.argv[1]))


# Pytest side: the pinned client, or a skip (a failure under CI) -----------------------------

def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(why):
    """Skip the test, or fail it under CI, so a broken runner never passes by skipping."""
    import pytest

    if in_ci():
        pytest.fail("e2e: %s (CI=true, so this fails instead of skipping)" % why, pytrace=False)
    pytest.skip("e2e: %s" % why)


def pinned_client(name):
    """Path to the pinned client `name` (installing it from npm if allowed), else skip/fail."""
    import harness

    problem = harness.namespace_problem()
    if problem:
        unavailable(problem)
    found = harness.find_client(name)
    if found:
        return found
    package, version, _ = harness.pins()[name]
    if os.environ.get("LEDGER_E2E_NO_INSTALL"):
        unavailable("%s@%s is not installed and LEDGER_E2E_NO_INSTALL is set; run "
                    "scripts/install-agent-clients.sh %s" % (package, version, name))
    ok, output = harness.install_client(name)
    found = harness.find_client(name)
    if not ok or not found:
        unavailable("%s@%s is not in %s and could not be installed from npm (%s)"
                    % (package, version, harness.cache_root(), output.strip()[-500:]))
    return found
