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


# Auditing ----------------------------------------------------------------------------------


@cli.command()
@click.argument("ident", required=False, metavar="[SESSION | E<n> | D<n>]")
@click.option("--limit", type=int, default=50, show_default=True, help="Sessions to list.")
@click.option("--json", "json_out", is_flag=True, help="Print the view as JSON.")
def show(ident, limit, json_out):
    """Audit what was recorded: sessions, one session's timeline, one entry, one decision.

    With no argument, lists sessions, newest first, with their evidence, failure, claim and
    block counts. Give a session id (any unique prefix) for its timeline: every tool call
    with its exit status and output size, and each Stop decision with the claims it judged,
    in the order they happened. Give an evidence id for the entry in full, output included,
    or a decision id for the decision, its reason and its claims.

    \b
    Examples:
      ledger show                 # sessions
      ledger show 4277ef59        # one session's timeline
      ledger show E42             # one tool call, its full output
      ledger show D3              # one Stop decision and its claims
      ledger show E42 --json
    """
    from ledger import paths
    from ledger import show as showing

    if ident is None and not os.path.exists(paths.db_path()):
        # A fresh install: nothing is wrong, there is just nothing to show yet.
        if json_out:
            click.echo("[]")
        else:
            click.echo("No sessions recorded yet. The ledger (%s) is created by the first tool "
                       "call of an agent with the hooks installed (see `ledger doctor`)." % paths.db_path())
        return
    conn = showing.open_ledger()
    try:
        click.echo(showing.show(conn, ident, limit=limit, json_out=json_out))
    finally:
        conn.close()


@cli.command()
@click.argument("query")
@click.option("--session", "session", help="Only this session (any unique id prefix).")
@click.option("--limit", type=int, default=10, show_default=True, help="Most results to print.")
@click.option("--json", "json_out", is_flag=True, help="Print the matching entries as JSON.")
def search(query, session, limit, json_out):
    """Full-text search over every recorded command and output, best match first.

    Each word of three or more characters is searched for as a substring (Japanese works
    too); any of them may match. Punctuation is literal, so `loss=nan` and `--lr` work.

    \b
    Examples:
      ledger search "CUDA out of memory"
      ledger search loss=nan --session 4277ef59
      ledger search NCCL --limit 3 --json
    """
    from ledger import show as showing

    conn = showing.open_ledger()
    try:
        session_id = showing.resolve_session(conn, session) if session else None
        text = showing.search_view(conn, query, session_id, limit, json_out)
    finally:
        conn.close()
    if text is None:
        click.echo("No matches for %r." % query, err=True)
        sys.exit(1)
    click.echo(text)


@cli.command()
def path():
    """Print where the ledger file is (or will be).

    `$LEDGER_DB` overrides the default, `$XDG_DATA_HOME/evidence-ledger/ledger.db`
    (else `~/.local/share/evidence-ledger/ledger.db`), for every command and hook.

    \b
    Examples:
      ledger path
      sqlite3 "$(ledger path)" 'select count(*) from evidence'
    """
    from ledger import paths

    click.echo(paths.db_path())


@cli.command()
@click.option("--session", "session", help="Only this session (any unique id prefix).")
@click.option("--json", "json_out", is_flag=True, help="Print the problems as JSON.")
def verify(session, json_out):
    """Check the ledger has not been tampered with; exit 1 if it has.

    Recomputes every entry's hash chain and the ledger-wide id sequence, and reports entries
    that were edited, deleted, reordered or inserted after the hooks recorded them, plus
    damage SQLite itself finds. Entries deleted by `ledger gc` are not problems.

    \b
    Examples:
      ledger verify
      ledger verify --session 4277ef59
    """
    from ledger import show as showing
    from ledger import verify as verifying

    conn = showing.open_ledger()
    try:
        session_id = showing.resolve_session(conn, session) if session else None
        problems, checked = verifying.verify(conn, session_id)
    finally:
        conn.close()
    if json_out:
        click.echo(json.dumps({"ok": not problems, "entries_checked": checked,
                               "problems": [p.as_dict() for p in problems]}, indent=2))
    elif problems:
        for problem in problems:
            where = " [session %s]" % problem.session_id if problem.session_id else ""
            click.echo(click.style("%-9s" % problem.kind, fg="red") + " " + problem.detail + where)
        click.echo("%d problem(s) in %d entries checked." % (len(problems), checked), err=True)
    else:
        click.echo("ok: %d entries, every hash chain intact, no ids missing." % checked)
    if problems:
        sys.exit(1)


@cli.command()
@click.option("--older-than", default="30d", show_default=True,
              help="Delete sessions last active longer ago than this: 30d, 12h, 2w, 1y.")
