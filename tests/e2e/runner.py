"""Inside the loopback-only namespace: start the fake model, run the client once, report.

The harness starts this as `unshare -n sh -c 'ip link set lo up && exec python3 runner.py SPEC'`.
SPEC is a JSON file: {"turns", "request_log", "argv", "env", "cwd", "timeout", "result"}.
The client's ANTHROPIC_BASE_URL is filled in here, once the server has its port. The result
file gets the client's exit code, stdout, stderr and whether it was killed for time.

Standard library only; it refuses to run if the namespace can reach anything but loopback.
"""

import json
import os
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fake_anthropic  # noqa: E402


def interfaces():
    # /proc/net/dev belongs to the current network namespace, unlike /sys/class/net.
    with open("/proc/net/dev") as f:
        return [line.split(":")[0].strip() for line in f.readlines()[2:] if ":" in line]


def main(spec_path):
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    result = {"rc": None, "stdout": "", "stderr": "", "timed_out": False}
    others = [name for name in interfaces() if name != "lo"]
    if others:
        result["stderr"] = "refusing to run: namespace has interfaces %s besides lo" % others
        return finish(spec, result, 3)

    server = fake_anthropic.make_server(spec["turns"], spec["request_log"])
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    env = dict(spec["env"], ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % port)
    try:
        proc = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=spec["timeout"])
        except subprocess.TimeoutExpired:
            # The whole group: the client, its hooks and any shell the model's Bash started.
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
    sys.exit(main(sys.argv[1]))
