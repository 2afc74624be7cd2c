"""evidence-ledger: record what an agent's tools printed; hold its claims to it.

Kept empty on purpose: every hook process imports this package first, so anything here is
paid for on every tool call.
"""
