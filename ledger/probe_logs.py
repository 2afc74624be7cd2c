"""The log probe: failure signatures across a whole log, fast, plus its tail and progress.

Candidate lines come from the signatures' anchors in one pass over the file, by the best
engine on PATH. ripgrep first: its SIMD multi-literal search for the fixed anchors and a
second rg (PCRE2 where built in) for the regex anchors, side by side. Then GNU/BSD grep:
every anchor in one extended regex (one DFA pass in C, in the C locale), the file cut into
line-aligned byte ranges, one grep per core. Otherwise Python scans the file in big chunks
with bytes.find, one anchor at a time. Either way Python then decides on each candidate line
with the signature's regex, so the engines report the same findings.
"""

import errno
import fnmatch
import os
import re
import shutil
import subprocess
import threading
import time

from ledger.probe import Finding, clean_line, excerpt, fmt_age, fmt_bytes, summarize

CHUNK = 16 << 20
LINE_NUMBERS_UP_TO = 512 << 20   # beyond this, findings name byte offsets (deterministic)
TRACEBACK_WINDOW = 256 << 10
PROGRESS_WINDOWS = (1 << 20, 16 << 20, 64 << 20)
MAX_CANDIDATES = 2_000_000
MIN_RANGE = 64 << 20   # a smaller file is one grep: starting more costs more than it saves
SATURATE = 1000


def logs(opts, rules, deadline, extra):
    paths_ = list(opts.logs) or discover(opts.run_dir, rules)
    findings = []
    if not paths_:
        return [Finding("log", "no_logs", "unavailable",
                        f"log: no log files given (--log) or found in {opts.run_dir}")]
    tails = extra.setdefault("tails", {})
    for path in paths_:
        findings.extend(scan_log(path, rules, deadline, opts.tail, tails))
    return findings


def discover(run_dir, rules, limit=3):
    globs = rules.table("logs").get("globs", ["*.log", "*.out", "*.err"])
    found = []
    for root, dirs, files, depth in _walk(run_dir, 2):
        for name in files:
            if any(fnmatch.fnmatch(name, g) for g in globs):
                p = os.path.join(root, name)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                if st.st_size > 0:
                    found.append((st.st_mtime, p))
    found.sort(reverse=True)
    return [p for _, p in found[:limit]]


def _walk(top, max_depth):
    stack = [(top, 0)]
    seen = 0
    while stack:
        d, depth = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        dirs, files = [], []
        for e in entries:
            seen += 1
            try:
                if e.is_dir(follow_symlinks=False):
                    if not e.name.startswith("."):
                        dirs.append(e.name)
                else:
                    files.append(e.name)
            except OSError:
                pass
        yield d, dirs, files, depth
        if depth < max_depth and seen < 20000:
            stack.extend((os.path.join(d, n), depth + 1) for n in dirs)


def display_name(path):
    cwd = os.getcwd()
    ap = os.path.abspath(path)
    return os.path.relpath(ap, cwd) if ap.startswith(cwd + os.sep) else path


# ------------------------------------------------------------------------------ candidates

def engine_name():
    forced = os.environ.get("LEDGER_PROBE_ENGINE")
    if forced in ("python", "grep", "rg"):
        return forced
    if shutil.which("rg"):
        return "rg"
    return "grep" if shutil.which("grep") else "python"


class EngineFailed(Exception):
    """The search tool ran but refused (a pattern it cannot parse, an unknown flag)."""


def candidates(path, sigs, deadline, engine=None):
    """{line_start_offset: line_bytes} for every line holding an anchor; whether complete; and
    the offsets of the lines the regex anchors matched, or None when the engine cannot tell
    (grep's one pass reports both kinds of anchor alike)."""
    fixed = sorted({a for s in sigs for a in s.anchors})
    regexes = sorted({a for s in sigs for a in s.anchor_regex})
    engine = engine or engine_name()
    if engine == "rg":
        try:
            return _rg_candidates(path, fixed, regexes, deadline)
        except (OSError, EngineFailed):
            # An old or odd rg: grep gives the same candidates, only slower.
            engine = "grep" if shutil.which("grep") else "python"
    if engine == "grep":
        try:
            return _grep_candidates(path, fixed, regexes, deadline)
        except (OSError, EngineFailed):
            pass
    return _python_candidates(path, fixed, regexes, deadline)


