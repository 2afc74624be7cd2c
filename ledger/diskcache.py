"""What the Stop hook derives from its own code and rule packs, kept on disk between processes.

Every Stop is a fresh process, and compiling the detector's regexes (the joined rule lists,
the Unicode character classes) cost ~45 ms of it, parsing the TOML rule packs ~6 ms more,
every time with the same result. This module keeps both in one file per interpreter:

    compile(pattern, flags)  # re.compile(pattern, flags), from the cache when it holds it
    needs(pattern, flags)    # what rules.Matcher's prefilter derives from a list's patterns, likewise
    toml(data)               # tomllib.loads(data) for the bytes of a file, likewise
    toml_file(path)          # the same for a file, found by its stat without reading it
    save()                   # write what this process derived anew (the Stop hook calls it)

Only a regex program proven identical is stored: on a miss the pattern is compiled by
`re.compile` (the object returned), and again through the steps `re._compiler.compile` takes,
keeping their arguments to `_sre.compile` (the program as raw 32-bit words, which load as one
bytes object instead of thousands of ints); the two patterns must compare equal (Pattern
equality compares the compiled code). A hit rebuilds the pattern with `_sre.compile`, which
validates the code. A parsed pack is keyed by the file's exact bytes.

Anything unexpected means no cache: another Python build (the file is keyed by `sys.version`,
`_sre.MAGIC` and `_sre.CODESIZE`), a file that is not ours, too big, corrupt (a CRC-32 of the
body guards it against damage: no defence against someone who can write the file, but neither
was the unkeyed BLAKE2b digest before it, which cost a Stop 1.1 ms to 0.5) or unreadable, a
cache folder we cannot create or write, or `LEDGER_CACHE=off`. The folder is per user (`$XDG_CACHE_HOME/evidence-ledger`, 0700); files
are written to a temporary name and renamed (0600). Stdlib only: this is on the hook path.
"""

import marshal
import os
import stat
import sys

try:
    import _sre
except ImportError:  # another implementation of `re`: no cache, plain re.compile
    _sre = None

from ledger import paths

# The `re` module is imported only when a pattern is compiled afresh (a miss): a Stop whose
# patterns all come from the cache needs no `re`, nor the enum module `re` imports (~3.5 ms).
# re's flag values, for the modules that compile through here (tests/test_diskcache.py holds
# them equal to re.IGNORECASE, re.MULTILINE, re.DOTALL):
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16

# The memoryview format of one program word, or None where none has _sre's word size.
_WORDS = None
if _sre is not None:
    _WORDS = next((f for f in ("I", "L", "H") if memoryview(bytes(8)).cast(f).itemsize == _sre.CODESIZE), None)

# 6: a prefiltered list's index is one entry ("needs", a prefix + its patterns); the
# per-pattern entries of 5 are no longer read, and a file of 5 would carry them forever.
# 7: the index holds each unit's other sets of strings, under a new key ("prefilter index 2"),
# and a list's plan entry says whether it needs `regex`; the indexes of 6 are no longer read.
# 8: the index's lookups are dicts ("prefilter index 3"); the indexes of 7 are no longer read.
# 9: a list's plan and index are one entry, keyed by its joined alternation (no index key), its
# strings stored once, a unit that is a whole pattern named by its position in the list.
# 10: a list's entry is its plan and index marshalled once more (bytes), unmarshalled when the
# list is used: the entries that rule packs of an earlier version left behind (~450 KB for one
# upgrade) cost a Stop that reads them ~3 ms as objects, next to nothing as bytes.
FORMAT = b"evidence-ledger cache 10\n"
DIGEST = 4  # CRC-32, big-endian
MAX_BYTES = 16 * 1024 * 1024
# Rule edits add new joined patterns and leave the old ones behind; past this many entries a
# save keeps only what its own process used.
MAX_ENTRIES = 2000
# Every edit or upgrade of a rule pack leaves its old parse behind (~120 KB for en.toml; with
# the file's text too where it is keyed by its bytes), read on every Stop while far below
# MAX_ENTRIES. A save by a process that parsed packs drops the packs it did not use
# once they weigh more than this; a small project or user file kept by another project's Stop
# stays (dropping it would make two projects rewrite the cache in turn).
STALE_TOML_BYTES = 64 * 1024
# Each upgrade leaves the regexes and prefilter indexes of the old packs behind (~450 KB), which
# every Stop reads with the file, long before MAX_ENTRIES: a save by a process that ran the
# detector drops what it did not use once that weighs more than this. Another project's own
# rule lists (a few hundred KB) stay, as for STALE_TOML_BYTES.
STALE_BYTES = 512 * 1024
# The flags a cached program may carry: DEBUG prints at compile time, TEMPLATE warns, LOCALE
# depends on the locale at compile time; those go to re.compile every time.
_CACHEABLE = IGNORECASE | MULTILINE | DOTALL | 32 | 64 | 256  # re.UNICODE, re.VERBOSE, re.ASCII

