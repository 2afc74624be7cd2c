"""Split a message into Markdown blocks: what is prose, what is code or quoted output.

Only the structure the detector needs: fenced code, block quotes, headings (ATX, and a bold or
`Label:` line standing alone), list items, tables, paragraphs. Anything inside a fence or a
block quote is material (a candidate quote of evidence), never a claim.
"""

from .. import diskcache

_FENCE = diskcache.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_HEADING = diskcache.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_HR = diskcache.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_QUOTE = diskcache.compile(r"^\s{0,3}>\s?(.*)$")
_ITEM = diskcache.compile(r"^(\s*)(?:[-*+•・]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)])\s+(.*)$")
_TABLE = diskcache.compile(r"^\s*\|.*\|\s*$|^\s*\|")
_TABLE_SEP = diskcache.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_BOLD_LINE = diskcache.compile(r"^\s*(?:\*\*|__)((?:[^*_`]|`[^`\n]{1,60}`){1,80}?)(?:\*\*|__)\s*[:：]?\s*$")
# "Evidence:", 「根拠：」 alone on a line; a line holding a whole sentence (「…です。…でした:」) is prose
_LABEL_LINE = diskcache.compile(r"^\s*([^\s:：|`。][^:：|`。]{0,48}?)\s*[:：]\s*$")
# A sentence that ends inside a label line, before the label: "The loader leaks. Evidence:"
_SENTENCE_END = diskcache.compile(r"[a-z)\]`'\"][.!?](?=\s+\S)")


class Block:
    __slots__ = ("kind", "text", "level", "line", "codes", "label", "header")

    def __init__(self, kind, text, line, level=0, codes=None):
        self.kind = kind      # heading | para | item | row | fence | quote | hr
        self.text = text      # prose (heading text, paragraph, item, table row) or material
        self.line = line      # first line, 0-based
        self.level = level    # heading level (1-6; 7 for a bold/label line; 0 otherwise)
        self.codes = codes or []  # fences nested in a list item, as text
        self.label = None
        self.header = None    # a table row: the header row's cells; a header row itself: True

    def __repr__(self):
        return "Block(%s, %r)" % (self.kind, self.text[:40])


def parse(message):
    lines = message.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        m = _FENCE.match(line)
        if m and len(m.group(1)) <= 3:
            body, i = _fence(lines, i, m)
            blocks.append(Block("fence", body, i))
            continue
        m = _HEADING.match(line)
        if m:
            blocks.append(Block("heading", m.group(2), i, level=len(m.group(1))))
            i += 1
            continue
        if _HR.match(line):
            blocks.append(Block("hr", "", i))
            i += 1
            continue
        if _QUOTE.match(line):
            start, body = i, []
            while i < n and lines[i].strip() and (_QUOTE.match(lines[i]) or body):
                q = _QUOTE.match(lines[i])
                if not q and (_ITEM.match(lines[i]) or _HEADING.match(lines[i])):
                    break
                body.append(q.group(1) if q else lines[i].strip())
                i += 1
            blocks.append(Block("quote", "\n".join(body), start))
            continue
        if _TABLE.match(line) and (i + 1 < n and (_TABLE_SEP.match(lines[i + 1]) or _TABLE.match(lines[i + 1]))):
            header = None
            while i < n and _TABLE.match(lines[i]):
                if not _TABLE_SEP.match(lines[i]):
                    cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                    row = Block("row", " | ".join(c for c in cells if c), i)
                    if header is None and i + 1 < n and _TABLE_SEP.match(lines[i + 1]):
                        header, row.header = cells, True
                    else:
                        row.header = header
                    blocks.append(row)
                i += 1
            continue
        m = _ITEM.match(line)
        if m:
            i = _item(lines, i, m, blocks)
            continue
        start, body = i, []
        while i < n and lines[i].strip():
            if body and (_FENCE.match(lines[i]) or _HEADING.match(lines[i]) or _QUOTE.match(lines[i])
                         or _ITEM.match(lines[i]) or _HR.match(lines[i])):
                break
            body.append(lines[i].strip())
            i += 1
        text = "\n".join(body)
        head = _BOLD_LINE.match(text) if len(body) == 1 else None
        label = _LABEL_LINE.match(text) if len(body) == 1 else None
        if head:
            blocks.append(Block("heading", head.group(1).strip(), start, level=7))
        elif label and len(label.group(1).split()) <= 6:
            # "OOM because of fp32 logits. Log:": a sentence, then the label of what follows; the
            # sentence is prose, only the last one labels
            ends = list(_SENTENCE_END.finditer(label.group(1)))
            if ends:
                cut = label.start(1) + ends[-1].end()
                blocks.append(Block("para", text[:cut].strip(), start))
                text = text[cut:]
                label = _LABEL_LINE.match(text)
            blocks.append(Block("heading", label.group(1).strip("*_ "), start, level=7))
        else:
            blocks.append(Block("para", text, start))
    return blocks


def _fence(lines, i, m):
    indent, mark = len(m.group(1)), m.group(2)
    body = []
    i += 1
    while i < len(lines):
        close = _FENCE.match(lines[i])
        if close and close.group(2)[0] == mark[0] and len(close.group(2)) >= len(mark) and not close.group(3).strip():
            i += 1
            break
        body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
        i += 1
    return "\n".join(body), i


def _item(lines, i, m, blocks):
    """One list item with its continuation lines; a fence inside it becomes material."""
    n = len(lines)
    indent = len(m.group(1))
    start = i
    body = [m.group(2).strip()]
    codes = []
    i += 1
    while i < n:
        line = lines[i]
        if not line.strip():
            # A blank line ends the item unless the next line is indented under it.
            j = i + 1
            while j < n and not lines[j].strip():
                j += 1
            if j < n and len(lines[j]) - len(lines[j].lstrip()) > indent and not _ITEM.match(lines[j]):
                i = j
                continue
            break
        f = _FENCE.match(line)
        if f:
            if len(f.group(1)) <= indent and indent == 0 and len(f.group(1)) == 0:
                break
            code, i = _fence(lines, i, f)
            codes.append(code)
            continue
        if _ITEM.match(line) or _HEADING.match(line) or _HR.match(line):
            break
        q = _QUOTE.match(line.strip())
        if q and len(line) - len(line.lstrip()) > indent:
            codes.append(q.group(1))
            i += 1
            continue
        body.append(line.strip())
        i += 1
    blocks.append(Block("item", "\n".join(body), start, codes=codes))
    return i
