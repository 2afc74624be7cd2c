"""`json.loads` and `json.dumps` for the hooks, through json's own C accelerator (`_json`),
without importing the `json` package.

json.decoder and json.encoder compile regexes when they are imported, so `import json` brings
in `re`, and `re` brings in `enum`: ~5 ms of every Stop process, which otherwise needs no `re`
module at all (its regexes come from ledger.diskcache). The results are json's: the C scanner
and the C encoder here are the ones json itself uses for these calls, set up the way
json.decoder.JSONDecoder and json.encoder.JSONEncoder set them up. Whatever they do not settle
(an error to raise, a value the encoder cannot handle, a Python without `_json`) goes to json
itself, so errors are json's too. Stdlib only: this is on the hook path.
"""

try:
    from _json import encode_basestring, encode_basestring_ascii
    from _json import make_encoder as _make_encoder
    from _json import make_scanner as _make_scanner
except ImportError:  # another implementation: json itself
    _make_scanner = _make_encoder = None

_WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE
_NOT_UTF8 = (b"", b"\0", b"\xef", b"\xfe", b"\xff")  # how UTF-8 never starts, as json sees it


class _Decoder:
    """The attributes of json.decoder.JSONDecoder that the C scanner reads."""

    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    def __init__(self, strict):
        self.strict = strict
        nan, inf = float("nan"), float("inf")
        self.parse_constant = {"-Infinity": -inf, "Infinity": inf, "NaN": nan}.__getitem__


_scanners = {}


def _scanner(strict):
    """The C scanner json would make for this `strict`, or None where it cannot be made here
    (another Python's _json asking for more): then json itself decodes."""
    scan = _scanners.get(strict, False)
    if scan is False:
        try:
            scan = _make_scanner(_Decoder(strict))
        except Exception:
            scan = None
        _scanners[strict] = scan
    return scan


def loads(text, strict=True):
    """`json.loads(text, strict=strict)`, for a str or for bytes (UTF-8, as json detects it)."""
    given = text
    if type(text) is bytes and text[:1] not in _NOT_UTF8 and text[1:2] != b"\0":
        # json.detect_encoding: a BOM, or a zero among the first bytes, means UTF-16 or -32.
        try:
            text = text.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            pass
    scan = _scanner(bool(strict)) if _make_scanner is not None and type(text) is str else None
    if scan is not None:
        # JSONDecoder.decode: skip whitespace, scan one value, allow only whitespace after it.
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except (StopIteration, ValueError, SystemError):
            # json says what is wrong. (The scanner of Python 3.11 raises JSONDecodeError only
            # once json.decoder is imported; before that it fails with a SystemError.)
            value, end = None, -1
        if end >= 0 and not text[end:].strip(_WHITESPACE):
            return value
    import json

    return json.loads(given, strict=strict)


def _unsupported(value):
    raise _Unsupported


class _Unsupported(Exception):
    pass


def dumps(value, ensure_ascii=True, separators=None, default=None):
    """`json.dumps(value, ensure_ascii=..., separators=..., default=...)`."""
    if _make_encoder is not None:
        encode_string = encode_basestring_ascii if ensure_ascii else encode_basestring
        # JSONEncoder.encode: a string directly, anything else through the one-shot C encoder.
        if isinstance(value, str):
            return encode_string(value)
        item_separator, key_separator = separators or (", ", ": ")
        try:
            encode = _make_encoder({}, default or _unsupported, encode_string, None,
                                   key_separator, item_separator, False, False, True)
        except Exception:  # another Python's _json asking for more: json itself
            encode = None
        if encode is not None:
            try:
                chunks = encode(value, 0)
            except _Unsupported:
                pass  # json raises its own TypeError
            else:
                if not isinstance(chunks, (list, tuple)):
                    chunks = list(chunks)
                return "".join(chunks)
    import json

    return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators, default=default)