# Keys: ("re", pattern, flags) -> the arguments to _sre.compile after the pattern;
#       ("toml", file bytes)   -> the parsed document, marshalled (each load is a fresh copy);
#       ("tomlstat", path, dev, inode, size, mtime_ns, ctime_ns) -> the same (toml_file).
_loaded = None   # entries read from the file
_new = {}        # entries this process derived (and, for regexes, proved)
_used = set()    # keys this process asked for
_hits = {}       # ("re", pattern, flags) -> the Pattern built from its entry (see compile)
# What an entry of _loaded holds once compile let its value go: no value of any kind's shape
# (_get turns it away); save() reads the value back from the file.
_SPENT = object()
_can_save = None  # whether the cache folder can be written (found on the first miss)
_enabled = None  # see enabled()


def version_key():
    """What an entry depends on: this exact interpreter (its `re`, `_sre` and `tomllib`)."""
    return "%s|%s|%x|%d|%d|%d" % (sys.implementation.name, sys.version, sys.hexversion,
                                  _sre.MAGIC, _sre.CODESIZE, _sre.MAXREPEAT)


def cache_file():
    """One file per interpreter version, so two Pythons on one machine do not overwrite each other."""
    tag = "%s-%x-%d-%d" % (sys.implementation.name, sys.hexversion, _sre.MAGIC, _sre.CODESIZE)
    return os.path.join(paths.cache_dir(), "stop-%s.cache" % tag)


def enabled():
    """Whether the cache is used: `LEDGER_CACHE` as this process first finds it (a Stop asks
    some 400 times; each read of the environment cost ~1 us). `_reset` reads it again."""
    global _enabled
    if _enabled is None:
        _enabled = bool(_sre is not None and _WORDS and os.environ.get("LEDGER_CACHE", "").strip().lower()
                        not in ("0", "off", "false", "no"))
    return _enabled


def compile(pattern, flags=0):
    """`re.compile(pattern, flags)`: the same Pattern, without parsing it when the cache holds it."""
    flags = int(flags)
    if not isinstance(pattern, str) or flags & ~_CACHEABLE or not enabled():
        import re

        return re.compile(pattern, flags)
    key = ("re", pattern, flags)
    _used.add(key)
    hit = _hits.get(key)
    if hit is not None:
        return hit
    args = _get(key)
    if args is not None:
        try:
            hit = _sre.compile(pattern, *_program(args))
        except Exception:  # a program this engine rejects: compile it afresh, replace the entry
            _loaded.pop(key, None)
            _new.pop(key, None)
        else:
            # The program (~360 KB for the ~140 a Stop builds) is not needed again: its entry
            # lets it go, so what the Stop allocates next reuses that memory instead of fresh
            # pages (~90 fewer); the Pattern is kept for a second compile of the same pattern.
            if key in _loaded and _loaded[key] is args:
                _loaded[key] = _SPENT
            _hits[key] = hit
            return hit
    import re

    compiled = re.compile(pattern, flags)  # raises re.error as usual
    if not _savable():
        return compiled  # proving an entry nobody can store would double the compile
    try:
        args = _arguments(pattern, flags)
        if _sre.compile(pattern, *_program(args)) == compiled:
            _new[key] = args
    except Exception:  # the private steps changed in this Python: this pattern is not cached
        pass
    return compiled


def _arguments(pattern, flags):
    """The arguments `re._compiler.compile` gives `_sre.compile` after the pattern (3.11-3.13)."""
    from re import _compiler, _parser

    p = _parser.parse(pattern, flags)
    # Opcodes are int subclasses (re._constants._NamedIntConstant), which marshal refuses; kept
    # as the raw words of the program.
    ops = _compiler._code(p, flags)
    code = memoryview(bytearray(_sre.CODESIZE * len(ops))).cast(_WORDS)
    for i, op in enumerate(ops):
        code[i] = int(op)
    code = code.tobytes()
    groupindex = dict(p.state.groupdict)
    indexgroup = [None] * p.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | p.state.flags), code, p.state.groups - 1, groupindex, tuple(indexgroup))


