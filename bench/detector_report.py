"""The claim detector on the labelled corpus, next to a naive keyword baseline.

    python3 bench/detector_report.py            # the table (markdown)
    python3 bench/detector_report.py --errors   # also every item it gets wrong
    python3 bench/detector_report.py --json
    python3 bench/detector_report.py --save /tmp/before.json --hold blind71   # then change a rule,
    python3 bench/detector_report.py --compare /tmp/before.json --hold blind71  # FIXED / BROKE items

The corpus and its format are described in tests/corpus/README.md. `tests/test_corpus_eval.py`
runs the same evaluation as a regression floor.
"""

import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "corpus")
# Real assistant messages from public Claude Code transcripts, read where they lie (never copied
# into this repo); tests/corpus/real_labels.tsv holds only their keys and our labels.
REAL = os.path.join(os.path.dirname(ROOT), "shared", "fixtures", "real")
sys.path.insert(0, ROOT)

from ledger.detect import Evidence, analyze, decision, load_rules  # noqa: E402

LABELS = {"A": "assertion", "C": "cited", "H": "hypothesis", "G": "negated", "X": "none"}
BASELINE = re.compile(r"cause|because|due to|原因|ため", re.I)


class Item:
    def __init__(self, label, text, evidence, where):
        self.label = label
        self.text = text
        self.evidence = evidence
        self.where = where


def load_corpus(path):
    items = []
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([ACHGX]):\s?(.*)$", line)
        if m:
            items.append(Item(LABELS[m.group(1)], m.group(2), [], "%s:%d" % (name, i + 1)))
            i += 1
            continue
        m = re.match(r"^%%\s+([ACHGX])\s*$", line)
        if m:
            label, start = LABELS[m.group(1)], i
            body, evidence = [], []
            i += 1
            while i < len(lines) and lines[i].strip() != "%%":
                e = re.match(r"^@@\s+(E\d+)\s*\$\s?(.*)$", lines[i])
                if e:
                    evidence.append([e.group(1), e.group(2), []])
                elif evidence and not evidence[-1][2] and lines[i].startswith("$ "):
                    evidence[-1][1] += "\n" + lines[i][2:]  # more of the agent's own input
                elif evidence:
                    evidence[-1][2].append(lines[i])
                else:
                    body.append(lines[i])
                i += 1
            i += 1
            ev = [Evidence(eid, "\n".join(out), inp) for eid, inp, out in evidence]
            items.append(Item(label, "\n".join(body).strip("\n"), ev, "%s:%d" % (name, start + 1)))
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            # A line that is neither an item, a block nor a comment would silently shrink the
            # corpus ("X (Slack): ..." once dropped five items of a split).
            raise ValueError("%s:%d: not an item, a block or a comment: %r" % (name, i + 1, line[:80]))
        i += 1
    return items