def _grep_candidates(path, fixed, regexes, deadline):
    # One extended regex for every anchor: GNU grep runs it as a single DFA pass, several
    # times faster than its multi-string search (-F with many strings) on a log whose
    # bytes are mostly letters and digits. The file is cut into line-aligned byte ranges,
    # one grep per core.
    pattern = "|".join([_ere_escape(a) for a in fixed] + [f"({r})" for r in regexes])
    size = os.path.getsize(path)
    cores = os.cpu_count() or 1
    ranges = _ranges(path, size, max(1, min(cores, 4, size // MIN_RANGE + 1)))
    argv = ["grep", "-a", "-b", "-E", "-e", pattern]
    out, complete, _ = _search(path, size, [(argv, start, end, False) for start, end in ranges], deadline,
                               file_arg=False)
    return out, complete, None


_RG = ["rg", "--no-config", "-a", "-b", "-N", "--no-filename", "--no-heading", "--color", "never",
       "--no-unicode", "--encoding", "none"]
_pcre2 = None


def _rg_has_pcre2():
    global _pcre2
    if _pcre2 is None:
        try:
            _pcre2 = subprocess.run(["rg", "--pcre2-version"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, timeout=5).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _pcre2 = False
    return _pcre2


def _rg_candidates(path, fixed, regexes, deadline):
    # Two searches, not one regex: rg finds the fixed anchors with its SIMD multi-literal
    # search at GB/s, but an alternation that also holds the grad-norm regex drops it to
    # the regex engine on every "grad_norm=" (most lines of a training log), three times
    # slower. The regex anchors go to a second rg, under PCRE2's JIT where rg has it
    # (twice its own engine on this pattern). --no-unicode keeps both on bytes: no
    # transcoding (offsets stay file offsets) and a class is one byte, as in grep -E and
    # Python. Each search is one process per byte range, so the work spreads over the cores.
    size = os.path.getsize(path)
    searches = []
    if fixed:
        searches.append((_RG + ["-F"] + [x for a in fixed for x in ("-e", a)], False))
    if regexes:
        searches.append((_RG + (["-P"] if _rg_has_pcre2() else []) + [x for r in regexes for x in ("-e", r)], True))
    if not searches:
        return {}, True, set()
    # Cut the file only when there are cores to spare: two whole-file searches on two cores
    # beat four over pipes (rg reads a pipe in small blocks; a file it reads directly).
    cores = os.cpu_count() or 1
    per = max(1, min(cores // len(searches), 4, size // MIN_RANGE + 1))
    ranges = _ranges(path, size, per)
    jobs = [(argv, start, end, tag) for start, end in ranges for argv, tag in searches]
    return _search(path, size, jobs, deadline, file_arg=True, strict=True)


def _search(path, size, jobs, deadline, file_arg, strict=False):
    """Run one search per (argv, start, end, tagged), each over its byte range of the file.

    Returns the lines found, whether complete, and the offsets of the lines that tagged
    searches found. file_arg: the tool takes the file (or "-" for stdin) as an argument (rg).
    strict: a search that exits with an error raises EngineFailed, so the caller can use
    another tool.
    """
    env = dict(os.environ, LC_ALL="C")
    out, tagged, lock, complete, failed = {}, set(), threading.Lock(), [True], []
    running = []
    try:
        for argv, start, end, tag in jobs:
            running.append(_start(path, size, argv, start, end, file_arg, env) + (tag,))
    except OSError:
        for p, *_ in running:
            p.kill()
        raise

    def read(p, base, tag):
        # Big reads and one split per block: a diverged log sends every line after the
        # divergence, and a readline per line costs more than the search.
        local, carry = {}, b""
        while len(local) <= MAX_CANDIDATES:
            block = p.stdout.read1(1 << 20) if hasattr(p.stdout, "read1") else p.stdout.read(1 << 20)
            if not block:
                break
            lines = (carry + block).split(b"\n")
            carry = lines.pop()
            for raw in lines:
                colon = raw.find(b":")
                if colon > 0:
                    local[base + int(raw[:colon])] = raw[colon + 1:]
        with lock:
            out.update(local)
            if tag:
                tagged.update(local)

    readers = [threading.Thread(target=read, args=(p, base, tag), daemon=True) for p, base, _, tag in running]
    for t in readers:
        t.start()
    for (p, _, feeder, _), t in zip(running, readers):
        t.join(max(0.0, deadline - time.monotonic()))
        if t.is_alive():
            complete[0] = False
            p.kill()
            t.join(1)
        else:
            p.stdout.close()
            err = p.stderr.read(4096)
            p.wait()
            if p.returncode not in (0, 1):
                complete[0] = False
                failed.append(err)
        p.stderr.close()
        if feeder is not None:
            feeder.join(1)
    if failed and strict:
        raise EngineFailed(failed[0].decode("utf-8", "replace").strip())
    return out, complete[0], tagged


def _start(path, size, argv, start, end, file_arg, env):
    if start == 0 and end >= size and file_arg:
        # The whole file: rg opens it itself (and maps it when it judges that faster; --mmap
        # measured no better, and a mapped file truncated under rg kills it with SIGBUS).
        p = subprocess.Popen(argv + ["--", path], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        return p, start, None
    fd = os.open(path, os.O_RDONLY)
    stdin = w = None
    try:
        if end >= size:
            os.lseek(fd, start, os.SEEK_SET)
            stdin = fd
        else:
            # Neither tool can stop at a byte offset: a thread pours the range into a pipe.
            stdin, w = os.pipe()
        p = subprocess.Popen(argv + (["-"] if file_arg else []), stdin=stdin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
    except OSError:
        for x in {fd, stdin, w} - {None}:
            os.close(x)
        raise
    if w is None:
        os.close(fd)
        return p, start, None
    os.close(stdin)
    feeder = threading.Thread(target=_feed, args=(fd, w, start, end), daemon=True)
    feeder.start()   # it closes fd and w
    return p, start, feeder


def _ere_escape(text):
    return re.sub(r"([][\\.^$*+?(){}|])", r"\\\1", text)


def _ranges(path, size, n):
    """n byte ranges of the file, each starting at a line start."""
    cuts = [0]
    with open(path, "rb") as f:
        for k in range(1, n):
            f.seek(size * k // n)
            f.readline()
            pos = f.tell()
            if cuts[-1] < pos < size:
                cuts.append(pos)
    cuts.append(size)
    return list(zip(cuts, cuts[1:]))


def _feed(fd, w, start, end):
    """Copy [start, end) of the file into the pipe; sendfile keeps the bytes in the kernel."""
    send = getattr(os, "sendfile", None)
    try:
        pos = start
        while pos < end:
            want = min(end - pos, 1 << 20)
            n = 0
            if send is not None:
                try:
                    n = send(w, fd, pos, want)
                except OSError as e:
                    if e.errno == errno.EPIPE:
                        return
                    send = None   # not to a pipe on this system: copy through Python
            if send is None:
                data = os.pread(fd, want, pos)
                n = os.write(w, data) if data else 0
            if n <= 0:
                break
            pos += n
    except OSError:
        pass   # grep went away (killed at the deadline)
    finally:
        os.close(w)
        os.close(fd)


def _python_candidates(path, fixed, regexes, deadline):
    anchors = [a.encode() for a in fixed]
    pats = [re.compile(r.encode()) for r in regexes]
    out, tagged = {}, set()
    with open(path, "rb") as f:
        base = 0
        carry = b""
        while True:
            if time.monotonic() > deadline:
                return out, False, tagged
            block = f.read(CHUNK)
            if not block:
                data, base_off = carry, base - len(carry)
                if not data:
                    break
            else:
                cut = block.rfind(b"\n") + 1
                if cut == 0:
                    carry += block
                    base += len(block)
                    continue
                data = carry + block[:cut]
                base_off = base - len(carry)
                carry = block[cut:]
                base += len(block)
            for a in anchors:
                i = data.find(a)
                while i >= 0:
                    s = data.rfind(b"\n", 0, i) + 1
                    e = data.find(b"\n", i)
                    e = len(data) if e < 0 else e
                    out.setdefault(base_off + s, data[s:e])
                    i = data.find(a, e)
            for p in pats:
                for m in p.finditer(data):
                    s = data.rfind(b"\n", 0, m.start()) + 1
                    e = data.find(b"\n", m.start())
                    e = len(data) if e < 0 else e
                    out.setdefault(base_off + s, data[s:e])
                    tagged.add(base_off + s)
            if not block:
                break
    return out, True, tagged


# ---------------------------------------------------------------------------- classification

def scan_log(path, rules, deadline, tail_n=15, tails=None, engine=None):
    name = display_name(path)
    try:
        st = os.stat(path)
        fh = open(path, "rb")
    except FileNotFoundError:
        return [Finding("log", "missing", "unavailable", f"log {name}: no such file", source=name)]
    except PermissionError:
        return [Finding("log", "permission", "unavailable", f"log {name}: permission denied", source=name)]
    sigs = rules.of("log")
    with fh:
        cands, complete, regex_hits = candidates(path, sigs, deadline, engine)
        hits = classify(cands, sigs, fh, regex_hits)
        findings = []
        for sig, entries in hits:
            first, last = entries[0], entries[-1]
            shown = last if sig.report == "last" else first
            other = first if shown is last else last
            f = Finding("log", sig.id, sig.severity, shown["summary"], source=name,
                        line=shown["quote"], offset=shown["offset"], count=len(entries),
                        data={"which": sig.report, "groups": shown["groups"]})
            if last.get("approx"):
                f.data["count_approximate"] = True
            if len(entries) > 1:
                f.data["other_offset"] = other["offset"]
                if other["summary"] != shown["summary"] or sig.kind == "traceback":
                    f.data["other_line"] = other["quote"]
            findings.append(f)
        progress, tail = tail_and_progress(fh, st.st_size, rules, tail_n)
        if st.st_size <= LINE_NUMBERS_UP_TO:
            number_lines(fh, findings + progress)
        for f in progress:
            f.source = name
        if tails is not None and tail:
            tails[name] = tail
    age = time.time() - st.st_mtime
    state = Finding("log", "log_file", "info",
                    f"{fmt_bytes(st.st_size)}, last written {fmt_age(age)} ago"
                    + ("" if complete else "; scan stopped at the time limit, findings may be missing"),
                    source=name, data={"size": st.st_size, "mtime": st.st_mtime, "complete": complete})
    if not complete:
        state.severity = "warn"
    return findings + progress + [state]


def classify(cands, sigs, fh, regex_hits=None):
    """Candidate lines -> [(signature, [hit, ...])] in file order, one signature per line.

    regex_hits: the offsets of the lines where the engine found a regex anchor, when it
    knows; the anchor regexes are then tried (again, in Python) on those lines only. On a
    diverged log that skips a regex search on each of the NaN lines, for the same findings.
    """
    per = {s.id: [] for s in sigs}
    prepared = [(s, [a.encode() for a in s.anchors], [re.compile(r.encode()) for r in s.anchor_regex])
                for s in sigs]
    claimed = set()
    trace_sigs = [p for p in prepared if p[0].kind == "traceback"]
    line_sigs = [p for p in prepared if p[0].kind != "traceback"]
    offsets = sorted(cands)
    held = _AnchorSets(a for _, anchors, _ in prepared for a in anchors)
    kinds = held.all(cands, offsets)
    # Tracebacks first: their exception line is the finding, and a line it claims (say a
    # CUDA OOM message) is not reported a second time by the line signature.
    for sig, anchors, regexes in trace_sigs:
        want = {k for k, got in enumerate(held.sets) if any(a in got for a in anchors)}
        for off, k in zip(offsets, kinds):
            if k not in want:
                continue
            raw = cands[off]
            exc = final_exception(fh, off, raw)
            if exc is None:
                continue
            exc_off, exc_raw, exc_text = exc
            line = clean_line(exc_raw)
            # Name the kind of failure when a line signature recognises the exception.
            also = next((s.summary for s, _, _ in line_sigs if s.match is not None
                         and s.match.search(line) and "{" not in s.summary), None)
            summary = summarize(sig.summary, {"exception": exc_text}, exc_text)
            if also:
                summary += f" ({also})"
            per[sig.id].append({"offset": exc_off, "quote": excerpt(line), "summary": summary,
                                "groups": {"exception": exc_text}})
            claimed.add(exc_off)
    index = {}
    for n, (sig, anchors, _) in enumerate(line_sigs):
        for a in anchors:
            index.setdefault(a, []).append(n)
    # Which line signatures to try on a line, by the anchor set it holds.
    todo_of = [sorted({n for a in got for n in index.get(a, ())}) for got in held.sets]
    by_regex = [(n, r) for n, (_, _, regexes) in enumerate(line_sigs) for r in regexes]
    entries_of = [per[sig.id] for sig, _, _ in line_sigs]
    eager = [sig.min_value is not None for sig, _, _ in line_sigs]
    for off, k in zip(offsets, kinds):
        if off in claimed:
            continue
        todo = todo_of[k]
        if by_regex and (regex_hits is None or off in regex_hits):
            raw = cands[off]
            extra = [n for n, r in by_regex if r.search(raw)]
            if extra:
                todo = sorted(set(todo).union(extra))
        for n in todo:
            entries = entries_of[n]
            if len(entries) >= SATURATE and not eager[n]:
                # Thousands of hits say nothing the first and last do not: count the rest
                # by anchor (an offset each, no hit built) and decide on the last at the end.
                entries.append(off)
                break
            hit = _decide(line_sigs[n][0], cands[off], off)
            if hit is not None:
                entries.append(hit)
                break
    for sig, _, _ in line_sigs:
        entries = per[sig.id]
        while entries and isinstance(entries[-1], int):
            hit = _decide(sig, cands[entries[-1]], entries[-1])
            if hit is not None:
                entries[-1] = hit
            else:
                entries.pop()
        if len(entries) > SATURATE:
            entries[-1]["approx"] = True
    out = []
    for sig, _, _ in prepared:
        entries = per[sig.id]
        if sig.kind == "traceback":
            entries.sort(key=lambda h: h["offset"])   # line signatures are in file order already
        if entries:
            out.append((sig, entries))
    return out


class _AnchorSets:
    """Which fixed anchors a line holds: the index of that set in `self.sets`.

    A diverged run puts a NaN on every line after the divergence, and those lines differ
    only in their numbers (step, time, throughput). So the answer is kept under the line with
    its digits folded to one digit that no anchor uses; an anchor then occurs in the folded
    line exactly when it occurs in the line, and the hundred-thousandth NaN line costs one
    translate and one dict lookup instead of an `in` per anchor.
    """

    MAX_KEY = 512
    MAX_CACHED = 50000
    BATCH = 1 << 16

    def __init__(self, anchors):
        self.anchors = sorted(set(anchors), key=len, reverse=True)
        used = {c for a in self.anchors for c in a if 0x30 <= c <= 0x39}
        fold = bytes(d for d in b"0123456789" if d not in used)
        self.table = bytes.maketrans(fold, fold[:1] * len(fold)) if fold else None
        self.cache = {}
        self.sets = []
        self.ids = {}

    def all(self, cands, offsets):
        # Batches of lines: fold each, then look for anchors once per distinct folded line
        # (in the folded text, which holds an anchor exactly when the line does). On a
        # flood the per-line work is one translate and one dict lookup, in comprehensions.
        cache, table, out = self.cache, self.table, []
        for i in range(0, len(offsets), self.BATCH):
            lines = [cands[off] for off in offsets[i:i + self.BATCH]]
            keys = [raw.translate(table) for raw in lines] if table else lines
            batch = dict.fromkeys(keys)
            for key in batch:
                k = cache.get(key)
                if k is None:
                    k = self._id(tuple(a for a in self.anchors if a in key))
                    if len(key) <= self.MAX_KEY:
                        if len(cache) >= self.MAX_CACHED:
                            cache.clear()
                        cache[key] = k
                batch[key] = k
            out.extend([batch[key] for key in keys])
        return out

    def _id(self, got):
        k = self.ids.get(got)
        if k is None:
            k = self.ids[got] = len(self.sets)
            self.sets.append(got)
        return k


def _decide(sig, raw, off):
    line = clean_line(raw)
    m = None
    if sig.match is not None:
        m = sig.match.search(line)
        if m is None:
            return None
    if sig.exclude is not None and sig.exclude.search(line):
        return None
    groups = {k: v for k, v in (m.groupdict() if m else {}).items() if v is not None}
    if sig.min_value is not None:
        try:
            if float(groups.get("value", "nan")) < sig.min_value:
                return None
        except ValueError:
            return None
    start = m.start() if m else min((line.find(a) for a in sig.anchors if a in line), default=0)
    return {"offset": off, "quote": excerpt(line, start), "summary": summarize(sig.summary, groups, sig.id),
            "groups": groups}


_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")


def final_exception(fh, off, header):
    """The exception line that ends the traceback starting at `off`: (offset, raw, text).

    Launchers prefix every line ("[rank0]: "), so the prefix before "Traceback" is taken off
    the lines that carry it and other ranks' lines are skipped; chained tracebacks ("During
    handling of the above exception ...") are followed to the last exception.
    """
    prefix = header[:header.find(b"Traceback (most recent call last)")]
    fh.seek(off)
    block = fh.read(TRACEBACK_WINDOW)
    pos = block.find(b"\n") + 1
    in_traceback, found = True, None
    while 0 < pos < len(block):
        end = block.find(b"\n", pos)
        end = len(block) if end < 0 else end
        raw = block[pos:end]
        line_off, pos = off + pos, end + 1
        if prefix:
            if not raw.startswith(prefix):
                continue
            body = raw[len(prefix):]
        else:
            body = raw
        text = clean_line(body)
        if text.startswith("Traceback (most recent call last)"):
            in_traceback = True
        elif in_traceback:
            if text and not text[0].isspace():
                found, in_traceback = (line_off, raw, text.strip()), False
        elif text and not text.startswith(_CHAIN):
            break
    return found


# ------------------------------------------------------------------------- tail and progress

def tail_and_progress(fh, size, rules, tail_n):
    findings = []
    tail = []
    remaining = dict(rules.progress)
    for window in PROGRESS_WINDOWS:
        if not remaining and tail:
            break
        start = max(0, size - window)
        fh.seek(start)
        block = fh.read(size - start)
        if start > 0:
            block = block[block.find(b"\n") + 1:]
            base = size - len(block)
        else:
            base = 0
        if not tail:
            lines = [clean_line(x) for x in block.splitlines()[-tail_n:]] if tail_n else []
            tail = [x for x in lines if x != ""][-tail_n:] if tail_n else []
        for name, (pat, anchors) in list(remaining.items()):
            # The last line in the block that names this counter; anchors let rfind jump
            # straight to candidate lines instead of trying the regex on every line.
            end = len(block)
            while end > 0:
                if anchors:
                    hit = max(block.rfind(a, 0, end) for a in anchors)
                    if hit < 0:
                        break
                    s = block.rfind(b"\n", 0, hit) + 1
                    e = block.find(b"\n", hit)
                    e = len(block) if e < 0 else e
                else:
                    s = block.rfind(b"\n", 0, max(0, end - 1)) + 1
                    e = end
                text = clean_line(block[s:e])
                m = pat.search(text) if text else None
                if m:
                    value = m.groupdict().get("value") or m.group(1)
                    findings.append(Finding("log", f"last_{name}", "info", f"last {name} reached: {value}",
                                            line=excerpt(text, m.start()), offset=base + s,
                                            data={"value": value}))
                    del remaining[name]
                    break
                end = s - 1 if s > 0 else 0
        if start == 0:
            break
    return findings, tail


def number_lines(fh, findings):
    """Offsets -> 1-based line numbers, counting newlines once up to the last offset."""
    want = sorted({o for f in findings for o in (f.offset, f.data.get("other_offset")) if o is not None})
    if not want:
        return
    numbers, pos, count = {}, 0, 1
    fh.seek(0)
    for target in want:
        while pos < target:
            n = min(CHUNK, target - pos)
            count += fh.read(n).count(b"\n")
            pos += n
        numbers[target] = count
    for f in findings:
        if f.offset in numbers:
            f.lineno = numbers[f.offset]
        if f.data.get("other_offset") in numbers:
            f.data["other_lineno"] = numbers[f.data["other_offset"]]