def _program(args):
    """The stored arguments -> those `_sre.compile` takes (the program as a list of ints)."""
    return (args[0], memoryview(args[1]).cast(_WORDS).tolist()) + tuple(args[2:])


def toml(data):
    """`tomllib.loads(data.decode())` for a file's bytes; raises as tomllib does (and UnicodeDecodeError).

    tomllib is imported only on a miss: it and the parse cost a Stop some 6 ms.
    """
    if not enabled():
        return _parse_toml(data)
    key = ("toml", data)
    parsed = _unpack(key)
    if parsed is not None:
        return parsed
    parsed = _parse_toml(data)
    if _savable():
        try:
            _new[key] = marshal.dumps(parsed)
        except ValueError:  # a value marshal cannot hold (a TOML date): parse this file every time
            pass
    return parsed


# A file changed this recently may change again within the clock's granularity while its stat
# stays the same (git calls such index entries racily clean): it is parsed, not kept by stat.
RACY_NS = 2 * 10**9


def toml_file(path):
    """`tomllib.loads` of the file at `path`; raises OSError where it cannot be read, and as
    `toml` does.

    Kept under the file's identity and stat (device, inode, size, mtime and ctime, which the
    kernel sets on every change of content), not its bytes: a rule pack keyed by its text made
    every Stop read the packaged packs (~250 KB) and the cache carry and check them again. A file
    whose last change is under RACY_NS old is parsed each time until it is older."""
    st = os.stat(path)
    if not enabled():
        with open(path, "rb") as f:
            return _parse_toml(f.read())
    key = ("tomlstat", path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    parsed = _unpack(key)
    if parsed is not None:
        return parsed
    with open(path, "rb") as f:
        data = f.read()
    parsed = _parse_toml(data)
    import time

    settled = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS
    if settled and len(data) == st.st_size and _savable():
        try:
            _new[key] = marshal.dumps(parsed)
        except ValueError:  # a TOML date: parsed every time, as by toml()
            pass
    return parsed


def _unpack(key):
    """The parsed document kept under `key` (a fresh copy), or None; an entry that does not
    unmarshal is dropped."""
    _used.add(key)
    packed = _get(key)
    if packed is not None:
        try:
            return marshal.loads(packed)
        except Exception:
            _loaded.pop(key, None)
            _new.pop(key, None)
    return None


def needs(pattern, flags, derive):
    """`derive(pattern, flags)` (ints, strings, tuples and dicts of them, or None), kept:
    what the detector's prefilter knows about a pattern without parsing it (rules.py). Kept
    marshalled, and unmarshalled only here: the file holds the lists of every pack version
    used since it was made, and a Stop reads the file whole."""
    flags = int(flags)
    if not enabled():
        return derive(pattern, flags)
    key = ("needs", pattern, flags)
    found = _unpack(key)
    if type(found) is tuple and len(found) == 1:
        return found[0]
    value = derive(pattern, flags)
    if _savable():
        try:
            _new[key] = marshal.dumps((value,))
        except ValueError:  # not what a prefilter derives: derived again next time
            pass
    return value


def _parse_toml(data):
    import tomllib

    return tomllib.loads(data.decode("utf-8"))


def _savable():
    """Whether this process could write the cache: our own folder, made if missing, writable."""
    global _can_save
    if _can_save is None:
        try:
            folder = os.path.dirname(cache_file())
            os.makedirs(folder, mode=0o700, exist_ok=True)
            _can_save = os.stat(folder).st_uid == os.geteuid() and os.access(folder, os.W_OK)
        except Exception:  # a read-only home, a file where the folder should be
            _can_save = False
    return _can_save


def _get(key):
    """The stored or new entry for `key`, if it has the outer shape its kind needs; else None.

    Only the outer shape, by the key's kind: every entry in a file was checked in full
    (`_well_formed`) by the `save` that wrote it, the file's CRC-32 says it is those bytes, and
    FORMAT changes with any change of shape. The full check of all ~490 entries a Stop reads
    cost it ~1.5 ms (the prefilter's nested tuples of strings). What the outer
    shape does not rule out fails where the value is used, into the fallback each use has
    (re.compile, tomllib, no prefilter)."""
    value = _entries().get(key)
    if value is not None and type(value) is not _SHAPES.get(key[0]):
        _loaded.pop(key, None)
        value = None
    return value if value is not None else _new.get(key)


# The type of each kind's value (`_well_formed` has the rest).
_SHAPES = {"re": tuple, "toml": bytes, "tomlstat": bytes, "needs": bytes}
# The kinds that hold a parsed TOML file, and what an entry of each weighs beyond its value.
_TOML_KINDS = {"toml": lambda key: len(key[1]), "tomlstat": lambda key: 0}


def _entries():
    global _loaded
    if _loaded is None:
        _loaded = {}
        try:
            _loaded = _read(cache_file())
        except Exception:  # unreadable, foreign, corrupt: start empty, the next save replaces it
            pass
    return _loaded


def _digest(body):
    try:
        from zlib import crc32
    except ImportError:  # a Python built without zlib: binascii has its own
        from binascii import crc32
    return crc32(body).to_bytes(DIGEST, "big")


def _read(path):
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        st = os.fstat(fd)
        # Only a regular file of ours that nobody else could have written.
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022
                or st.st_size > MAX_BYTES):
            return {}
        with os.fdopen(fd, "rb", buffering=0, closefd=False) as f:
            data = f.readall()  # into one buffer of the file's size: no 16 MiB one cut down
    finally:
        os.close(fd)
    head = len(FORMAT) + DIGEST
    if not data.startswith(FORMAT) or len(data) <= head or len(data) > MAX_BYTES:
        return {}
    body = memoryview(data)[head:]  # not a copy of half a megabyte
    if _digest(body) != data[len(FORMAT):head]:
        return {}
    version, entries = marshal.loads(body)
    if version != version_key() or not isinstance(entries, dict):
        return {}
    return entries  # each entry is checked when it is used (_get): most never are


