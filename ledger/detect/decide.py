"""The default decision on a report, shared by `ledger check` and the Stop guard.

Block iff a claim of a blocking kind (by default only `assertion`) cites nothing. Negated claims
("the cache is not the cause") are reported and warned about, not blocked, unless configured.
"""

DEFAULT_BLOCK_KINDS = ("assertion",)


def uncited(report, block_kinds=DEFAULT_BLOCK_KINDS):
    return [c for c in report.claims if c.kind in block_kinds and not c.cited]


def decision(report, block_kinds=DEFAULT_BLOCK_KINDS):
    """"block" | "allow"."""
    return "block" if uncited(report, block_kinds) else "allow"
