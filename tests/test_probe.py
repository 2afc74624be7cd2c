"""`ledger probe` against prepared run directories, stub tools on PATH and real /proc."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from ledger import probe, probe_files, probe_host, probe_logs
from ledger.cli import cli

FIXTURES = os.path.join(os.path.dirname(__file__), "probe_fixtures")
STUBS = os.path.join(FIXTURES, "bin")


@pytest.fixture
def env(tmp_path):
    """Stub tools first on PATH, no user rules, a scratch ledger."""
    return {
        "PATH": STUBS + os.pathsep + os.environ.get("PATH", ""),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "LEDGER_DB": str(tmp_path / "ledger.db"),
        "PROBE_STUB_DIR": FIXTURES,
    }


def run_dir(tmp_path, name):
    dest = tmp_path / name
    shutil.copytree(os.path.join(FIXTURES, "runs", name), dest)
    return str(dest)


def probe_json(env, *args):
    result = CliRunner().invoke(cli, ["probe", "--json", *args], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def by_kind(report, kind, probe_name=None):
    return [f for f in report["findings"] if f["kind"] == kind and (probe_name is None or f["probe"] == probe_name)]


def assert_verbatim(finding, source_path):
    """The quoted line is a whole line of the source, exactly (trailing whitespace aside)."""
    with open(source_path, encoding="utf-8") as f:
        lines = [line.rstrip() for line in f.read().splitlines()]
    assert finding["line"] in lines, finding
    if finding.get("lineno"):
        assert lines[finding["lineno"] - 1] == finding["line"]


# ------------------------------------------------------------------------------------- logs

def test_cuda_oom_traceback_names_the_final_exception_line(tmp_path, env):
    d = run_dir(tmp_path, "oom")
    report = probe_json(env, "--run-dir", d)
    [tb] = by_kind(report, "traceback")
    assert tb["severity"] == "error"
    assert tb["line"].startswith("[rank0]: torch.OutOfMemoryError: CUDA out of memory.")
    assert "GPU out of memory" in tb["summary"]
    assert tb["lineno"] == 409
    assert_verbatim(tb, os.path.join(d, "train.log"))
    # The OOM line is the traceback's finding; it is not reported twice.
    assert by_kind(report, "cuda_oom") == []
    [failed] = by_kind(report, "child_failed")
    assert_verbatim(failed, os.path.join(d, "train.log"))
    [step] = by_kind(report, "last_step")
    assert step["data"]["value"] == "400"


def test_nan_divergence_reports_first_nan_and_the_explosion_before_it(tmp_path, env):
    d = run_dir(tmp_path, "nan")
    report = probe_json(env, "--run-dir", d)
    [nan] = by_kind(report, "nan_loss")
    assert nan["lineno"] == 306 and nan["count"] == 34
    assert "loss = nan" in nan["summary"]
    assert_verbatim(nan, os.path.join(d, "train.log"))
    [boom] = by_kind(report, "grad_explosion")
    assert boom["lineno"] == 301 and "grad_norm=10000.0" in boom["line"]
    assert_verbatim(boom, os.path.join(d, "train.log"))


def test_nccl_watchdog_timeout(tmp_path, env):
    d = run_dir(tmp_path, "nccl")
    report = probe_json(env, "--run-dir", d)
    [nccl] = by_kind(report, "nccl_timeout")
    assert "Watchdog caught collective operation timeout" in nccl["line"]
    assert nccl["lineno"] == 201
    assert_verbatim(nccl, os.path.join(d, "train.log"))


def test_early_stop_is_a_notice_and_no_crash_is_reported(tmp_path, env):
    d = run_dir(tmp_path, "early_stop")
    report = probe_json(env, "--run-dir", d)
    [stop] = by_kind(report, "early_stop")
    assert stop["severity"] == "notice"
    assert stop["line"].startswith("Epoch 12: early stopping")
    assert_verbatim(stop, os.path.join(d, "train.log"))
    # The config dump names early_stopping_patience; that is not a notice.
    assert stop["count"] == 1
    # Keras's "best epoch: 9" after the notice is not progress: the run got to epoch 12.
    [epoch] = by_kind(report, "last_epoch")
    assert epoch["data"]["value"] == "12"
    assert epoch["line"].startswith("Epoch 12: early stopping")
    assert [f for f in report["findings"] if f["probe"] == "log" and f["severity"] in ("error", "warn")] == []


def test_empty_checkpoint_and_gap_to_log(tmp_path, env):
    d = run_dir(tmp_path, "empty_ckpt")
    now = time.time()
    os.utime(os.path.join(d, "checkpoints", "step_400.pt"), (now - 7200, now - 7200))
    os.utime(os.path.join(d, "checkpoints", "step_500.pt"), (now - 5400, now - 5400))
    os.utime(os.path.join(d, "train.log"), (now - 60, now - 60))
    report = probe_json(env, "--run-dir", d)
    [empty] = by_kind(report, "empty")
    assert empty["severity"] == "error" and "step_500.pt" in empty["summary"]
    [ok] = by_kind(report, "checkpoint")
    assert ok["data"]["size"] == 4096
    [gap] = by_kind(report, "gap")
    assert 5300 < gap["data"]["gap_s"] < 5500 and gap["severity"] == "notice"


def test_growing_checkpoint(tmp_path, env, monkeypatch):
    d = tmp_path / "run"
    (d / "ckpt").mkdir(parents=True)
    target = d / "ckpt" / "model.safetensors"
    target.write_bytes(b"x" * 10)
    writer = subprocess.Popen([sys.executable, "-c", (
        "import time,sys\n"
        "f=open(sys.argv[1],'ab')\n"
        "for i in range(40):\n"
        "    f.write(b'y'*4096); f.flush(); time.sleep(0.05)\n"), str(target)])
    try:
        rules = probe.load_rules(str(d))
        opts = probe.Options(run_dir=str(d), logs=[])
        findings = probe_files.checkpoints(opts, rules, time.monotonic() + 8, {})
    finally:
        writer.wait()
    [grow] = [f for f in findings if f.kind == "growing"]
    assert "still being written" in grow.summary


def engine_findings(path, rules, engine):
    fs = probe_logs.scan_log(path, rules, time.monotonic() + 8, engine=engine)
    return [(f.kind, f.lineno, f.line, f.count) for f in fs if f.kind != "log_file"]


@pytest.mark.parametrize("engine", ["grep", "rg"])
def test_search_engines_agree_with_python(tmp_path, engine):
    if shutil.which(engine) is None:
        pytest.skip(f"no {engine} here")
    rules = probe.load_rules(str(tmp_path))
    # The fixtures, and a diverged log: a grad-norm explosion (only the regex anchor holds
    # it) deep in the NaN flood, past the point where NaN hits are only counted.
    div = tmp_path / "div.log"
    div.write_text("".join(f"step {i} | loss=2.0 | grad_norm=0.{i:04d}\n" for i in range(50))
                   + "".join(f"step {i} | loss=nan | grad_norm=nan\n" for i in range(50, 1500))
                   + "step 1500 | loss=3.0 | grad_norm=1.5e+04\n"
                   + "".join(f"step {i} | loss=nan | grad_norm=nan\n" for i in range(1501, 1600))
                   + "Traceback (most recent call last):\n  File \"x.py\", line 1\nRuntimeError: loss is nan\n")
    paths = [os.path.join(FIXTURES, "runs", n, "train.log") for n in ("oom", "nan", "nccl", "early_stop", "empty_ckpt")]
    for path in paths + [str(div)]:
        got = engine_findings(path, rules, engine)
        assert got == engine_findings(path, rules, "python"), path
        assert got
    kinds = {k: (n, c) for k, n, _, c in engine_findings(str(div), rules, engine)}
    assert kinds["grad_explosion"] == (1501, 1) and kinds["nan_loss"] == (51, 1549)


def test_a_broken_rg_falls_back_to_the_same_findings(tmp_path, monkeypatch):
    # An rg that rejects its arguments (an old build, a wrapper): the scan uses grep or
    # Python instead and says nothing is missing.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "rg"
    fake.write_text("#!/bin/sh\necho 'rg: unrecognized flag' >&2\nexit 2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setattr(probe_logs, "_pcre2", None)
    monkeypatch.delenv("LEDGER_PROBE_ENGINE", raising=False)
    rules = probe.load_rules(str(tmp_path))
    path = os.path.join(FIXTURES, "runs", "nan", "train.log")
    assert probe_logs.engine_name() == "rg"
    fs = probe_logs.scan_log(path, rules, time.monotonic() + 8, engine="rg")
    [state] = [f for f in fs if f.kind == "log_file"]
    assert state.data["complete"] is True
    assert [(f.kind, f.lineno, f.line, f.count) for f in fs if f.kind != "log_file"] == \
        engine_findings(path, rules, "python")


def test_python_engine_handles_chunk_boundaries(tmp_path, monkeypatch):
    monkeypatch.setattr(probe_logs, "CHUNK", 64)
    path = tmp_path / "x.log"
    lines = [f"step {i} loss=1.0" for i in range(50)] + ["step 50 loss=nan"] + [f"step {i} ok" for i in range(51, 60)]
    path.write_text("\n".join(lines))  # no final newline
    rules = probe.load_rules(str(tmp_path))
    fs = probe_logs.scan_log(str(path), rules, time.monotonic() + 8, engine="python")
    [nan] = [f for f in fs if f.kind == "nan_loss"]
    assert nan.line == "step 50 loss=nan" and nan.lineno == 51
    [step] = [f for f in fs if f.kind == "last_step"]
    assert step.line == "step 59 ok"


def test_long_lines_are_quoted_as_a_verbatim_excerpt(tmp_path):
    path = tmp_path / "bar.log"
    long = "x" * 5000 + " RuntimeError: CUDA error: an illegal memory access was encountered " + "y" * 5000
    path.write_text("start\n" + long + "\nend\n")
    rules = probe.load_rules(str(tmp_path))
    [f] = [f for f in probe_logs.scan_log(str(path), rules, time.monotonic() + 8) if f.kind == "cuda_error"]
    assert len(f.line) <= probe.MAX_QUOTE and f.line in long and "illegal memory access" in f.line


def test_progress_bar_redraws_keep_the_last_frame(tmp_path):
    path = tmp_path / "tqdm.log"
    path.write_bytes(b"epoch 1\n 10%|#  | 10/100\r 20%|## | 20/100\r\x1b[31m 30%|###| 30/100\x1b[0m\n")
    rules = probe.load_rules(str(tmp_path))
    tails = {}
    probe_logs.scan_log(str(path), rules, time.monotonic() + 8, tails=tails)
    assert list(tails.values())[0][-1] == " 30%|###| 30/100"


# ----------------------------------------------------------------------------- kernel, gpu

def test_kernel_findings_quote_dmesg_lines(tmp_path, env):
    report = probe_json(env, "--run-dir", str(tmp_path))
    kernel = [f for f in report["findings"] if f["probe"] == "kernel"]
    kinds = {f["kind"] for f in kernel}
    assert {"oom_kill", "xid", "nfs", "segfault_kernel", "hung_task"} <= kinds
    [oom] = [f for f in kernel if f["kind"] == "oom_kill"]
    assert oom["summary"].startswith("OOM kill of pid 4121 (python)")
    assert oom["line"].startswith("[  812.345678] Out of memory: Killed process 4121 (python)")
    [xid] = [f for f in kernel if f["kind"] == "xid"]
    assert "Xid 79" in xid["summary"] and "fallen off the bus" in xid["summary"]
    for f in kernel:
        assert_verbatim(f, os.path.join(FIXTURES, "dmesg.txt"))
    # The journal repeats the OOM kill; only its new line (a hardware error) is reported.
    journal = [f for f in report["findings"] if f["probe"] == "journal"]
    assert [f["kind"] for f in journal] == ["hardware_error"]
    assert_verbatim(journal[0], os.path.join(FIXTURES, "journal.txt"))


def test_since_filters_old_kernel_messages(tmp_path, env):
    # dmesg stamps its lines in seconds since boot. The fixture's lines (612-950 s) lie in the
    # future on a machine booted minutes ago, where the probe rightly keeps them, so here they
    # are moved to the first second after boot: older than "1s ago" on any machine.
    stubs = tmp_path / "stubs"
    shutil.copytree(FIXTURES, stubs)
    with open(os.path.join(FIXTURES, "dmesg.txt"), encoding="utf-8") as f:
        text = f.read()
    (stubs / "dmesg.txt").write_text(
        re.sub(r"^\[\s*(\d+\.\d+)\]", lambda m: "[%12.6f]" % (float(m.group(1)) / 1000), text, flags=re.M),
        encoding="utf-8")
    env = dict(env, PROBE_STUB_DIR=str(stubs))
    report = probe_json(env, "--run-dir", str(tmp_path))
    assert "xid" in [f["kind"] for f in report["findings"] if f["probe"] == "kernel"]
    report = probe_json(env, "--run-dir", str(tmp_path), "--since", "1s")
    assert [f["kind"] for f in report["findings"] if f["probe"] == "kernel"] == ["quiet"]


def test_gpu_rows_and_processes(tmp_path, env):
    report = probe_json(env, "--run-dir", str(tmp_path))
    gpus = by_kind(report, "gpu", "gpu")
    assert [g["data"]["index"] for g in gpus] == ["0", "1"]
    [full] = by_kind(report, "memory_full")
    assert full["summary"].startswith("gpu 0: memory 99% used")
    [hot] = by_kind(report, "hot")
    assert hot["summary"] == "gpu 1: 88 C"
    [idle] = by_kind(report, "idle_with_process")
    assert idle["summary"].startswith("gpu 0: 0% busy")
    apps = by_kind(report, "gpu_process")
    assert {a["data"]["pid"] for a in apps} == {4121, 4122}
    for f in gpus + apps:
        src = "nvidia-smi-gpus.csv" if f["kind"] == "gpu" else "nvidia-smi-apps.csv"
        assert_verbatim(f, os.path.join(FIXTURES, src))


def test_missing_tools_are_findings_not_failures(tmp_path, env):
    empty = tmp_path / "emptybin"
    empty.mkdir()
    env = dict(env, PATH=str(empty))
    report = probe_json(env, "--run-dir", run_dir(tmp_path, "nan"))
    summaries = {f["summary"] for f in report["findings"] if f["severity"] == "unavailable"}
    assert "gpu: nvidia-smi not found (nor rocm-smi)" in summaries
    assert "kernel: dmesg not found" in summaries
    assert "journal: journalctl not found" in summaries
    # Without grep on PATH the Python scanner still finds the divergence.
    assert by_kind(report, "nan_loss")[0]["lineno"] == 306


def test_permission_denied_is_reported(tmp_path, env):
    report = probe_json(dict(env, PROBE_STUB_DENY="1"), "--run-dir", str(tmp_path))
    [denied] = [f for f in report["findings"] if f["probe"] == "kernel"]
    assert denied["kind"] == "permission" and denied["summary"] == "kernel: dmesg permission denied"
    assert denied["line"] == "dmesg: read kernel buffer failed: Operation not permitted"


def test_a_hanging_tool_times_out(tmp_path, monkeypatch):
    slow = tmp_path / "bin"
    slow.mkdir()
    (slow / "dmesg").write_text(f"#!/bin/sh\n{shutil.which('sleep')} 30\n")
    (slow / "dmesg").chmod(0o755)
    monkeypatch.setenv("PATH", str(slow))
    monkeypatch.setattr(probe_host, "TOOL_TIMEOUT_S", 0.5)
    findings = probe_host.kernel(probe.Options(run_dir=str(tmp_path), logs=[]), probe.load_rules(), 0, {})
    assert findings[0].kind == "tool_timeout"


# ------------------------------------------------------------------------------- disk, procs

def test_network_mount_is_named(tmp_path, monkeypatch):
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/vda / ext4 rw 0 0\nfs01:/export/runs {tmp_path} nfs4 rw,relatime,vers=4.2 0 0\n")
    monkeypatch.setattr(probe_files, "MOUNTS", str(mounts))
    findings = probe_files.disk(probe.Options(run_dir=str(tmp_path), logs=[]), probe.load_rules(), time.monotonic() + 5, {})
    [net] = [f for f in findings if f.kind == "network_mount"]
    assert net.line == f"fs01:/export/runs {tmp_path} nfs4 rw,relatime,vers=4.2 0 0"
    assert "nfs4" in net.summary


def test_full_disk_on_a_small_tmpfs(tmp_path, env):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a tmpfs")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        with open(mnt / "train.log", "w") as f:
            f.write("step 1 loss=2.0\nOSError: [Errno 28] No space left on device\n")
        fd = os.open(mnt / "filler.bin", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        report = probe_json(env, "--run-dir", str(mnt))
        [full] = by_kind(report, "disk_full", "disk")
        assert full["severity"] == "error" and "tmpfs" in full["line"]
        assert by_kind(report, "disk_full", "log")[0]["line"] == "OSError: [Errno 28] No space left on device"
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def _wait_for(pred, timeout=5):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_duplicate_launch_and_zombie_from_real_processes(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import time\ntime.sleep(30)\n")
    quick = tmp_path / "quick.py"
    quick.write_text("pass\n")
    a = subprocess.Popen([sys.executable, str(script), "--lr", "3e-4"])
    b = subprocess.Popen([sys.executable, str(script), "--lr", "3e-4"])
    z = subprocess.Popen([sys.executable, str(quick)])
    try:
        assert _wait_for(lambda: probe_host._read_proc(z.pid)["state"] == "Z")
        assert _wait_for(lambda: all(probe_host._read_proc(p.pid)["argv"][1:2] == [str(script)] for p in (a, b)))
        opts = probe.Options(run_dir=str(tmp_path), logs=[], pid=z.pid)
        findings = probe_host.processes(opts, probe.load_rules(), time.monotonic() + 5, {})
        [dup] = [f for f in findings if f.kind == "duplicate"]
        assert {a.pid, b.pid} <= set(dup.data["pids"])
        [zombie] = [f for f in findings if f.data.get("pid") == z.pid]
        assert zombie.severity == "warn" and "zombie" in zombie.summary
        [mine] = [f for f in findings if f.data.get("pid") == a.pid]
        assert mine.data["state"] in ("S", "R") and mine.line.startswith(f"{a.pid} ")
    finally:
        for p in (a, b):
            p.kill()
            p.wait()
        z.wait()
    gone = probe_host.processes(probe.Options(run_dir=str(tmp_path), logs=[], pid=z.pid), probe.load_rules(), 0, {})
    assert [f.kind for f in gone if f.kind == "gone"] == ["gone"]


# ------------------------------------------------------------------------------ rules, cli

def test_project_rules_add_and_disable_signatures(tmp_path, env):
    d = tmp_path / "run"
    (d / ".evidence-ledger" / "rules").mkdir(parents=True)
    (d / ".evidence-ledger" / "rules" / "probe-team.toml").write_text(
        '[[signature]]\nid = "dataloader_stall"\nsource = "log"\nseverity = "warn"\n'
        'summary = "dataloader stalled for {secs} s"\nanchors = ["DataLoader timed out"]\n'
        "match = 'DataLoader timed out after (?P<secs>\\d+) seconds'\n\n"
        '[[signature]]\nid = "early_stop"\nenabled = false\n')
    (d / "train.log").write_text("step 1\nRuntimeError: DataLoader timed out after 300 seconds\nEpoch 3: early stopping\n")
    report = probe_json(env, "--run-dir", str(d))
    [stall] = by_kind(report, "dataloader_stall")
    assert stall["summary"] == "dataloader stalled for 300 s" and stall["lineno"] == 2
    assert by_kind(report, "early_stop") == []


def test_a_bad_rule_names_its_file(tmp_path, env):
    d = tmp_path / "run"
    (d / ".evidence-ledger" / "rules").mkdir(parents=True)
    (d / ".evidence-ledger" / "rules" / "probe-bad.toml").write_text(
        '[[signature]]\nid = "broken"\nsource = "log"\nanchors = ["ok anchor"]\nmatch = "(unclosed"\n')
    result = CliRunner().invoke(cli, ["probe", "--run-dir", str(d)], env=env)
    assert result.exit_code == 1
    assert "probe-bad.toml" in result.output and "broken" in result.output and "match" in result.output


def test_text_report_leads_with_findings_and_quotes_lines_indented(tmp_path, env):
    d = run_dir(tmp_path, "oom")
    result = CliRunner().invoke(cli, ["probe", "--run-dir", d], env=env)
    assert result.exit_code == 0
    out = result.output.splitlines()
    assert out[0].startswith("ledger probe: ") and "problem" in out[0]
    assert out[3] == "## problems"
    i = next(n for n, line in enumerate(out) if line.startswith("kernel: OOM kill of pid 4121 (python)"))
    assert out[i + 1] == "    [  812.345678] Out of memory: Killed process 4121 (python) total-vm:98765432kB, anon-rss:65432100kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:131072kB oom_score_adj:0"
    i = next(n for n, line in enumerate(out) if "traceback ends in torch.OutOfMemoryError" in line)
    assert out[i].startswith("log ") and ":409: " in out[i]
    with open(os.path.join(d, "train.log")) as f:
        assert out[i + 1][4:] in f.read().splitlines()
    assert out.index("## problems") < out.index("## state")


def test_help_teaches(env):
    result = CliRunner().invoke(cli, ["probe", "--help"], env=env)
    for word in ("dmesg", "nvidia-smi", "/proc", "checkpoints", "quote", "evidence", "--since"):
        assert word in result.output


def test_parse_duration():
    assert probe.parse_duration("90s") == 90
    assert probe.parse_duration("1h30m") == 5400
    assert probe.parse_duration("2d") == 172800
    assert probe.parse_duration("45") == 45
    with pytest.raises(ValueError):
        probe.parse_duration("soon")


def test_real_subprocess_with_stubs_first_on_path(tmp_path, env):
    d = run_dir(tmp_path, "nccl")
    full_env = dict(os.environ, **env)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run([sys.executable, "-m", "ledger", "probe", "--run-dir", d, "--json"], cwd=repo,
                       env=full_env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert by_kind(report, "nccl_timeout") and by_kind(report, "oom_kill")
    assert report["elapsed_s"] < 60


def test_thousands_of_hits_are_counted_and_the_last_is_still_checked(tmp_path):
    path = tmp_path / "div.log"
    lines = ["step 1 loss=2.0"] + [f"step {i} loss=nan" for i in range(2, 3002)] + ["nan nan nan (not a metric)"]
    path.write_text("\n".join(lines) + "\n")
    rules = probe.load_rules(str(tmp_path))
    [nan] = [f for f in probe_logs.scan_log(str(path), rules, time.monotonic() + 8) if f.kind == "nan_loss"]
    assert nan.lineno == 2 and nan.line == "step 2 loss=nan"
    assert nan.count == 3000 and nan.data["other_lineno"] == 3001