def _well_formed(key, value):
    if not isinstance(key, tuple) or not key:
        return False
    if key[0] == "re":
        return (len(key) == 3 and isinstance(key[1], str) and isinstance(key[2], int)
                and isinstance(value, tuple) and len(value) == 5
                and isinstance(value[0], int) and isinstance(value[1], bytes)
                and len(value[1]) % _sre.CODESIZE == 0
                and isinstance(value[2], int) and isinstance(value[3], dict)
                and isinstance(value[4], tuple))
    if key[0] == "toml":
        return len(key) == 2 and isinstance(key[1], bytes) and isinstance(value, bytes)
    if key[0] == "tomlstat":
        return (len(key) == 7 and isinstance(key[1], str) and all(type(v) is int for v in key[2:])
                and isinstance(value, bytes))
    if key[0] == "needs":
        return (len(key) == 3 and isinstance(key[1], str) and isinstance(key[2], int)
                and isinstance(value, bytes))
    return False


def save():
    """Write the entries this process added, if any. Never raises: the cache is an optimisation."""
    global _new
    if not _new or not enabled():
        return False
    try:
        entries = {k: v for k, v in _entries().items() if _well_formed(k, v)}
        spent = [k for k, v in _entries().items() if v is _SPENT]
        if spent:
            # The entries compile let go of, from the file they were read from.
            try:
                stored = _read(cache_file())
            except Exception:
                stored = {}
            for key in spent:
                value = stored.get(key)
                if value is not None and _well_formed(key, value):
                    entries[key] = value
        entries.update(_new)
        if len(entries) > MAX_ENTRIES or (
                any(k[0] == "needs" for k in _used)
                and sum(_weight(k, v) for k, v in entries.items() if k not in _used) > STALE_BYTES):
            entries = {k: v for k, v in entries.items() if k in _used}
        elif any(k[0] in _TOML_KINDS for k in _used):
            stale = [k for k in entries if k[0] in _TOML_KINDS and k not in _used]
            if sum(_TOML_KINDS[k[0]](k) + len(entries[k]) for k in stale) > STALE_TOML_BYTES:
                for k in stale:
                    del entries[k]
        _write(cache_file(), entries)
    except Exception:
        return False
    _loaded.update(_new)
    _new = {}
    return True


def _weight(key, value):
    """About what an entry adds to the file: its pattern or file text and its stored bytes."""
    size = len(key[1]) if isinstance(key[1], (str, bytes)) else 0
    return size + (len(value[1]) if key[0] == "re" else len(value))


def _write(path, entries):
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    st = os.stat(folder)
    if st.st_uid != os.geteuid():
        raise PermissionError("%s is not ours" % folder)
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)
    body = marshal.dumps((version_key(), entries))
    tmp = "%s.%d.%s.tmp" % (path, os.getpid(), os.urandom(4).hex())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(FORMAT + _digest(body) + body)
        os.replace(tmp, path)  # readers see the old file or the new one, never half of one
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _reset():
    """Forget what this process loaded and derived (tests)."""
    global _loaded, _new, _can_save, _enabled
    _loaded, _new, _can_save, _enabled = None, {}, None, None
    _used.clear()
    _hits.clear()
