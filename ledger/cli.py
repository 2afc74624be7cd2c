"""The `ledger` command: everything a person runs. The hooks do not come through here."""

import click


@click.group()
@click.version_option(package_name="evidence-ledger")
def cli():
    """evidence-ledger: every tool output an agent saw, and every claim it made about it.

    The hooks record each tool call into one SQLite file (see `ledger path`); the Stop guard
    blocks a final message that asserts a root cause without citing that evidence.
    """
