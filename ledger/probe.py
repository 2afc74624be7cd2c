"""`ledger probe`: the debug protocol's first step, as one command whose output is evidence.

Each probe (processes, kernel, journal, gpu, disk, checkpoints, logs) runs in its own thread
with its own time limit; a missing tool or a permission error becomes a finding of its own,
never an exception. The text report leads with findings, each followed by the exact line it
came from, indented by four spaces and otherwise untouched, so an agent can quote it and the
quote matches what the ledger recorded.
"""

import fnmatch
import json
import os
import re
import threading
import time
import tomllib
from dataclasses import asdict, dataclass, field

from ledger import paths

SEVERITIES = ("error", "warn", "notice", "info", "unavailable")
QUOTE_INDENT = "    "
# Longer lines are quoted as a verbatim excerpt around the match: a 40 kB progress-bar line
# helps nobody, and the ledger caps what it stores.
MAX_QUOTE = 400
TOTAL_BUDGET_S = 8.0


@dataclass
class Finding:
    probe: str                 # processes | kernel | journal | gpu | disk | checkpoints | log
    kind: str                  # signature id or a probe-specific kind ("missing_tool", ...)
    severity: str              # error | warn | notice | info | unavailable
    summary: str
    source: str = ""           # where `line` came from: a path, "dmesg", "nvidia-smi", ...
    line: str | None = None    # the verbatim source line, quoted under the summary
    lineno: int | None = None
    offset: int | None = None  # byte offset of `line` in `source` (logs)
    count: int = 1
    data: dict = field(default_factory=dict)


@dataclass
class Options:
    run_dir: str
    logs: list
    pid: int | None = None
    since_s: float | None = None
    tail: int = 15
    budget_s: float = TOTAL_BUDGET_S


def parse_duration(text):
    """'90s', '30m', '2h', '1d', '1h30m' or a bare number of seconds -> seconds."""
    text = (text or "").strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d|w)", text)
    if not parts or "".join(a + b for a, b in parts) != re.sub(r"\s+", "", text):
        raise ValueError(f"not a duration: {text!r} (try 30m, 2h, 1d)")
    unit = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}
    return sum(float(n) * unit[u] for n, u in parts)


