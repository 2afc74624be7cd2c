"""`ledger-hook AGENT`: the one entry point every agent's hooks call.

It reads the payload from stdin, works out what kind of event it is through the agent's
adapter, and hands it to the recorder, the Stop guard or the ledger protector. It never lets
an error of its own reach the agent as a block: any failure exits 0 with one line on stderr.
"""

import gc
import os
import sys

from ledger import jsonc

USAGE = "usage: ledger-hook {claude|codex|gemini}  (reads one hook payload as JSON on stdin)"

# The file installed hooks run by path (see entry.py for why not `-m` or a console script).
ENTRY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "entry.py")


def command(agent, python=None):
    """The argv of the hook process for AGENT, as `ledger install` writes it.

    `-S`: the interpreter starts without `site`, which reads every `.pth` file in
    site-packages (setuptools' distutils hack, editable installs, a vendor's customisation):
    ~2.5 ms of each hook process in a typical virtualenv, more where a `.pth` imports something.
    The hook path needs only the standard library and the package, which entry.py puts on
    sys.path itself; the one third-party module it may want, `regex` (a user's rule with
    \\p{...}), loads `site` first when it is not found without it (rules._regex)."""
    return [python or sys.executable, "-S", ENTRY, agent]


def note(message):
    """One line on stderr: the agents show it in their logs, never to the model."""
    try:
        sys.stderr.write("evidence-ledger: %s\n" % " ".join(str(message).split())[:500])
        sys.stderr.flush()
    except Exception:
        pass


def emit(obj):
    if obj:
        sys.stdout.write(jsonc.dumps(obj, ensure_ascii=False) + "\n")
        sys.stdout.flush()


def read_payload(data):
    """Decode stdin into a payload dict, or return (None, why)."""
    if not data.strip():
        return None, "empty stdin"
    text = data.decode("utf-8", "replace")
    try:
        payload = jsonc.loads(text, strict=False)
    except (ValueError, RecursionError) as exc:
        return None, "stdin is not JSON (%s)" % exc.__class__.__name__
    if not isinstance(payload, dict):
        return None, "payload is %s, not an object" % type(payload).__name__
    return payload, None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        # Read all of stdin first, always: a hook that leaves the pipe unread can hang the client.
        data = sys.stdin.buffer.read()
    except Exception as exc:
        note("could not read stdin: %s" % exc)
        return 0
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write(USAGE + "\n")
        return 0
    if os.environ.get("LEDGER_DISABLE", "").strip() not in ("", "0", "false", "no"):
        return 0
    try:
        return dispatch(argv[0], data)
    except Exception as exc:  # fail open: the agent keeps working
        note("internal error, nothing blocked: %s: %s" % (exc.__class__.__name__, exc))
        return 0


def dispatch(agent, data):
    from ledger import agents

    try:
        adapter = agents.adapter(agent)
    except ValueError as exc:
        note(exc)
        return 0
    payload, why = read_payload(data)
    if payload is None:
        note(why + "; nothing recorded")
        return 0
    event = adapter.parse(payload)
    kind = event.get("kind")
    if kind == "tool":
        from ledger.hooks import record

        try:
            record.handle(event["ev"])
        except Exception as exc:  # fail open, and leave a note for the next Stop and for doctor
            fault(exc, event["ev"].get("session_id"), "this tool call was not recorded")
    elif kind == "stop":
        from ledger.hooks import stop

        emit(stop.handle(event, adapter))
        # After the verdict is out: only a first Stop, or the first after a rule edit, writes.
        from ledger import diskcache

        diskcache.save()
        if stop.merge_due:  # a detached process merges the search index (ledger/merge.py)
            from ledger import merge, paths

            merge.start(paths.db_path())
    elif kind == "pretool":
        from ledger.hooks import protect

        emit(protect.handle(event, adapter))
    else:
        note("ignored event %r" % event.get("event"))
    return 0


def fault(exc, session_id, what):
    """Report a failure of our own: one stderr line now, a systemMessage at the next Stop."""
    from ledger import faults

    kind = faults.classify(exc)
    detail = "%s: %s" % (exc.__class__.__name__, exc)
    try:
        faults.add(kind, detail, session_id=str(session_id) if session_id else None)
    except Exception:
        pass
    note("%s (%s), nothing blocked: %s" % (what, kind, detail))


def _keep_freed_memory():
    """Let this process reuse the memory it frees instead of faulting in fresh pages.

    glibc's malloc serves a block of 128 KiB or more with its own mmap and unmaps it on free, so
    the next big block (SQLite's copy of a 1 MiB output, its str, the tail best_line splits)
    touches fresh pages again: ~3.5 us each on a VM, ~400 of them in a Stop. Freeing one mapped
    block raises that threshold to the block's size (and the heap's trim threshold to twice
    that), which is what malloc does by itself after its first big free; doing it first, with
    8 MiB, keeps the blocks a hook allocates in the heap, where freed ones are used again.
    bytes(n) is calloc'd: fresh mapped memory is zero already, so no page of it is touched.
    Elsewhere than glibc this is one allocation and its free."""
    bytes(8 << 20)


def run():
    # A hook process lives for tens of milliseconds and leaves through os._exit: the cyclic
    # garbage collector would find next to nothing, and its ~15 passes over what the Stop
    # allocates cost ~2 ms. What is freed by reference counting (nearly all) still is.
    gc.disable()
    _keep_freed_memory()
    code = main()
    # Everything is written and closed by now (the ledger connection, the fault file, the regex
    # cache); flush what is buffered and leave without the interpreter's teardown, which frees
    # every object one by one: 3-5 ms of a Stop that the agent waits for.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(code or 0)
