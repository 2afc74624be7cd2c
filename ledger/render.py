"""A tool's response, as the text we store and later match quotes against.

The aim is the text the model itself saw, so that what it quotes is what we hold. Shapes differ
by tool and by client version (see ../shared/research/hooks-spec.md section 2.3); every field is
treated as optional, and anything unrecognised falls back to compact JSON.
"""

from ledger import jsonc

SHELL_TOOLS = ("Bash", "PowerShell", "shell", "exec_command", "local_shell", "run_shell_command")


def command_of(tool_name, tool_input):
    """The command line of a shell call, or the main target of another tool (path, url, pattern)."""
    if not isinstance(tool_input, dict):
        return None
    for key in ("command", "cmd"):
        value = tool_input.get(key)
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        if isinstance(value, str):
            return value
    # pattern before path: for Grep/Glob the pattern is what a reader needs to see.
    for key in ("file_path", "absolute_path", "notebook_path", "url", "pattern", "query", "path",
                "description", "prompt"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def response_text(tool_name, response):
    """Render a tool response (dict, list of blocks, string, anything) to text."""
    if response is None:
        return ""
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        return _blocks(response)
    if not isinstance(response, dict):
        return _json(response)

    if "stdout" in response or "stderr" in response:
        return _join(response.get("stdout"), response.get("stderr"))

    file = response.get("file")
    if isinstance(file, dict):  # Read: {"type": "text", "file": {"content": ...}}
        content = file.get("content")
        if isinstance(content, str):
            return content
        return _json(file)

    if tool_name in ("Grep", "Glob", "search_file_content", "glob"):
        content = response.get("content")
        if isinstance(content, str) and content:
            return content
        names = response.get("filenames")
        if isinstance(names, list):
            return "\n".join(str(n) for n in names)

    if tool_name in ("Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace"):
        # The agent's own words: keep a short note, not the content (it is not evidence).
        # Checked before the generic keys: Write's response carries the written `content`, and
        # storing it would let an agent quote its own file back as evidence.
        status = response.get("llmContent")  # Gemini: a one-line status, not the content
        if isinstance(status, str) and status:
            return status
        path = response.get("filePath") or response.get("file_path") or ""
        return ("%s %s" % (response.get("type") or "wrote", path)).strip()

    # Codex and Gemini shapes, and web tools.
    for key in ("llmContent", "output", "result", "content", "text", "returnDisplay"):
        value = response.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list) and value:
            return _blocks(value)

    return _json(response)


def _blocks(blocks):
    parts = []
    for block in blocks:
        if isinstance(block, dict):
            if isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") == "image":
                parts.append("[image]")
            else:
                parts.append(_json(block))
        elif isinstance(block, str):
            parts.append(block)
        else:
            parts.append(_json(block))
    return "\n".join(parts)


def _join(*parts):
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def _json(value):
    return jsonc.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def exit_code_of_error(error):
    """Claude Code's PostToolUseFailure `error` starts with `Exit code N` for shell tools."""
    if not isinstance(error, str) or not error.startswith("Exit code "):
        return None
    first = error.split("\n", 1)[0][len("Exit code "):].strip()
    try:
        return int(first)
    except ValueError:
        return None
