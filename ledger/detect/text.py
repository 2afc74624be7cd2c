"""Human-readable output of `ledger check`."""


def render_report(report, decision, evidence_count=None):
    lines = []
    if not report.claims:
        lines.append("No causal claims found (%s)." % report.lang)
    for n, c in enumerate(report.claims, 1):
        status = "cited " + ", ".join(c.evidence) if c.cited else "UNCITED"
        lines.append("%d. [%s, %s] %s" % (n, c.kind, status, c.text))
        lines.append("   why: %s" % c.reason)
        for near in c.near_misses[:3]:
            lines.append("   near miss: %s -- %s" % (near.get("quote", "")[:100], near.get("why", "")))
    where = "no evidence (no --session)" if evidence_count is None else "%d evidence entries" % evidence_count
    lines.append("")
    lines.append("decision: %s (%s)" % (decision, where))
    return "\n".join(lines)