def fmt_age(seconds):
    seconds = int(max(0, seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 86400:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d{seconds % 86400 // 3600:02d}h"


def fmt_bytes(n):
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def fmt_time(ts):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f]")


def clean_line(raw):
    """Bytes or str -> one printable line: what the report prints is what the agent quotes.

    ANSI colour codes and control characters go; a trailing \\r\\n goes; tabs stay (they are
    part of the line). Progress bars that redraw with \\r keep only their last frame.
    """
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    raw = raw.rstrip("\r\n")
    if "\r" in raw:
        frames = [f for f in raw.split("\r") if f.strip()]
        raw = frames[-1] if frames else ""
    return _CONTROL.sub("", raw).rstrip()


def excerpt(line, start=0):
    """A verbatim slice of `line` no longer than MAX_QUOTE, around position `start`."""
    if len(line) <= MAX_QUOTE:
        return line
    lo = max(0, min(start - 100, len(line) - MAX_QUOTE))
    return line[lo:lo + MAX_QUOTE].strip()


# ------------------------------------------------------------------------------------ rules

def rule_files(run_dir=None):
    """Packaged pack first, then user files, then project files: later files win by id."""
    files = [os.path.join(paths.rules_dir(), "probe.toml")]
    user = os.path.join(paths.user_config_dir(), "rules")
    files += _probe_files_in(user)
    seen = set()
    for base in (os.getcwd(), run_dir):
        if not base:
            continue
        d = os.path.realpath(os.path.join(base, ".evidence-ledger", "rules"))
        if d not in seen:
            seen.add(d)
            files += _probe_files_in(d)
    return [f for f in files if os.path.isfile(f)]


def _probe_files_in(d):
    try:
        return sorted(os.path.join(d, n) for n in os.listdir(d) if fnmatch.fnmatch(n, "probe*.toml"))
    except OSError:
        return []


class RuleError(ValueError):
    pass


@dataclass
class Signature:
    id: str
    source: str
    severity: str
    summary: str
    anchors: list
    anchor_regex: list
    match: "re.Pattern | None"
    exclude: "re.Pattern | None"
    kind: str = "line"
    report: str = "first"
    min_value: float | None = None
    origin: str = ""


@dataclass
class Rules:
    signatures: list
    progress: list
    tables: dict
    files: list

    def of(self, source):
        return [s for s in self.signatures if s.source == source]

    def table(self, name):
        return self.tables.get(name, {})


def load_rules(run_dir=None, files=None):
    files = rule_files(run_dir) if files is None else files
    sigs, progress, tables = {}, {}, {}
    for path in files:
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise RuleError(f"{path}: {e}") from e
        for i, raw in enumerate(data.get("signature", [])):
            where = f"{path}: signature #{i + 1} ({raw.get('id', '?')})"
            if not isinstance(raw.get("id"), str):
                raise RuleError(f"{where}: needs an id")
            if raw.get("enabled", True) is False:
                sigs.pop(raw["id"], None)
                continue
            sigs[raw["id"]] = _signature(raw, where, sigs.get(raw["id"]))
        for raw in data.get("progress", []):
            try:
                anchors = [a.encode() for a in raw.get("anchors", [])]
                progress[raw["name"]] = (re.compile(raw["match"]), anchors)
            except (KeyError, re.error) as e:
                raise RuleError(f"{path}: progress {raw.get('name', '?')}: {e}") from e
        for key, value in data.items():
            if isinstance(value, dict):
                tables.setdefault(key, {}).update(value)
    return Rules(list(sigs.values()), list(progress.items()), tables, files)


def _signature(raw, where, base=None):
    def get(key, default=None):
        if key in raw:
            return raw[key]
        return getattr(base, key) if base is not None else default

    def compile_(key):
        if key not in raw:
            return getattr(base, key) if base is not None else None
        try:
            return re.compile(raw[key])
        except re.error as e:
            raise RuleError(f"{where}: {key}: {e}") from e

    source = get("source", "log")
    if source not in ("log", "kernel"):
        raise RuleError(f"{where}: source must be 'log' or 'kernel', not {source!r}")
    severity = get("severity", "error")
    if severity not in SEVERITIES[:4]:
        raise RuleError(f"{where}: severity must be one of error, warn, notice, info")
    anchors = list(get("anchors", []) or [])
    anchor_regex = list(get("anchor_regex", []) or [])
    for a in anchors:
        if not isinstance(a, str) or len(a) < 3:
            raise RuleError(f"{where}: anchors must be strings of 3+ characters, got {a!r}")
    for a in anchor_regex:
        try:
            re.compile(a.encode())
        except re.error as e:
            raise RuleError(f"{where}: anchor_regex {a!r}: {e}") from e
    if source == "log" and not anchors and not anchor_regex:
        raise RuleError(f"{where}: a log signature needs anchors or anchor_regex")
    match = compile_("match")
    if source == "kernel" and match is None:
        raise RuleError(f"{where}: a kernel signature needs match")
    report = get("report", "first")
    if report not in ("first", "last"):
        raise RuleError(f"{where}: report must be 'first' or 'last'")
    return Signature(
        id=raw["id"], source=source, severity=severity, summary=get("summary", raw["id"]),
        anchors=anchors, anchor_regex=anchor_regex, match=match, exclude=compile_("exclude"),
        kind=get("kind", "line"), report=report, min_value=get("min_value"), origin=where,
    )


def summarize(template, groups, fallback):
    """Fill {name} from regex groups; `name2`, `name3` stand in for alternatives of `name`."""
    values = {}
    for k, v in (groups or {}).items():
        if v is None:
            continue
        values.setdefault(re.sub(r"\d+$", "", k), v)
        values[k] = v
    try:
        return template.format_map(_Missing(values))
    except (ValueError, IndexError):
        return fallback


class _Missing(dict):
    def __missing__(self, key):
        return "?"


# ----------------------------------------------------------------------------------- running

def run(opts, rules=None, probes=None):
    """Run every probe in parallel; return {"findings": [...], "elapsed_s": ..., ...}."""
    from ledger import probe_files, probe_host, probe_logs

    started = time.monotonic()
    rules = rules or load_rules(opts.run_dir)
    deadline = started + opts.budget_s
    table = {
        "processes": probe_host.processes,
        "kernel": probe_host.kernel,
        "journal": probe_host.journal,
        "gpu": probe_host.gpu,
        "disk": probe_files.disk,
        "checkpoints": probe_files.checkpoints,
        "log": probe_logs.logs,
    }
    if probes:
        table = {k: v for k, v in table.items() if k in probes}
    results, extra = {}, {}

    def work(name, fn):
        try:
            results[name] = fn(opts, rules, deadline, extra)
        except PermissionError as e:
            results[name] = [Finding(name, "permission", "unavailable", f"{name}: permission denied ({e})")]
        except Exception as e:  # a probe that breaks is a finding, never the end of the report
            results[name] = [Finding(name, "probe_error", "unavailable", f"{name}: probe failed: {type(e).__name__}: {e}")]

    threads = {}
    for name, fn in table.items():
        t = threading.Thread(target=work, args=(name, fn), name=f"probe-{name}", daemon=True)
        t.start()
        threads[name] = t
    findings = []
    for name, t in threads.items():
        t.join(max(0.0, deadline + 0.5 - time.monotonic()))
        if t.is_alive():
            findings.append(Finding(name, "timeout", "unavailable",
                                    f"{name}: no answer within {opts.budget_s:.0f} s (skipped)"))
        else:
            findings.extend(results.get(name, []))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    probe_order = {n: i for i, n in enumerate(table)}
    findings.sort(key=lambda f: (order.get(f.severity, 9), probe_order.get(f.probe, 9)))
    return {
        "version": 1,
        "run_dir": opts.run_dir,
        "generated_at": fmt_time(time.time()),
        "elapsed_s": round(time.monotonic() - started, 2),
        "rules": rules.files,
        "findings": findings,
        "tails": extra.get("tails", {}),
    }


def to_json(report):
    out = dict(report)
    out["findings"] = [asdict(f) for f in report["findings"]]
    return json.dumps(out, indent=2, ensure_ascii=False)


HEADINGS = {
    "error": "problems",
    "warn": "warnings",
    "notice": "notices",
    "info": "state",
    "unavailable": "not checked",
}


def render(report):
    findings = report["findings"]
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    head = ", ".join(_plural(counts[s], SINGULAR[s]) for s in ("error", "warn", "notice") if counts[s])
    lines = [
        f"ledger probe: {head or 'no problems found'} (run dir {report['run_dir']}, "
        f"{report['elapsed_s']:.1f} s)",
        "Under each finding, indented, is the exact line it came from: quote that line as evidence.",
    ]
    for sev in SEVERITIES:
        group = [f for f in findings if f.severity == sev]
        if not group:
            continue
        lines.append("")
        lines.append(f"## {HEADINGS[sev]}")
        for f in group:
            lines.append(headline(f))
            if f.line:
                lines.append(QUOTE_INDENT + f.line)
            other = f.data.get("other_line")
            if other and other != f.line:
                lines.append(QUOTE_INDENT + other)
    for path, tail in report.get("tails", {}).items():
        lines.append("")
        lines.append(f"## tail of {path} (last {len(tail)} lines)")
        lines.extend(QUOTE_INDENT + t for t in tail)
    return "\n".join(lines) + "\n"


SINGULAR = {"error": "problem", "warn": "warning", "notice": "notice"}


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def headline(f):
    where = f.probe
    if f.probe == "log" and f.source:
        where = f"log {f.source}"
        if f.lineno is not None:
            where += f":{f.lineno}"
        elif f.offset is not None:
            where += f"@{f.offset}"
    if f.summary.startswith((where + ":", where + " ")) or (f.probe == "log" and f.offset is None
                                                             and f.summary.startswith("log")):
        text = f.summary
    else:
        text = f"{where}: {f.summary}"
    if f.count > 1:
        other = f.data.get("other_lineno", f.data.get("other_offset"))
        which = f.data.get("which", "first")
        text += f" ({f.count} lines; {which} shown"
        if other is not None:
            text += f", {'last' if which == 'first' else 'first'} at {'line ' if 'other_lineno' in f.data else 'byte '}{other}"
        text += ")"
    return text