@click.option("--max-size", help="Then delete the oldest sessions until the ledger fits: 500M, 2G.")
@click.option("--dry-run", is_flag=True, help="Say what would be deleted; delete nothing.")
def gc(older_than, max_size, dry_run):
    """Delete old sessions (whole sessions, with their decisions) and VACUUM the file.

    By default keeps the last 30 days. `--max-size` deletes further sessions, oldest first,
    while the ledger is larger than SIZE; the newest session is always kept. What was deleted
    is logged, so `ledger verify` does not report it as tampering.

    \b
    Examples:
      ledger gc --dry-run
      ledger gc --older-than 90d
      ledger gc --max-size 1G
    """
    from ledger import retention, store

    try:
        retention.parse_duration(older_than)
        if max_size:
            retention.parse_size(max_size)
        conn = store.connect(create=False)
    except (ValueError, store.LedgerError) as exc:
        raise click.ClickException(str(exc))
    try:
        result = retention.gc(conn, older_than, max_size, dry_run=dry_run)
    finally:
        conn.close()
    verb = "would delete" if dry_run else "deleted"
    click.echo("%s %d session(s), %d entries; %.1f MB -> %.1f MB in use" % (
        verb, len(result["sessions"]), result["entries"],
        result["bytes_before"] / 2**20, result["bytes_after"] / 2**20))
    if result["still_over_cap"]:
        click.echo("still over %s: only the newest session is left" % max_size, err=True)


