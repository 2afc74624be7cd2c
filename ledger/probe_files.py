"""File probes: the run directory's disk (free space, biggest items, network mount) and its
checkpoints (newest, empty, still being written, how long before the log's last write)."""

import fnmatch
import os
import time

from ledger.probe import Finding, fmt_age, fmt_bytes, fmt_time

GROWTH_SAMPLE_S = 1.0
WALK_LIMIT = 20000


MOUNTS = "/proc/mounts"


def _mount_of(path, mounts=None):
    """The /proc/mounts line of the filesystem holding `path` (longest mount point prefix)."""
    real = os.path.realpath(path)
    best = None
    try:
        with open(mounts or MOUNTS, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3:
                    continue
                point = parts[1].replace("\\040", " ")
                if real == point or real.startswith(point.rstrip("/") + "/") or point == "/":
                    if best is None or len(point) >= len(best[0]):
                        best = (point, parts[2], line.rstrip("\n"))
    except OSError:
        return None
    return best


def disk(opts, rules, deadline, extra):
    cfg = rules.table("disk")
    run_dir = opts.run_dir
    try:
        st = os.statvfs(run_dir)
    except FileNotFoundError:
        return [Finding("disk", "missing", "unavailable", f"disk: run dir {run_dir} does not exist")]
    total = st.f_blocks * st.f_frsize
    avail = st.f_bavail * st.f_frsize
    mount = _mount_of(run_dir)
    fstype = mount[1] if mount else "?"
    used_pct = 100.0 * (1 - avail / total) if total else 100.0
    line = (f"{run_dir}: {fmt_bytes(avail)} available of {fmt_bytes(total)} ({used_pct:.0f}% used), "
            f"filesystem {fstype} on {mount[0] if mount else '?'}")
    findings = []
    data = {"total": total, "available": avail, "fstype": fstype,
            "inodes_free": st.f_favail, "mount": mount[0] if mount else None}
    if avail <= cfg.get("error_free_bytes", 100 << 20) or (st.f_files and st.f_favail == 0):
        what = "no inodes left" if (st.f_files and st.f_favail == 0) else f"only {fmt_bytes(avail)} left"
        findings.append(Finding("disk", "disk_full", "error", f"run dir filesystem is full: {what}",
                                source="statvfs", line=line, data=data))
    elif total and avail / total < cfg.get("warn_free_fraction", 0.05):
        findings.append(Finding("disk", "disk_low", "warn", f"run dir filesystem nearly full ({used_pct:.0f}% used)",
                                source="statvfs", line=line, data=data))
    else:
        findings.append(Finding("disk", "disk_free", "info", f"{fmt_bytes(avail)} free ({used_pct:.0f}% used)",
                                source="statvfs", line=line, data=data))
    network = cfg.get("network_fs", [])
    if mount and (fstype in network or fstype.split(".")[-1] in network):
        findings.append(Finding("disk", "network_mount", "notice",
                                f"run dir is on a network filesystem ({fstype} at {mount[0]}): slow or stale I/O is possible",
                                source="/proc/mounts", line=mount[2]))
    biggest = _largest(run_dir, deadline)
    if biggest:
        findings.append(Finding("disk", "largest", "info", "largest items in the run dir",
                                source=run_dir, line="  ".join(f"{n} {fmt_bytes(s)}" for s, n in biggest),
                                data={"items": [[n, s] for s, n in biggest]}))
    return findings


def _largest(run_dir, deadline, top=5):
    sizes = []
    try:
        entries = list(os.scandir(run_dir))
    except OSError:
        return []
    budget = [WALK_LIMIT]
    for e in entries:
        if time.monotonic() > deadline - 1:
            break
        try:
            if e.is_dir(follow_symlinks=False):
                sizes.append((_du(e.path, budget), e.name + "/"))
            else:
                sizes.append((e.stat(follow_symlinks=False).st_size, e.name))
        except OSError:
            continue
    sizes.sort(key=lambda x: (-x[0], x[1]))
    return sizes[:top]


def _du(path, budget):
    total = 0
    stack = [path]
    while stack and budget[0] > 0:
        try:
            it = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in it:
            budget[0] -= 1
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                else:
                    total += e.stat(follow_symlinks=False).st_size
            except OSError:
                pass
    return total


def find_checkpoints(run_dir, rules, limit=WALK_LIMIT):
    cfg = rules.table("checkpoints")
    globs = cfg.get("globs", ["*.pt", "*.ckpt", "*.safetensors"])
    dir_globs = cfg.get("dir_globs", ["checkpoint*"])
    found = []
    stack = [(run_dir, False)]
    seen = 0
    while stack and seen < limit:
        d, inside = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            seen += 1
            try:
                if e.is_dir(follow_symlinks=False):
                    if not e.name.startswith("."):
                        stack.append((e.path, inside or any(fnmatch.fnmatch(e.name, g) for g in dir_globs)))
                elif inside or any(fnmatch.fnmatch(e.name, g) for g in globs):
                    st = e.stat(follow_symlinks=False)
                    found.append((e.path, st.st_size, st.st_mtime))
            except OSError:
                continue
    return found


def checkpoints(opts, rules, deadline, extra):
    from ledger import probe_logs

    found = find_checkpoints(opts.run_dir, rules)
    if not found:
        return [Finding("checkpoints", "none", "notice", f"no checkpoint files found under {opts.run_dir}")]
    found.sort(key=lambda x: x[2], reverse=True)
    newest = found[:5]
    findings = []
    now = time.time()
    # Sample sizes twice: a checkpoint still growing is being written (or the writer hung).
    time.sleep(min(GROWTH_SAMPLE_S, max(0.0, deadline - time.monotonic() - 2)))
    for path, size, mtime in newest:
        rel = os.path.relpath(path, opts.run_dir)
        try:
            size2 = os.stat(path).st_size
        except OSError:
            size2 = size
        line = f"{rel}  {size} bytes  {fmt_time(mtime)}"
        data = {"path": rel, "size": size, "mtime": mtime}
        if size2 != size:
            findings.append(Finding("checkpoints", "growing", "warn",
                                    f"{rel} is still being written ({fmt_bytes(size)} -> {fmt_bytes(size2)} in {GROWTH_SAMPLE_S:.0f} s)",
                                    source="stat", line=line, data=data))
        elif size == 0:
            findings.append(Finding("checkpoints", "empty", "error", f"{rel} is empty (0 bytes): a save that failed or was cut off",
                                    source="stat", line=line, data=data))
        else:
            findings.append(Finding("checkpoints", "checkpoint", "info",
                                    f"{rel}: {fmt_bytes(size)}, written {fmt_age(now - mtime)} ago",
                                    source="stat", line=line, data=data))
    older_empty = [(p, s, m) for p, s, m in found[5:] if s == 0]
    for path, size, mtime in older_empty[:5]:
        rel = os.path.relpath(path, opts.run_dir)
        findings.append(Finding("checkpoints", "empty", "error", f"{rel} is empty (0 bytes)", source="stat",
                                line=f"{rel}  {size} bytes  {fmt_time(mtime)}"))
    logs = list(opts.logs) or probe_logs.discover(opts.run_dir, rules)
    log_times = []
    for p in logs:
        try:
            log_times.append((os.stat(p).st_mtime, p))
        except OSError:
            pass
    if log_times:
        log_m, log_p = max(log_times)
        ck_m = newest[0][2]
        gap = log_m - ck_m
        rel = os.path.relpath(newest[0][0], opts.run_dir)
        line = f"last checkpoint {fmt_time(ck_m)}  last log write {fmt_time(log_m)} ({probe_logs.display_name(log_p)})"
        if gap > 0:
            findings.append(Finding("checkpoints", "gap", "notice" if gap > 3600 else "info",
                                    f"newest checkpoint ({rel}) is {fmt_age(gap)} older than the log's last write",
                                    source="stat", line=line, data={"gap_s": round(gap)}))
    return findings
