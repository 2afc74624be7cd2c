"""Host probes: training processes (/proc), the kernel log, the journal, the GPUs.

Tools are found on PATH, so a test (or a user on an odd system) can put its own first.
"""

import os
import re
import shutil
import subprocess
import time

from ledger.probe import Finding, clean_line, excerpt, fmt_age, fmt_time, summarize

TOOL_TIMEOUT_S = 4.0
STATES = {"R": "running", "S": "sleeping", "D": "uninterruptible (D: waiting on I/O)",
          "Z": "zombie", "T": "stopped", "t": "traced", "I": "idle", "X": "dead"}


def run_tool(probe, argv, timeout=None):
    """(stdout lines, None) or (None, Finding saying why not). Never raises."""
    timeout = TOOL_TIMEOUT_S if timeout is None else timeout
    exe = shutil.which(argv[0])
    if exe is None:
        return None, Finding(probe, "missing_tool", "unavailable", f"{probe}: {argv[0]} not found")
    try:
        # Its own session, so a timeout kills the whole group: a wrapper script's children
        # would otherwise hold the pipes open (a wedged nvidia-smi is a classic).
        proc = subprocess.Popen([exe, *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                proc.kill()
            proc.communicate()
            return None, Finding(probe, "tool_timeout", "unavailable",
                                 f"{probe}: {argv[0]} gave no answer within {timeout:g} s")
        p = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
    except OSError as e:
        return None, Finding(probe, "tool_error", "unavailable", f"{probe}: {argv[0]} could not run ({e.strerror})")
    out = p.stdout.decode("utf-8", "replace").splitlines()
    if p.returncode != 0:
        err = clean_line((p.stderr or p.stdout).decode("utf-8", "replace").strip().splitlines()[-1:][0]
                         if (p.stderr or p.stdout).strip() else f"exit status {p.returncode}")
        denied = re.search(r"(?i)not permitted|permission denied|access denied|insufficient permissions", err)
        kind = "permission" if denied else "tool_failed"
        what = "permission denied" if denied else f"failed (exit {p.returncode})"
        return None, Finding(probe, kind, "unavailable", f"{probe}: {argv[0]} {what}", source=argv[0],
                             line=excerpt(err))
    return out, None


# -------------------------------------------------------------------------------- processes

def _boot_time():
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return time.time() - uptime, uptime


def _read_proc(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return None
    rparen = stat.rfind(")")
    comm = stat[stat.find("(") + 1:rparen]
    rest = stat[rparen + 2:].split()
    return {"pid": int(pid), "comm": comm, "state": rest[0], "ppid": int(rest[1]),
            "start_ticks": int(rest[19]), "argv": argv}


def _is_training(p, names, modules):
    argv = p["argv"]
    if not argv:
        # A zombie has no command line left, only its name.
        return p["state"] == "Z" and any(p["comm"].startswith(n) for n in names)
    base = os.path.basename(argv[0])
    if not any(base == n or (n.startswith("python") and re.fullmatch(r"python[\d.]*", base)) for n in names):
        return False
    if re.fullmatch(r"python[\d.]*", base):
        # A bare interpreter or `python -c` is not a run; a script or a module is.
        rest = [a for a in argv[1:] if not a.startswith("-") or a == "-m"]
        if not rest:
            return False
        if "-m" in argv:
            mod = argv[argv.index("-m") + 1] if argv.index("-m") + 1 < len(argv) else ""
            return not mod.startswith(("pytest", "pip", "ledger", "http.server", "json.tool")) or mod in modules
        script = os.path.basename(rest[0])
        return not script.startswith(("ledger", "pytest", "pip"))
    return True


def processes(opts, rules, deadline, extra):
    cfg = rules.table("processes")
    names = cfg.get("names", ["python", "torchrun"])
    modules = cfg.get("modules", [])
    try:
        boot, uptime = _boot_time()
        pids = [d for d in os.listdir("/proc") if d.isdigit()]
    except OSError as e:
        return [Finding("processes", "missing_tool", "unavailable", f"processes: /proc not readable ({e.strerror})")]
    hz = os.sysconf("SC_CLK_TCK")
    me = os.getpid()
    ancestors, p = set(), me
    procs = {}
    for pid in pids:
        info = _read_proc(pid)
        if info:
            procs[info["pid"]] = info
    while p in procs and p not in ancestors:
        ancestors.add(p)
        p = procs[p]["ppid"]
    findings = []
    train = {pid: p for pid, p in procs.items() if pid not in ancestors and _is_training(p, names, modules)}
    if opts.pid is not None:
        if opts.pid not in procs:
            findings.append(Finding("processes", "gone", "warn",
                                    f"process {opts.pid}: gone (no /proc/{opts.pid}); look for it in the kernel log below",
                                    data={"pid": opts.pid}))
        else:
            train.setdefault(opts.pid, procs[opts.pid])
    for pid, p in sorted(train.items()):
        age = uptime - p["start_ticks"] / hz
        cmd = " ".join(p["argv"]) or f"[{p['comm']}]"
        line = excerpt(clean_line(f"{pid} {p['state']} up {fmt_age(age)} ppid {p['ppid']} {cmd}"))
        state = STATES.get(p["state"], p["state"])
        sev, summary = "info", f"pid {pid} {state}, up {fmt_age(age)}: {cmd[:80]}"
        if p["state"] == "Z":
            sev, summary = "warn", f"pid {pid} is a zombie (exited, parent {p['ppid']} has not reaped it)"
        elif p["state"] == "D":
            wchan = _read_small(f"/proc/{pid}/wchan")
            sev = "warn"
            summary = f"pid {pid} in uninterruptible sleep (D), waiting in {wchan or 'the kernel'}: often stuck I/O"
        elif p["state"] in "Tt":
            sev, summary = "warn", f"pid {pid} is stopped ({state})"
        findings.append(Finding("processes", "process", sev, summary, source="/proc", line=line,
                                data={"pid": pid, "state": p["state"], "age_s": round(age), "argv": p["argv"],
                                      "started": fmt_time(boot + p["start_ticks"] / hz)}))
    findings.extend(_duplicates(train, procs))
    if not train and opts.pid is None:
        findings.append(Finding("processes", "none", "info",
                                "no training-like processes running (" + ", ".join(names) + ")"))
    return findings


def _duplicates(train, procs):
    """The same command line launched more than once, not counting a launcher's own workers."""
    groups = {}
    for pid, p in train.items():
        if p["state"] == "Z" or not p["argv"]:
            continue
        groups.setdefault(tuple(p["argv"]), []).append(p)
    findings = []
    for argv, members in groups.items():
        pids = {p["pid"] for p in members}
        launches = set()
        for p in members:
            # A forked worker (DataLoader, torchrun rank) has a same-command ancestor or shares
            # its parent with the other ranks; a separate launch has a parent of its own.
            a, same = p["ppid"], False
            for _ in range(64):
                if a in pids:
                    same = True
                    break
                if a not in procs:
                    break
                a = procs[a]["ppid"]
            if not same:
                # Ranks share a launcher parent (torchrun is itself in `train`); two launches
                # from one shell share a parent that is not a launcher.
                launches.add(p["ppid"] if p["ppid"] in train else -p["pid"])
        if len(launches) > 1:
            roots = sorted(p["pid"] for p in members if p["ppid"] in launches or -p["pid"] in launches)
            cmd = " ".join(argv)
            findings.append(Finding("processes", "duplicate", "warn",
                                    f"same command launched {len(launches)} times (pids {', '.join(map(str, roots))})",
                                    source="/proc", line=excerpt(clean_line(cmd)),
                                    data={"pids": roots}))
    return findings


def _read_small(path):
    try:
        with open(path) as f:
            return f.read(200).strip()
    except OSError:
        return ""


# ------------------------------------------------------------------------------ kernel log

_DMESG_TS = re.compile(r"^\[\s*(\d+(?:\.\d+)?)\]")


def kernel(opts, rules, deadline, extra):
    lines, problem = run_tool("kernel", ["dmesg"])
    if problem:
        extra["kernel_ok"] = False
        return [problem]
    boot = None
    try:
        boot, uptime = _boot_time()
    except OSError:
        uptime = None
    kept = []
    for line in lines:
        m = _DMESG_TS.match(line)
        ts = boot + float(m.group(1)) if (m and boot is not None) else None
        if opts.since_s is not None and ts is not None and ts < time.time() - opts.since_s:
            continue
        kept.append((clean_line(line), ts))
    findings = match_kernel(kept, rules, "kernel", "dmesg")
    extra["kernel_messages"] = {_message(f.line) for f in findings}
    extra["kernel_ok"] = True  # only now: the journal probe reads kernel_messages once it sees this
    if not findings:
        findings.append(Finding("kernel", "quiet", "info",
                                f"kernel log: none of {len(rules.of('kernel'))} failure signatures in {len(kept)} lines"))
    return findings


def _message(line):
    # What a kernel line says, without the dmesg or journal timestamp and host prefix.
    line = _DMESG_TS.sub("", line or "").strip()
    line = re.sub(r"^\S+T\S+ \S+ kernel: ", "", line)
    return line


def match_kernel(lines, rules, probe, source, per_signature=5):
    xid = {str(k): v for k, v in rules.table("xid").items()}
    found = {}
    for line, ts in lines:
        for sig in rules.of("kernel"):
            m = sig.match.search(line)
            if not m:
                continue
            groups = {k: v for k, v in m.groupdict().items() if v is not None}
            if sig.id == "xid":
                meaning = xid.get(groups.get("xid", ""))
                groups["meaning"] = f": {meaning}" if meaning else ""
            summary = summary_base = summarize(sig.summary, groups, sig.id)
            if ts is not None:
                summary += f" at {fmt_time(ts)}"
            bucket = found.setdefault(sig.id, {})
            # One OOM kill is logged as several lines; the last of them stands for all.
            bucket.pop(summary_base, None)
            bucket[summary_base] = (
                Finding(probe, sig.id, sig.severity, summary, source=source, line=excerpt(line, m.start()),
                        data={k: v for k, v in groups.items() if k != "meaning"}))
            break
    out = []
    for sig_id, bucket in found.items():
        fs = list(bucket.values())
        # Newest few of each kind; the rest are counted on the newest.
        newest = fs[-per_signature:]
        if len(fs) > per_signature:
            newest[-1].data["more"] = len(fs) - per_signature
            newest[-1].summary += f" (+{len(fs) - per_signature} older)"
        out.extend(reversed(newest))
    return out


def journal(opts, rules, deadline, extra):
    since = opts.since_s if opts.since_s is not None else 24 * 3600
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - since))
    lines, problem = run_tool("journal", ["journalctl", "--no-pager", "-q", "-o", "short-iso",
                                          "-p", "notice", "-n", "5000", "--since", stamp])
    if problem:
        return [problem]
    # The kernel probe may still be reading dmesg; wait briefly so the same message is not
    # reported twice.
    while time.monotonic() < deadline - 0.5:
        if "kernel_ok" in extra:
            break
        time.sleep(0.05)
    seen = extra.get("kernel_messages", set())
    kept = [(clean_line(line), None) for line in lines]
    findings = [f for f in match_kernel(kept, rules, "journal", "journalctl") if _message(f.line) not in seen]
    return findings


# ------------------------------------------------------------------------------------- gpu

GPU_FIELDS = "index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,uuid"
APP_FIELDS = "gpu_uuid,pid,process_name,used_memory"


def gpu(opts, rules, deadline, extra):
    cfg = rules.table("gpu")
    if shutil.which("nvidia-smi") is None:
        if shutil.which("rocm-smi"):
            return _rocm()
        return [Finding("gpu", "missing_tool", "unavailable", "gpu: nvidia-smi not found (nor rocm-smi)")]
    rows, problem = run_tool("gpu", ["nvidia-smi", f"--query-gpu={GPU_FIELDS}", "--format=csv,noheader,nounits"])
    if problem:
        if problem.line:
            problem.summary = f"gpu: nvidia-smi failed: {problem.line[:120]}"
            problem.severity = "error" if "driver" in problem.line.lower() else problem.severity
        return [problem]
    findings, by_uuid = [], {}
    for row in rows:
        cells = [c.strip() for c in row.split(",")]
        if len(cells) < 7:
            continue
        idx, name, util, used, total, temp, uuid = cells[:7]
        by_uuid[uuid] = idx
        line = clean_line(row)
        findings.append(Finding("gpu", "gpu", "info",
                                f"gpu {idx} {name}: {util}% busy, {used}/{total} MiB, {temp} C",
                                source="nvidia-smi", line=line,
                                data={"index": idx, "util": util, "used_mib": used, "total_mib": total, "temp_c": temp}))
        u, t, tc = _num(used), _num(total), _num(temp)
        if u is not None and t and u / t >= cfg.get("warn_memory_fraction", 0.95):
            findings.append(Finding("gpu", "memory_full", "warn", f"gpu {idx}: memory {u / t:.0%} used ({used}/{total} MiB)",
                                    source="nvidia-smi", line=line))
        if tc is not None and tc >= cfg.get("warn_temperature_c", 85):
            findings.append(Finding("gpu", "hot", "warn", f"gpu {idx}: {temp} C", source="nvidia-smi", line=line))
    apps, problem = run_tool("gpu", ["nvidia-smi", f"--query-compute-apps={APP_FIELDS}", "--format=csv,noheader,nounits"])
    if problem:
        findings.append(problem)
        apps = []
    busy = set()
    for row in apps:
        cells = [c.strip() for c in row.split(",")]
        if len(cells) < 4 or not cells[1].isdigit():
            continue
        uuid, pid, pname, mem = cells[:4]
        idx = by_uuid.get(uuid, uuid)
        busy.add(idx)
        alive = os.path.exists(f"/proc/{pid}")
        summary = f"gpu {idx}: pid {pid} ({pname}) holds {mem} MiB"
        sev = "info"
        if not alive:
            summary += "; pid not visible here (another container, or exited without freeing)"
            sev = "notice"
        findings.append(Finding("gpu", "gpu_process", sev, summary, source="nvidia-smi", line=clean_line(row),
                                data={"gpu": idx, "pid": int(pid), "name": pname, "used_mib": mem}))
    for f in [f for f in findings if f.kind == "gpu"]:
        if f.data["index"] in busy and _num(f.data["util"]) == 0:
            findings.append(Finding("gpu", "idle_with_process", "warn",
                                    f"gpu {f.data['index']}: 0% busy while a process holds memory (stalled or waiting?)",
                                    source="nvidia-smi", line=f.line))
    if not rows:
        findings.append(Finding("gpu", "no_gpus", "notice", "gpu: nvidia-smi lists no GPUs"))
    return findings


def _rocm():
    rows, problem = run_tool("gpu", ["rocm-smi", "--showuse", "--showmemuse", "--showtemp", "--csv"])
    if problem:
        return [problem]
    findings = []
    for row in rows:
        if row.startswith("card"):
            findings.append(Finding("gpu", "gpu", "info", f"gpu (rocm-smi) {row.split(',')[0]}",
                                    source="rocm-smi", line=clean_line(row)))
    return findings or [Finding("gpu", "no_gpus", "notice", "gpu: rocm-smi lists no GPUs")]


def _num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None