@cli.command()
@click.option("--session", "session", help="Only this session (any unique id prefix).")
@click.option("--redact", "redacted", is_flag=True,
              help="Redact secrets again and mask your home folder and user name, for sharing.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
def export(session, redacted, output):
    """Export the ledger (or one session) as JSON Lines: a header with the verification result,
    then each session, its evidence and its decisions with their claims. With `-o FILE.db` (or
    .sqlite) the export is a fresh SQLite database instead, one table per kind, searchable.

    \b
    Examples:
      ledger export --session 4277ef59 --redact -o audit.jsonl
      ledger export --redact -o audit.db && datasette audit.db
      ledger export | jq 'select(.type == "evidence") | .command'
    """
    from ledger import export as exporting
    from ledger import show as showing

    conn = showing.open_ledger()
    try:
        session_id = showing.resolve_session(conn, session) if session else None
        if output and output.endswith((".db", ".sqlite", ".sqlite3")):
            count = exporting.write_sqlite(conn, output, session_id, redacted)
            click.echo("wrote %d rows to %s" % (count, output), err=True)
        elif output:
            fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                count = exporting.write(conn, out, session_id, redacted)
            click.echo("wrote %d lines to %s" % (count, output), err=True)
        else:
            exporting.write(conn, sys.stdout, session_id, redacted)
    finally:
        conn.close()


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


# Debugging ---------------------------------------------------------------------------------


@cli.command()
@click.option("--run-dir", type=click.Path(file_okay=False), default=".",
              help="The run's directory: its disk, checkpoints and (without --log) its logs.")
@click.option("--log", "logs", multiple=True, type=click.Path(dir_okay=False),
              help="A log to scan (repeatable). Default: the newest *.log/*.out/*.err in --run-dir.")
@click.option("--pid", type=int, help="A process to report on even if it does not look like training.")
@click.option("--since", help="Only kernel/journal messages this recent: 30m, 2h, 1d (journal default 1d).")
@click.option("--tail", type=int, default=15, show_default=True, help="Lines of each log's tail to print.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def probe(run_dir, logs, pid, since, tail, as_json):
    """Gather cheap evidence about a training run in one command, in a few seconds.

    Run it first when a job crashed, hung, diverged or slowed down. Each probe runs in parallel
    with its own time limit; a tool that is missing or not permitted is reported, never fatal.

    \b
      processes    /proc: python, torchrun, accelerate, deepspeed: state (R/S/D/Z), age,
                   the same command launched twice
      kernel       dmesg: OOM kills, GPU Xid errors, NFS not responding, segfaults,
                   hung tasks, hardware errors
      journal      journalctl (priority notice and up), the same signatures
      gpu          nvidia-smi query mode (or rocm-smi): busy %, memory, temperature, and
                   the processes on each GPU
      disk         free space of the run dir's filesystem, its largest items, network mounts
      checkpoints  newest files, sizes, empty or still-growing files, and how long before
                   the log's last write the newest one was saved
      log          the whole file: tracebacks (their final exception line), CUDA OOM,
                   Killed, NCCL/watchdog timeouts, loss=nan/inf, grad-norm explosions,
                   early-stopping notices, no space left; last step/epoch; the tail

    The report leads with what was found; under each finding, indented four spaces, is the
    exact line it came from. Those lines are evidence: quote one verbatim in a diagnosis (the
    ledger recorded this output) instead of paraphrasing it. Signatures are data in
    rules/probe.toml; add your own in .evidence-ledger/rules/probe*.toml.

    \b
    Examples:
      ledger probe --run-dir runs/exp7
      ledger probe --log train.log --log worker1.log --since 2h
      ledger probe --pid 4121 --json
    """
    from ledger import probe as probing

    try:
        since_s = probing.parse_duration(since) if since else None
        rules = probing.load_rules(os.path.abspath(run_dir))
    except (ValueError, probing.RuleError) as exc:
        raise click.ClickException(str(exc))
    opts = probing.Options(run_dir=os.path.abspath(run_dir), logs=list(logs), pid=pid, since_s=since_s, tail=max(0, tail))
    report = probing.run(opts, rules)
    click.echo(probing.to_json(report) if as_json else probing.render(report), nl=False)


# The detector ------------------------------------------------------------------------------


@cli.command()
@click.argument("file", required=False, default="-", metavar="[FILE|-]")
@click.option("--session", "session", help="Check citations against this session's evidence (any unique id prefix).")
@click.option("--project-dir", type=click.Path(file_okay=False), default=None,
              help="Where to look for .evidence-ledger/ (rules, config). Default: the current directory.")
@click.option("--json", "json_out", is_flag=True, help='Print {"decision": ..., "claims": [...]}.')
def check(file, session, project_dir, json_out):
    """Analyse one message the way the Stop guard does: which sentences assert a cause, and
    does each one cite recorded evidence?

    Reads FILE, or stdin when FILE is - or omitted. Without --session there is no evidence, so
    every assertion is uncited. Exits 0 when the guard would allow the message, 1 when it would
    block it, 2 on a usage error.

    \b
    Examples:
      ledger check final.md --session 4277ef59
      echo "The OOM is caused by the eval loop." | ledger check --json
    """
    from ledger import config as config_mod
    from ledger.detect import analyze, decision, evidence_from_rows, load_rules

    try:
        if file == "-":
            message = sys.stdin.read()
        else:
            with open(file, encoding="utf-8") as f:
                message = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        click.echo("ledger check: cannot read %s: %s" % (file, exc), err=True)
        sys.exit(2)
    evidence = []
    if session:
        from ledger import show as showing
        from ledger import store

        conn = showing.open_ledger()
        try:
            try:
                session_id = showing.resolve_session(conn, session)
            except showing.NotFound as exc:
                click.echo("ledger check: %s" % exc, err=True)
                sys.exit(2)
            evidence = evidence_from_rows(store.session_evidence(conn, session_id))
        finally:
            conn.close()
    try:
        config, _ = config_mod.load(project_dir)
    except config_mod.ConfigError as exc:
        click.echo("ledger check: %s" % exc, err=True)
        sys.exit(2)
    report = analyze(message, evidence=evidence, rules=load_rules(project_dir))
    verdict = decision(report, tuple(config.get("block_kinds", ("assertion",))))
    if json_out:
        click.echo(json.dumps({"decision": verdict, "lang": report.lang,
                               "claims": [c.to_dict() for c in report.claims]}, ensure_ascii=False, indent=2))
    else:
        from ledger.detect.text import render_report

        click.echo(render_report(report, verdict, evidence_count=len(evidence) if session else None))
    sys.exit(1 if verdict == "block" else 0)


@cli.command()
@click.option("--project-dir", type=click.Path(file_okay=False), default=None,
              help="Where to look for .evidence-ledger/rules. Default: the current directory.")
@click.option("--json", "json_out", is_flag=True, help="Print the packs and errors as JSON.")
def rules(project_dir, json_out):
    """List the detector's active rule packs and validate every rule file.

    Packs come from the installed package, then ~/.config/evidence-ledger/rules/*.toml, then
    the nearest .evidence-ledger/rules/*.toml; a file with the name of an existing pack edits
    it (see rules/README.md). Exits 1 when any file is invalid, naming the file and the entry.
    """
    from ledger import rules_schema
    from ledger.detect import rules as detect_rules

    files = detect_rules.rule_files(project_dir)
    errors = rules_schema.validate(files)
    built = detect_rules.build(files)
    if json_out:
        click.echo(json.dumps({
            "packs": [{"name": p.name, "lang": p.lang, "patterns": p.count(),
                       "files": [{"origin": o, "path": f} for o, f in p.sources]} for p in built.packs],
            "errors": errors}, ensure_ascii=False, indent=2))
    else:
        for p in built.packs:
            click.echo("%-6s %-3s %4d patterns  %s" % (p.name, p.lang, p.count(), p.description))
            for origin, f in p.sources:
                click.echo("         %-8s %s" % (origin, f))
        for e in errors:
            click.echo("error: %s" % e, err=True)
        if not errors:
            click.echo("%d file(s), all valid." % len(files))
    sys.exit(1 if errors else 0)
