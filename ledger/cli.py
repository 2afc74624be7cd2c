"""The `ledger` command: everything a person runs. The hooks do not come through here."""

import json
import os
import sys

import click


@click.group()
@click.version_option(package_name="evidence-ledger")
def cli():
    """evidence-ledger: every tool output an agent saw, and every claim it made about it.

    The hooks record each tool call into one SQLite file (see `ledger path`); the Stop guard
    blocks a final message that asserts a root cause without citing that evidence.
    """


# Setting up --------------------------------------------------------------------------------

AGENT_CHOICE = click.Choice(["claude", "codex", "gemini", "all"])


@cli.command()
@click.option("--agent", type=AGENT_CHOICE, default="claude", show_default=True,
              help="Which agent to wire up; `all` does every agent found on this machine.")
@click.option("--scope", type=click.Choice(["user", "project", "local"]), default="user",
              show_default=True,
              help="user: ~/.claude/settings.json, every project. project: .claude/settings.json "
                   "(commit it to share). local: .claude/settings.local.json (yours only).")
@click.option("--project-dir", type=click.Path(file_okay=False), default=".",
              help="The project for --scope project/local (default: the current directory).")
@click.option("--skip-skill", is_flag=True, help="Register the hooks only; do not install the debug skill.")
def install(agent, scope, project_dir, skip_skill):
    """Register the hooks and install the debug skill.

    Merges the PostToolUse, PostToolUseFailure, PreToolUse, Stop and SubagentStop hooks into the
    agent's settings without touching anyone else's entries, keeps a backup of the file, and
    points the hooks at this installation by absolute path. Running it twice changes nothing.

    \b
    Examples:
      ledger install                      # every project, for you
      ledger install --scope project      # this repository, shared with the team
      ledger install --agent all          # Claude Code, Codex and Gemini, where present
    """
    from ledger import install as installing
    from ledger.installers.common import InstallError

    try:
        messages = installing.install(agent, scope, os.path.abspath(project_dir), skill=not skip_skill)
    except InstallError as exc:
        raise click.ClickException(str(exc))
    for message in messages:
        click.echo(message)
    click.echo("Check it with: ledger doctor")


@cli.command()
@click.option("--agent", type=AGENT_CHOICE, default="claude", show_default=True)
@click.option("--scope", type=click.Choice(["user", "project", "local"]), default="user", show_default=True)
@click.option("--project-dir", type=click.Path(file_okay=False), default=".")
def uninstall(agent, scope, project_dir):
    """Remove the hooks and the skill that `ledger install` added, and nothing else.

    The ledger itself is kept; delete the file shown by `ledger path` to remove it too.
    """
    from ledger import install as installing
    from ledger.installers.common import InstallError

    try:
        messages = installing.uninstall(agent, scope, os.path.abspath(project_dir))
    except InstallError as exc:
        raise click.ClickException(str(exc))
    for message in messages:
        click.echo(message)


@cli.command()
@click.option("--project-dir", type=click.Path(file_okay=False), default=".")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def doctor(project_dir, as_json):
    """Say where the guard is installed, which config applies, where the ledger is, and whether
    the hooks really run (it runs the installed hook once on a scratch ledger).

    Exits 1 when any check is an error.
    """
    from ledger import install as installing

    checks = installing.doctor(os.path.abspath(project_dir))
    if as_json:
        click.echo(json.dumps([{"level": level, "message": message} for level, message in checks], indent=2))
    else:
        colours = {"ok": "green", "warn": "yellow", "error": "red"}
        for level, message in checks:
            click.echo(click.style("%-5s" % level, fg=colours.get(level)) + " " + message)
    if any(level == "error" for level, _ in checks):
        sys.exit(1)


@cli.command()
@click.option("--keep", is_flag=True, help="Keep the temporary ledger and print its path.")
def demo(keep):
    """Replay a short debugging session through the real hooks, on a temporary ledger.

    An agent reads a training log, runs a failing smoke test, claims a cause without evidence
    (blocked), then answers again citing the log (allowed). Finally `ledger show` prints what a
    person auditing the session would see. Your own ledger is not touched.
    """
    from ledger import demo as demo_mod

    demo_mod.run(keep=keep)