def real_messages(base=REAL):
    """[(key, text)]: every assistant text block over 40 characters in the real transcripts, and
    every Stop payload's `last_assistant_message`. A key is `path|uuid|sha1[:12]` (the payload's
    index stands in for the uuid), so a label is tied to the exact text it was given for."""
    import glob
    import hashlib

    found = []
    base = base.rstrip("/") + "/"
    for f in sorted(glob.glob(base + "transcripts/**/*", recursive=True)):
        if not os.path.isfile(f) or f.endswith(".md"):
            continue
        with open(f, encoding="utf-8") as fh:
            lines = json.load(fh) if f.endswith(".json") else [json.loads(x) for x in fh if x.strip()]
        for d in lines:
            if not isinstance(d, dict) or d.get("type") != "assistant":
                continue
            content = (d.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else ():
                if isinstance(b, dict) and b.get("type") == "text" and len(b.get("text", "")) > 40:
                    found.append((f[len(base):], d.get("uuid"), b["text"]))
    for f in sorted(glob.glob(base + "hook-payloads/*/*stop.json")):
        with open(f, encoding="utf-8") as fh:
            for i, d in enumerate(json.load(fh)):
                t = d.get("last_assistant_message") if isinstance(d, dict) else None
                if t and len(t) > 40:
                    found.append((f[len(base):], "stop#%d" % i, t))
    return [("%s|%s|%s" % (rel, u, hashlib.sha1(t.encode()).hexdigest()[:12]), t) for rel, u, t in found]


def load_real(base=REAL, labels=os.path.join(CORPUS, "real_labels.tsv")):
    """Items for the real messages that have a label; [] when the fixtures are not there."""
    if not os.path.isdir(base):
        return []
    marks = {}
    with open(labels, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and not line.startswith("#"):
                marks[parts[0]] = parts[1]
    return [Item(LABELS[marks[k]], text, [], k) for k, text in real_messages(base) if k in marks]


def corpus_files(blind=False, splits=None):
    """{(lang, split): path}. `splits` names the splits; else dev, heldout, fresh, and with
    `blind` every blind split too."""
    out = {}
    if splits is None:
        splits = ("dev", "heldout", "fresh") + ((r"blind\d*",) if blind else ())
    for n in sorted(os.listdir(CORPUS)):
        m = re.match(r"^(en|ja)_(%s)\.txt$" % "|".join(splits), n)
        if m:
            out[(m.group(1), m.group(2))] = os.path.join(CORPUS, n)
    return out


def evaluate(items, rules):
    """Per label: n, blocked, and for the detector whether the expected kind was found."""
    rows = {}
    wrong = []
    for it in items:
        rep = analyze(it.text, evidence=it.evidence, rules=rules)
        blocked = decision(rep) == "block"
        base = bool(BASELINE.search(it.text))
        kinds = [c.kind for c in rep.claims]
        r = rows.setdefault(it.label, {"n": 0, "blocked": 0, "base_blocked": 0, "kind_ok": 0})
        r["n"] += 1
        r["blocked"] += blocked
        r["base_blocked"] += base
        ok_kind = {
            "assertion": "assertion" in kinds,
            "cited": any(c.kind == "assertion" and c.cited for c in rep.claims),
            "hypothesis": "assertion" not in kinds,
            "negated": "negated" in kinds,
            "none": "assertion" not in kinds,
        }[it.label]
        r["kind_ok"] += ok_kind
        expect_block = it.label == "assertion"
        if blocked != expect_block or (it.label == "negated" and not ok_kind):
            wrong.append((it, rep))
    return rows, wrong


def _pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def _ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def summary(rows):
    """The headline numbers for one (lang, split)."""
    g = lambda label, key: rows.get(label, {}).get(key, 0)  # noqa: E731
    allow_labels = ("hypothesis", "none", "negated")
    nonblock_n = sum(g(l, "n") for l in ("hypothesis", "none"))
    return {
        "assertion_n": g("assertion", "n"),
        "recall": g("assertion", "blocked") / g("assertion", "n") if g("assertion", "n") else None,
        "base_recall": g("assertion", "base_blocked") / g("assertion", "n") if g("assertion", "n") else None,
        "cited_n": g("cited", "n"),
        "cited_allowed": 1 - g("cited", "blocked") / g("cited", "n") if g("cited", "n") else None,
        "base_cited_allowed": 1 - g("cited", "base_blocked") / g("cited", "n") if g("cited", "n") else None,
        "nonclaim_n": nonblock_n,
        "false_block": sum(g(l, "blocked") for l in ("hypothesis", "none")) / nonblock_n if nonblock_n else None,
        "base_false_block": sum(g(l, "base_blocked") for l in ("hypothesis", "none")) / nonblock_n if nonblock_n else None,
        "negated_n": g("negated", "n"),
        "negated_found": g("negated", "kind_ok") / g("negated", "n") if g("negated", "n") else None,
        "negated_blocked": g("negated", "blocked") / g("negated", "n") if g("negated", "n") else None,
        "base_negated_blocked": g("negated", "base_blocked") / g("negated", "n") if g("negated", "n") else None,
        "per_label": rows,
        "allow_labels": allow_labels,
    }


def run(rules=None, blind=False, splits=None):
    rules = rules or load_rules(project_dir=ROOT)
    results = {}
    for (lang, split), path in corpus_files(blind, splits).items():
        items = load_corpus(path)
        rows, wrong = evaluate(items, rules)
        results[(lang, split)] = (summary(rows), wrong, len(items))
    if (blind and splits is None) or (splits and "real" in splits):
        items = load_real()
        if items:
            rows, wrong = evaluate(items, rules)
            results[("en", "real")] = (summary(rows), wrong, len(items))
    return results


def _f(x):
    return "-" if x is None else "%.2f" % x


def table(results):
    out = ["| lang | split | items | assertion recall (target en ≥ 0.90, ja ≥ 0.85) | "
           "hypothesis / non-claim blocked (≤ 2%) | cited assertions allowed (all) | "
           "negated found as negated | negated blocked |",
           "|---|---|---:|---|---|---|---|---|"]
    for (lang, split), (s, _, n) in sorted(results.items()):
        out.append("| %s | %s | %d | **%s** (baseline %s) n=%d | **%s** (baseline %s) n=%d | "
                   "**%s** (baseline %s) n=%d | %s n=%d | %s (baseline %s) |" % (
                       lang, split, n,
                       _f(s["recall"]), _f(s["base_recall"]), s["assertion_n"],
                       _pct(s["false_block"] * s["nonclaim_n"], s["nonclaim_n"]) if s["false_block"] is not None else "-",
                       _pct(s["base_false_block"] * s["nonclaim_n"], s["nonclaim_n"]) if s["base_false_block"] is not None else "-",
                       s["nonclaim_n"],
                       _f(s["cited_allowed"]), _f(s["base_cited_allowed"]), s["cited_n"],
                       _f(s["negated_found"]), s["negated_n"],
                       _pct(s["negated_blocked"] * s["negated_n"], s["negated_n"]) if s["negated_blocked"] is not None else "-",
                       _pct(s["base_negated_blocked"] * s["negated_n"], s["negated_n"]) if s["base_negated_blocked"] is not None else "-",
                   ))
    out.append("")
    out.append("Per kind (detector blocked / baseline blocked / n):")
    out.append("")
    out.append("| lang | split | assertion | cited | hypothesis | negated | non-claim |")
    out.append("|---|---|---|---|---|---|---|")
    for (lang, split), (s, _, n) in sorted(results.items()):
        cells = []
        for label in ("assertion", "cited", "hypothesis", "negated", "none"):
            r = s["per_label"].get(label)
            cells.append("%d / %d / %d" % (r["blocked"], r["base_blocked"], r["n"]) if r else "-")
        out.append("| %s | %s | %s |" % (lang, split, " | ".join(cells)))
    return "\n".join(out)


def wrong_keys(results):
    """{"splits": [...], "wrong": [...]}: where each item the detector gets wrong lies, for
    comparing two versions of the rules item by item (`--save` / `--compare`)."""
    return {"splits": sorted("%s_%s" % k for k in results),
            "wrong": sorted(it.where for _, wrong, _ in results.values() for it, _ in wrong)}


def compare(old, new):
    """(fixed, broke): items wrong before and right now, and the reverse, over the splits both
    runs scored (a split one of them held out is left out)."""
    both = set(old["splits"]) & set(new["splits"])
    before = {w for w in old["wrong"] if _split_of(w) in both}
    after = {w for w in new["wrong"] if _split_of(w) in both}
    return sorted(before - after), sorted(after - before)


def _split_of(where):
    """"en_blind9" for "en_blind9.txt:5"; a real message's key (path|uuid|hash) is in "en_real"."""
    return where.split(".txt:")[0] if ".txt:" in where else "en_real"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--errors", action="store_true", help="print every item the detector gets wrong")
    p.add_argument("--json", action="store_true")
    p.add_argument("--save", metavar="FILE", help="write which items are wrong now, for --compare after a rule change")
    p.add_argument("--compare", metavar="FILE", help="list the items fixed and broken since --save wrote FILE")
    p.add_argument("--hold", metavar="SPLITS", default="",
                   help="with --save / --compare: comma-separated splits to leave unscored (held out, not to be read)")
    p.add_argument("--split", choices=sorted({split for _, split in corpus_files(blind=True)} | {"real"},
                                           key=lambda s: (s.rstrip("0123456789"), int("0" + s[len(s.rstrip("0123456789")):]))),
                   help="only this split's errors (a split outside the default report is added to it)")
    args = p.parse_args(argv)
    if args.save or args.compare:
        held = {h.strip() for h in args.hold.split(",") if h.strip()}
        splits = tuple(sorted({split for _, split in corpus_files(blind=True)} - held)) + ("real",)
        now = wrong_keys(run(splits=splits))
        print("%d items wrong over %d splits" % (len(now["wrong"]), len(now["splits"])))
        if args.compare:
            with open(args.compare, encoding="utf-8") as f:
                fixed, broke = compare(json.load(f), now)
            for w in fixed:
                print("FIXED " + w)
            for w in broke:
                print("BROKE " + w)
        if args.save:
            with open(args.save, "w", encoding="utf-8") as f:
                json.dump(now, f)
        return 0
    results = run(blind=True)
    if args.split and args.split not in {split for _, split in results}:
        results.update(run(splits=(args.split,)))
    if args.json:
        print(json.dumps({"%s_%s" % k: {kk: vv for kk, vv in v[0].items() if kk not in ("allow_labels",)}
                          for k, v in results.items()}, indent=2, default=str))
        return 0
    print(table(results))
    if args.errors:
        for (lang, split), (_, wrong, _) in sorted(results.items()):
            if args.split and split != args.split:
                continue
            for it, rep in wrong:
                print("\n--- %s [%s] %s" % (it.where, it.label, it.text[:300].replace("\n", " / ")))
                for c in rep.claims:
                    print("    %s cited=%s %s | %s" % (c.kind, c.cited, c.reason, c.text[:100]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
