"""The final assistant message of the current turn, read from a Claude Code transcript.

Only needed where the Stop payload lacks `last_assistant_message` (Claude Code before 2.1.47).
The file can be tens of megabytes, so it is read backwards in blocks and parsing stops at the
turn's opening user prompt. Facts: ../shared/research/transcript-format.md sections 3-7.
"""

import os
import time

from ledger import jsonc

BLOCK = 64 * 1024
# A turn with huge tool results can sit far back; past this much we give up rather than read
# a 50 MB file whole on every stop.
MAX_BACK = 8 * 1024 * 1024


def reversed_lines(path, max_back=MAX_BACK):
    """Yield complete lines from the end of the file, newest first (bytes, without newline)."""
    if not isinstance(path, str):
        # A payload's transcript_path of 3 would make open() wrap, read and then close file
        # descriptor 3 of this process: only a path string names a transcript.
        raise ValueError("transcript_path is not a path: %r" % (path,))
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        end = f.tell()
        pos = end
        rest = b""
        read = 0
        while pos > 0 and read < max_back:
            size = min(BLOCK, pos)
            pos -= size
            f.seek(pos)
            chunk = f.read(size) + rest
            read += size
            lines = chunk.split(b"\n")
            rest = lines[0]  # may be partial: completed by the next (earlier) block
            for line in reversed(lines[1:]):
                if line.strip():
                    yield line
        if pos == 0 and rest.strip():
            yield rest


def _is_real_prompt(entry):
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return False
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, str):
        return not content.startswith("<") or content.startswith("<command")
    if isinstance(content, list):
        kinds = {b.get("type") for b in content if isinstance(b, dict)}
        return bool(kinds) and "tool_result" not in kinds
    return False


def _text_of(entry):
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def last_assistant_text(path, max_back=MAX_BACK):
    """Return (text, newest_is_assistant_text) for the turn's last message with text."""
    by_id = {}
    order = []
    newest_seen = False
    newest_is_text = False
    for raw in reversed_lines(path, max_back):
        try:
            entry = jsonc.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("isSidechain"):
            continue
        kind = entry.get("type")
        if kind == "assistant":
            text = _text_of(entry)
            if not newest_seen:
                newest_seen = True
                newest_is_text = bool(text.strip())
            if not text.strip():
                continue
            message_id = (entry.get("message") or {}).get("id") or entry.get("uuid")
            if message_id not in by_id:
                if order:  # an older message: the newest one with text is already complete
                    break
                order.append(message_id)
                by_id[message_id] = []
            by_id[message_id].append(text)
        elif kind == "user":
            if not newest_seen:
                newest_seen = True
            if _is_real_prompt(entry):
                break
    if not order:
        return None, newest_is_text
    return "".join(reversed(by_id[order[0]])), newest_is_text


def final_message(path, retries=3, delay=0.15):
    """The turn's final text, retrying briefly for the flush race (the hook can run first)."""
    if not path or not os.path.isfile(path):
        return None
    text = None
    for attempt in range(retries + 1):
        try:
            text, fresh = last_assistant_text(path)
        except OSError:
            return None
        if fresh or attempt == retries:
            break
        time.sleep(delay)
    return text
