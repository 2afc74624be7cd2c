"""Rule packs: TOML files of regular expressions, merged and compiled once per process.

Where packs come from, in order (later files edit earlier ones):

1. the packaged packs, `ledger.paths.rules_dir()` (`ledger/_data/rules` in a wheel, `rules/`
   in a checkout);
2. the user's files, `~/.config/evidence-ledger/rules/*.toml`;
3. the project's files, the nearest `.evidence-ledger/rules/*.toml` walking up from the
   project directory (or the current directory).

A file whose `[pack] name` matches a pack already loaded edits it: its lists are appended,
its scalars replace, and the entries listed under `[remove]` (same shape as the pack) are
deleted. A file with a new name adds a pack; every pack with the same `lang` applies to
sentences of that language. See rules/README.md.

This module is on the Stop hook's path: stdlib only, and a broken user file never stops the
hook. It is skipped and its error is kept in `Rules.errors`, which `ledger rules` shows.
"""

import os
import sys

from .. import paths
from .. import diskcache

# Lists of patterns, by section. Anything else in a pack is a scalar or an error.
PATTERN_LISTS = {
    "cues": (
        "cause_frame", "cause_verb", "connective", "failure", "not_failure", "hedge",
        "unknown", "negation_before", "negation_after", "negated", "pseudo_negation", "contrast", "clause_break",
        "question", "conditional", "instruction", "rationale", "anaphora",
        "result", "explanation", "predicate", "own_action", "discovery", "defect", "control", "purpose",
        "purpose_after",
    ),
    "headings": ("confirmed", "hypothesis", "assertion", "findings", "observation", "ruled_out", "explainer"),
    # The small words the checks in classify.py lean on: what a list head, a topic, a reason
    # ending, a negation look like (see rules/README.md, "grammar").
    "grammar": (
        "list_head", "any_negation", "names_cause", "reason_end", "topic", "forward_connective",
        "look_back", "reason_effect", "certain", "hedge_stop", "list_intro", "past_end", "verb_end", "subject", "subject_verb",
        "failure_noun", "failure_adjective", "label_head", "observed_head", "generic_when",
        "nominal_cause", "observed_tail", "change_topic", "event_chain", "purpose_end",
        "chain_breaker", "chain_cause", "present_state", "unless", "not_a", "what_happened",
        "why_heading", "why_question", "additive", "found_opener", "named_hypothesis", "separate_issue", "settings_column",
        "probe_plan", "located_tail", "commit_head", "commit_fix", "mechanism_end", "cause_column",
        "first_person", "no_harm", "practice_end", "culprit", "explains_before",
        "chat_opener", "supposition", "when_only", "shown_clause", "fix_label", "hedged_origin",
        "restates",
    ),
    "labels": ("evidence",),
    "citation": ("evidence_id", "generic_quote", "back_reference", "follow_on", "summary_heading", "details_heading",
                 "counts_causes", "related_terms", "boilerplate"),
}
# Grammar lists whose entries, from any pack, apply to sentences of every language.
BOTH_WAYS = ("list_head", "any_negation", "names_cause", "hedge_stop", "not_a", "what_happened",
             "why_heading", "why_question")
SCALARS = {
    "pack": {"name": str, "lang": str, "description": str, "case_sensitive": bool, "extends": str},
    "citation": {"min_quote_chars": int, "min_single_token_chars": int},
}
DEFAULTS = {"min_quote_chars": 10, "min_single_token_chars": 16}

_NEEDS_REGEX = diskcache.compile(r"\\[pPX]|\[\[:|\(\?[a-z]*V[01]")


def _re_error():
    """`re.error`, for an except clause (evaluated only once something was raised): this module
    does not import `re` itself, a Stop whose regexes all come from diskcache needs none."""
    import re

    return re.error


class RuleError(Exception):
    def __init__(self, path, where, message):
        self.path = path
        self.where = where
        self.message = message
        super().__init__(f"{path}: {where}: {message}" if where else f"{path}: {message}")


def _compile(pattern, flags, cached=False):
    """`re` first; the `regex` module only for patterns that need it (\\p{...}), imported lazily.

    `cached`: through the Stop hook's disk cache. Not for validating a user's file, whose every
    pattern would fill the cache only to be checked and dropped."""
    if _NEEDS_REGEX.search(pattern):
        regex = _regex()
        return regex.compile(pattern, flags | regex.V0)
    if cached:
        return diskcache.compile(pattern, flags)
    import re

    return re.compile(pattern, flags)


def _regex():
    """The `regex` module. A hook runs under `python -S` (hooks.command), so site-packages is on
    sys.path only when the package was installed there (entry.py puts the folder that holds
    `ledger` first): from a source checkout or an editable install, `site` is run here, once,
    the first time a pattern needs `regex`, and the import tried again."""
    try:
        import regex
    except ImportError:
        if not sys.flags.no_site:
            raise
        import site

        site.main()
        import regex
    return regex


# A list of at least this many patterns gets the prefilter (Matcher). Short lists gain too: their
# entries are long (their joined programs were the biggest a Stop rebuilt from the cache), and
# the candidates come from an index of the strings, one `in` each.
_PREFILTER_FROM = 2
# Texts whose matches a Matcher keeps (finditer): the sentence being classified and the parts
# of it the classifier looks at; emptied when full, so a long message holds no more than this.
_MEMO = 64
# Characters outside ASCII that `re` matches to an ASCII letter when it ignores case, and that
# letter: the prefilter's lowered text shows that letter where the text holds one of them.
# tests/test_rules.py checks this against the running Python's `re`.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _units(pattern, flags):
    """What the prefilter knows of one pattern: a (source, shortest match, capturing groups,
    strings, more) per unit it searches, `source` None for the pattern itself; every match of the
    unit holds one of the lower-cased ASCII `strings` (ignoring case), or `strings` is None when
    its parse shows none (`_needs`, from re's own parse tree), and one of each tuple of strings
    in `more` besides (the rest of what its sequence needs, `_options`).

    A pattern that is an alternation at its top ("a|b|...|z") is split into its branches when
    each parses alone exactly as it does in the alternation (same tree, same flags, no groups):
    a sentence is then searched only for the branches it may match, where the widest entries
    (one holds 40 branches) cost ~60 µs a sentence whole. The branches in order are what the
    alternation tries in order, so the list's matches are unchanged (`_alternation`). re's
    parser moves what every branch starts with out in front of the alternation ("\\ba|\\bb"
    parses as "\\b(?:a|b)"); when that is a run of single characters and anchors, which match
    one way or not at all, trying it then each branch is trying each branch whole in order,
    and each branch alone must parse as that run followed by the branch. Derived for each
    pattern of a list when its index is built (`Matcher._index`), which diskcache.needs keeps."""
    from re import _constants, _parser

    parsed = _parser.parse(pattern, flags)
    whole = ((None, parsed.getwidth()[0], parsed.state.groups - 1) + _needed(parsed.data, _constants),)
    data = parsed.data
    if not data or data[-1][0] is not _constants.BRANCH or parsed.state.groups != 1:
        return whole
    lead = data[:-1]
    if any(op not in (_constants.LITERAL, _constants.NOT_LITERAL, _constants.IN, _constants.ANY, _constants.AT)
           for op, _ in lead):
        return whole
    items = data[-1][1][1]
    pieces = _top_branches(pattern, flags)
    if pieces is None or len(pieces) != len(items):
        return whole
    units = []
    for piece, item in zip(pieces, items):
        try:
            alone = _parser.parse(piece, flags)
        except Exception:
            return whole
        if (repr(alone.data) != repr(lead + item.data) or alone.state.flags != parsed.state.flags
                or alone.state.groups != 1):
            return whole
        strings, more = _needed(alone.data, _constants)
        if strings is None:  # a branch every sentence may match (Japanese, say): keep it whole
            return whole
        units.append((piece, alone.getwidth()[0], 0, strings, more))
    return tuple(units)


def _top_branches(pattern, flags):
    """The source of each top-level alternative of `pattern`, or None where a plain scan of the
    source cannot tell (verbose mode, comments). `_units` checks each against re's own parse."""
    if flags & 64 or "(?#" in pattern or "(?x" in pattern:  # re.VERBOSE
        return None
    pieces, depth, start, i, n = [], 0, 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":  # a set: "]" first (after "^") is a member; it ends at the next bare "]"
            i += 1
            if pattern.startswith("^", i):
                i += 1
            if pattern.startswith("]", i):
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            pieces.append(pattern[start:i])
            start = i + 1
        i += 1
    pieces.append(pattern[start:])
    return pieces


def _groups(pattern, flags):
    """The capturing groups of the joined alternation, or -1 when re cannot parse it."""
    from re import _parser

    try:
        return _parser.parse(pattern, flags).state.groups - 1
    except _re_error():
        return -1


# What `_plan` gives a joined list that one of its patterns needs the `regex` module for.
_REGEX = -2


def _plan(joined, flags):
    """What Matcher._prepare keeps on disk of a list of two or more patterns joined: _REGEX
    when one of them needs `regex` (a match of _NEEDS_REGEX in the alternation is one in a
    pattern: what joins them, ")|(?:", starts or ends none), else its capturing groups
    (`_groups`). A value kept by a version before `_REGEX` is its groups: that version kept
    the entry only for a list that needs no `regex`."""
    if _NEEDS_REGEX.search(joined):
        return _REGEX
    return _groups(joined, flags)


def _needs(items, c):
    """A set of strings a match of this sequence must hold one of (`_options`): the most
    selective, or None when it needs none."""
    options = _options(items, c)
    if not options:
        return None
    return max(options, key=_selectivity)


def _selectivity(option):
    return min(map(len, option)), -len(option)


def _needed(items, c):
    """(`_needs`, the other sets of `_options`, each once): what the prefilter's index keeps of
    a unit. Its strings are looked for through the first; a text that holds one of those but
    none of another set's cannot match either."""
    options = _options(items, c)
    if not options:
        return None, ()
    first = max(options, key=_selectivity)
    more = []
    for option in options:
        if option != first and option not in more:
            more.append(option)
    return first, tuple(more)


def _options(items, c):
    """Sets of strings a match of this sequence must hold one of each: a run of literal
    characters, what a group, a repeat at least once or a lookahead or lookbehind needs (what
    it looks at is in the text too: each set its sequence needs), an alternation (one of each
    branch's, `_needs`). Negative assertions, classes and anything else need nothing."""
    options = []
    run = ""
    for op, av in items:
        if op is c.LITERAL and av < 128:
            run += chr(av).lower()
            continue
        if run:
            options.append((run,))
            run = ""
        inner = None
        if op is c.SUBPATTERN:
            inner = av[3].data
        elif op is c.BRANCH:
            branches = [_needs(b.data, c) for b in av[1]]
            if all(branches):
                options.append(tuple(sorted(set().union(*branches))))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
            inner = av[2].data
        elif op is getattr(c, "ATOMIC_GROUP", None):
            inner = av.data
        elif op is c.ASSERT:
            inner = av[1].data
        if inner is not None:
            options.extend(_options(inner, c))
    if run:
        options.append((run,))
    return options


_TRIGRAMS = {}  # lowered text -> the set of its runs of three characters; emptied when full


def _trigrams(low):
    found = _TRIGRAMS.get(low)
    if found is None:
        if len(_TRIGRAMS) >= _MEMO:
            _TRIGRAMS.clear()
        found = _TRIGRAMS[low] = {low[i:i + 3] for i in range(len(low) - 2)}
    return found


def forget_texts():
    """Empty the memo of texts' trigrams: a caller done with its analyses frees its memory
    (~200 KB after the bench's message; the Stop hook reuses it for the suggestions)."""
    _TRIGRAMS.clear()


def _one_or_all(items):
    """The one item of `items`, or a tuple of them all (none, or two or more): what the prefilter
    index keeps, where most strings are needed by one unit and most starts start one string
    (a tuple of one cost a Stop's cache ~50 bytes each, ~4,000 of them)."""
    return items[0] if len(items) == 1 else tuple(items)


def _alternation(text, pos, patterns):
    """re.finditer of `(?:p1)|(?:p2)|...` from `pos`, for patterns without groups whose every
    match is non-empty: at each step the leftmost match of any pattern, the first pattern in
    order on a tie (what the alternation tries first at that position), then on from its end."""
    found = []
    ahead = [p.search(text, pos) for p in patterns]
    while True:
        best = None
        for m in ahead:
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        if best is None:
            return found
        found.append(best)
        pos = best.end()
        for i, m in enumerate(ahead):
            if m is not None and m.start() < pos:
                ahead[i] = patterns[i].search(text, pos)


class Matcher:
    """One list of patterns, joined into one alternation so a sentence costs one search.

    Nothing is compiled until the first search: a Stop process pays only for the lists the
    message reaches (a message without headings never compiles the heading lists). The packaged
    packs are not compiled one by one on this path at all; `ledger rules` and the tests do that.

    A long list is prefiltered: each pattern is known (from its parse, kept on disk) to need one
    of a few literal strings in any match, so a sentence holding none of a pattern's strings
    cannot match it. Only the patterns a sentence may match are searched, alone, and their
    matches combined the way the alternation would have found them (`_alternation`); when every
    pattern may match, the alternation is searched as before, and so it is when one of those
    may match the empty string. A pattern that is an alternation at its top is prefiltered
    branch by branch (`_units`). Lists whose patterns have groups are always searched whole.
    """

    __slots__ = ("patterns", "flags", "_one", "_all", "_ready", "_needs", "_single", "_found",
                 "_sources", "_by_string", "_always", "_empty", "_by_start", "_short", "_more", "_first")

    def __init__(self, patterns, flags):
        self.patterns = list(patterns)
        self.flags = flags
        self._one = None
        self._all = None
        self._ready = False
        self._needs = None  # per unit (a pattern, or a branch of one: `_units`)
        self._single = None
        self._sources = None
        self._by_string = None  # each string -> the units that need it
        self._always = None  # the units that need no string
        self._empty = None  # the units that can match the empty string
        self._by_start = None  # the first three characters of each string -> those strings
        self._short = None  # the strings of one or two characters
        self._more = None  # unit -> the other sets of strings it needs one of each of
        # finditer's answers by text: the classifier asks a list about one sentence several
        # times (the failure words, for each cue it weighs); the matches are the same each time.
        self._found = {}
        self._first = {}  # search's answers by text, for pos 0 (see search)

    def _prepare(self):
        self._ready = True
        # The alternation built by one join, and (for a short list) searched once for what
        # needs `regex`: a match of _NEEDS_REGEX in it is one in a pattern (see _plan), so
        # this is any(_NEEDS_REGEX.search(p) for p in patterns) without a search and a format
        # per pattern (~1000 of each in a Stop).
        joined = "(?:%s)" % ")|(?:".join(self.patterns) if self.patterns else ""
        index = None
        if len(self.patterns) >= _PREFILTER_FROM:
            # Whether a pattern needs `regex`, whether the alternation parses and its groups
            # are kept on disk (`_plan`): a Stop searched its lists' 80 KB of source for
            # _NEEDS_REGEX every time (~0.5 ms), and a prefiltered list loads its (large)
            # program only when a sentence needs it all. The prefilter's index is kept with
            # the plan, under the same key (`_plan_and_index`).
            kept = diskcache.needs(joined, self.flags, self._plan_and_index)
            if type(kept) is not tuple or len(kept) != 2:  # not what we keep: derived afresh
                kept = self._plan_and_index(joined, self.flags)
            plan, index = kept
        else:
            plan = _REGEX if not joined or _NEEDS_REGEX.search(joined) else None
        if plan != _REGEX:
            if plan == 0:
                self._needs = self._requirements(index)
                if self._needs is not None:
                    self._one = joined
                    return
            try:
                self._one = diskcache.compile(joined, self.flags)
            except _re_error():
                self.each()  # one bad or unjoinable pattern: fall back to the list, without it
            return
        self.each()

    def _joined(self):
        if isinstance(self._one, str):
            try:
                self._one = diskcache.compile(self._one, self.flags)
            except _re_error():  # parsed but did not compile: the list, as _prepare would have
                self._one = self._needs = None
                self.each()
        return self._one

    def _plan_and_index(self, joined, flags):
        """What `_prepare` keeps on disk of a list of two or more patterns, under its joined
        alternation: (`_plan`, the prefilter's index (`_index`) where the plan is 0, else None).

        One entry, where the plan and the index were two, each keyed by the list's patterns
        joined: the second key was ~140 KB of pattern text that every Stop read and kept in
        memory for the lists the bench's message reaches."""
        plan = _plan(joined, flags)
        return plan, (self._index(flags) if plan == 0 else None)

    def _requirements(self, index):
        """The prefilter's `index` of this list (see `_index`), kept on disk with its plan: a
        Stop reads the index of each list it searches, where rebuilding it from each pattern's
        entry cost ~1.3 ms. Any failure, here or in what the disk cache gave back (diskcache
        checks only the outer shape of what it reads), means no prefilter: the list is
        searched whole, as before."""
        try:
            if index is None:
                return None
            count, sources, by_string, by_start, short, more, always, empty = index
            if (len(sources) != count or type(by_string) is not dict or type(by_start) is not dict
                    or type(more) is not dict):
                return None
            # Every string a str, or a TypeError, which the except below turns into no
            # prefilter: checked in C, where a generator's test per string cost a Stop ~0.1 ms
            # (3,300 strings in the lists it prepares).
            "".join(by_string)
            "".join(short)
        except Exception:
            return None
        self._sources = sources
        self._single = [None] * count
        self._by_string = by_string
        self._always = always
        self._empty = set(empty)
        self._by_start = by_start
        self._short = short
        self._more = more
        return range(count)  # one per unit: what `_needs` is asked is whether it is None, and its length

    def _index(self, flags):
        """From what each pattern needs (`_units`): (the number of units, each unit's source
        (a branch's text, or for a unit that is a whole pattern its position in the list),
        {each needed string: the units that need it (none for a string only in `more`)},
        {the first three characters of each string of 3+: the strings that start with them},
        the strings of one or two, {unit: its other sets of strings} for each unit that has
        more, the units that need no string, those that can match the empty string); None
        when the list cannot be prefiltered. Strings, ints, tuples and dicts of them, as
        diskcache keeps them; where the units or strings are one, the one, not a tuple of it.

        The lookups are dicts as marshal builds them, where tuples zipped into dicts after the
        load cost a Stop ~0.4 ms more (and ~50 more pages) for the lists it prepares. Each
        string is one object wherever it is named (marshal stores an object named twice once,
        and loads it once): `more` named its own copies of ~4,000 strings, and each unit its
        whole pattern's text, which the list holds. With the plan in the same entry, the
        bench's cache 969 -> 845 KB, and what a Stop loads from it 1.84 -> 1.53 MB."""
        try:
            # Each pattern parsed here, not kept on disk one by one: a warm Stop reads only the
            # index, and a rule edit re-derives the lists it changed (a few ms, once).
            found = [_units(p, flags) for p in self.patterns]
        except Exception:  # a pattern re parses differently alone: no prefilter
            return None
        sources, needs, empty, more = [], [], [], []
        for position, units in enumerate(found):
            for source, width, groups, strings, others in units:
                if groups != 0:
                    return None
                if width <= 0:  # "^(?=.*by design).*": searched through the joined alternation
                    empty.append(len(sources))
                if others:
                    more.append((len(sources), others))
                sources.append(position if source is None else source)
                needs.append(strings)
        by_string = {}
        for i, strings in enumerate(needs):
            for s in strings or ():
                by_string.setdefault(s, []).append(i)
        for _, others in more:
            for strings in others:
                for s in strings:
                    by_string.setdefault(s, [])
        by_start = {}
        for s in by_string:
            if len(s) >= 3:
                by_start.setdefault(s[:3], []).append(s)
        same = {s: s for s in by_string}  # each string as by_string names it
        more = {i: tuple(tuple(same[s] for s in strings) for strings in others) for i, others in more}
        return (len(sources), tuple(sources), {s: _one_or_all(v) for s, v in by_string.items()},
                {start: _one_or_all(v) for start, v in by_start.items()},
                tuple(s for s in by_string if len(s) < 3), more,
                tuple(i for i, strings in enumerate(needs) if strings is None), tuple(empty))

    def _candidates(self, text):
        """The patterns `text` may match, in order, compiled; None when that is all of them."""
        if self._needs is None:
            return None
        low = (text if text.isascii() else text.translate(_FOLD)).lower()
        keep = set(self._always)
        by_string = self._by_string
        # A string the text holds starts with three characters the text holds in a row: only
        # the strings whose start is among the text's are looked for (one `in` each).
        by_start = self._by_start
        held = []
        for start in _trigrams(low).intersection(by_start):
            strings = by_start[start]
            if strings.__class__ is str:  # one string starts so (see _index)
                if strings in low:
                    held.append(strings)
            else:
                held.extend(filter(low.__contains__, strings))
        held.extend(filter(low.__contains__, self._short))
        for s in held:
            units = by_string[s]
            if units.__class__ is int:  # one unit needs it (see _index)
                keep.add(units)
            else:
                keep.update(units)
        more = self._more
        if more:
            # A unit whose first set the text holds a string of, but not one of each other set
            # its matches need ("went|dropped|fell ... from ..."), cannot match it either.
            held = set(held)
            for i in more.keys() & keep:
                for strings in more[i]:
                    if held.isdisjoint(strings):
                        keep.discard(i)
                        break
        if len(keep) == len(self._needs) or not self._empty.isdisjoint(keep):
            # All of them, or one that can match the empty string (which `_alternation`, going
            # on from the end of each match, would not step past the way finditer does).
            return None
        keep = sorted(keep)
        try:
            for i in keep:
                if self._single[i] is None:
                    # (not `_compile`: a unit is part of a pattern, and no pattern of a
                    # prefiltered list needs `regex`, see _prepare)
                    source = self._sources[i]
                    if source.__class__ is int:  # a whole pattern, by its position (see _index)
                        source = self.patterns[source]
                    self._single[i] = diskcache.compile(source, self.flags)
        except Exception:
            self._needs = None
            return None
        return [self._single[i] for i in keep]

    def search(self, text, pos=0):
        """The first match from `pos`: the first of finditer's matches when `pos` is 0 (the
        classifier asks a list about one sentence many times: "hedge", "negated", "anaphora"
        each some 10 times a Stop, for a few sentences), kept by text like finditer's."""
        if pos:
            return self._search(text, pos)
        found = self._found.get(text)
        if found is not None:
            return found[0] if found else None
        first = self._first.get(text, self)  # (self: not asked yet; None is an answer)
        if first is self:
            first = self._search(text, 0)
            if len(self._first) >= _MEMO:
                self._first.clear()
            self._first[text] = first
        return first

    def _search(self, text, pos):
        if not self._ready:
            self._prepare()
        if self._one is not None:
            some = self._candidates(text)
            if some is None and self._joined() is not None:
                return self._one.search(text, pos)
            if some is not None:
                best = None
                for c in some:
                    m = c.search(text, pos)
                    if m is not None and (best is None or m.start() < best.start()):
                        best = m
                return best
        best = None
        for c in self._all:
            m = c.search(text, pos)
            if m and (best is None or m.start() < best.start()):
                best = m
        return best

    def finditer(self, text):
        found = self._found.get(text)
        if found is None:
            found = self._finditer(text)
            if len(self._found) >= _MEMO:
                self._found.clear()
            self._found[text] = found
        return list(found)  # a list of its own for each caller

    def _finditer(self, text):
        if not self._ready:
            self._prepare()
        if self._one is not None:
            some = self._candidates(text)
            if some is None and self._joined() is not None:
                return list(self._one.finditer(text))
            if some is not None:
                return _alternation(text, 0, some)
        found = []
        for c in self._all:
            found.extend(c.finditer(text))
        found.sort(key=lambda m: m.start())
        return found

    def each(self):
        """Every pattern compiled alone; a broken one is left out (the hook must not fail)."""
        if self._all is None:
            out = []
            for p in self.patterns:
                try:
                    out.append(_compile(p, self.flags, cached=True))
                except Exception:  # re.error, regex.error: `ledger rules` names it
                    pass
            self._all = out
        return self._all

    def __bool__(self):
        return bool(self.patterns)


class Pack:
    """One merged pack: its data as loaded, and the files it came from."""

    def __init__(self, name, lang, data, sources):
        self.name = name
        self.lang = lang
        self.data = data
        self.sources = sources

    @property
    def description(self):
        return self.data.get("pack", {}).get("description", "")

    def count(self):
        return sum(len(v) for sec in PATTERN_LISTS for v in self.data.get(sec, {}).values()
                   if isinstance(v, list))


class LangRules:
    """Compiled rules for one language: the union of every pack with that `lang`."""

    def __init__(self, lang, packs, shared=None):
        self.lang = lang
        flags = diskcache.IGNORECASE
        if any(p.data.get("pack", {}).get("case_sensitive") for p in packs):
            flags = 0
        # Every list exists even when no pack of this language loaded, so a broken pack
        # leaves empty lists behind, not missing attributes.
        merged = {key: [] for keys in PATTERN_LISTS.values() for key in keys}
        scalars = dict(DEFAULTS)
        for p in packs:
            for sec, keys in PATTERN_LISTS.items():
                for key in keys:
                    _extend_unique(merged[key], p.data.get(sec, {}).get(key, []))
            for key in DEFAULTS:
                if key in p.data.get("citation", {}):
                    scalars[key] = p.data["citation"][key]
        # Failure vocabulary crosses languages: a Japanese sentence says "OOM" and "NaN".
        for key, pats in (shared or {}).items():
            _extend_unique(merged[key], pats)
        for key, pats in merged.items():
            setattr(self, key, Matcher(pats, flags))
        self.min_quote_chars = scalars["min_quote_chars"]
        self.min_single_token_chars = scalars["min_single_token_chars"]


class Rules:
    """Everything `analyze` needs: compiled rules per language, plus what was loaded from where."""

    def __init__(self, packs, errors, files):
        self.packs = packs
        self.errors = errors
        self.files = files
        self._by_lang = {}

    def for_lang(self, lang):
        got = self._by_lang.get(lang)
        if got is None:
            packs = [p for p in self.packs if p.lang == lang]
            if not packs:
                packs = [p for p in self.packs if p.lang == "en"]
            shared = {"failure": [], "not_failure": []}
            # Sentences mix languages ("`not found` が出ます"): these apply to every language.
            for key in BOTH_WAYS:
                shared[key] = [x for p in self.packs for x in p.data.get("grammar", {}).get(key, [])]
            if lang != "en":
                # English failure words ("OOM", "NaN", "RuntimeError") turn up in every language,
                # and so do the English phrases in which they are no failure ("pip freeze", "no
                # errors"); the other direction would only add noise.
                for p in self.packs:
                    if p.lang == "en":
                        for key in ("failure", "not_failure"):
                            shared[key].extend(p.data.get("cues", {}).get(key, []))
            got = LangRules(lang, packs, shared)
            self._by_lang[lang] = got
        return got


def _toml_files(directory):
    """The detector's packs in `directory`; `probe*.toml` belong to `ledger probe`."""
    if not directory or not os.path.isdir(directory):
        return []
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory))
            if n.endswith(".toml") and not n.startswith("probe")]


def project_rules_dir(project_dir=None):
    """The nearest `.evidence-ledger/rules` at or above `project_dir` (default: cwd)."""
    d = os.path.abspath(project_dir or os.getcwd())
    while True:
        candidate = os.path.join(d, ".evidence-ledger", "rules")
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def rule_files(project_dir=None):
    """[(origin, path)] in load order."""
    out = [("package", p) for p in _toml_files(paths.rules_dir())]
    out += [("user", p) for p in _toml_files(os.path.join(paths.user_config_dir(), "rules"))]
    proj = project_rules_dir(project_dir)
    if proj:
        out += [("project", p) for p in _toml_files(proj)]
    return out


def check_data(path, data, check_patterns=True):
    """Structural checks shared by the loader and `ledger rules`; raises RuleError.

    `check_patterns` compiles every pattern alone, so a broken one is named with its entry.
    """
    if not isinstance(data.get("pack"), dict) or not isinstance(data["pack"].get("name"), str):
        raise RuleError(path, "[pack]", "needs a table [pack] with a string `name`")
    for sec, value in data.items():
        if sec == "remove":
            if not isinstance(value, dict):
                raise RuleError(path, "[remove]", "must be a table")
            for rsec, rval in value.items():
                _check_lists(path, "remove." + rsec, rsec, rval, check_patterns=False)
            continue
        if sec not in PATTERN_LISTS and sec not in SCALARS:
            raise RuleError(path, f"[{sec}]", "unknown section (expected one of: "
                            + ", ".join(sorted(set(PATTERN_LISTS) | set(SCALARS) | {"remove"})) + ")")
        _check_lists(path, sec, sec, value, check_patterns=check_patterns)


def _check_lists(path, label, sec, value, check_patterns):
    if not isinstance(value, dict):
        raise RuleError(path, f"[{label}]", "must be a table")
    for key, v in value.items():
        where = f"{label}.{key}"
        if key in PATTERN_LISTS.get(sec, ()):
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise RuleError(path, where, "must be a list of strings")
            if check_patterns:
                for i, pat in enumerate(v):
                    try:
                        _compile(pat, diskcache.IGNORECASE)
                    except Exception as e:  # re.error, regex.error
                        raise RuleError(path, f"{where}[{i}]", f"bad pattern {pat!r}: {e}")
        elif key in SCALARS.get(sec, {}):
            if not isinstance(v, SCALARS[sec][key]) or (SCALARS[sec][key] is int and isinstance(v, bool)):
                raise RuleError(path, where, f"must be {SCALARS[sec][key].__name__}")
        else:
            raise RuleError(path, where, "unknown key")


def read_file(path, check_patterns=True):
    try:
        data = diskcache.toml_file(path)  # parsed once per version of the file, not once per Stop
    except OSError as e:
        raise RuleError(path, "", f"cannot read: {e}")
    except ValueError as e:
        import tomllib

        if not isinstance(e, tomllib.TOMLDecodeError):
            raise
        raise RuleError(path, "", f"invalid TOML: {e}")
    check_data(path, data, check_patterns)
    return data


def _merge(base, edit):
    for sec, value in edit.items():
        if sec in ("remove", "pack"):
            continue
        target = base.setdefault(sec, {})
        for key, v in value.items():
            if isinstance(v, list):
                cur = target.setdefault(key, [])
                _extend_unique(cur, v)
            else:
                target[key] = v
    for sec, value in edit.get("remove", {}).items():
        for key, v in value.items():
            cur = base.get(sec, {}).get(key)
            if cur:
                base[sec][key] = [x for x in cur if x not in v]
    for k, v in edit.get("pack", {}).items():
        if k != "name":
            base.setdefault("pack", {})[k] = v


def _extend_unique(target, items):
    """`target.extend(x for x in items if x not in target)`, each once, without scanning the
    list for every item (a pack's lists hold tens of patterns)."""
    seen = set(target)
    for x in items:
        if x not in seen:
            seen.add(x)
            target.append(x)


def build(files):
    """[(origin, path)] -> Rules, skipping (and recording) broken files."""
    packs = {}
    order = []
    errors = []
    for origin, path in files:
        try:
            # The packaged packs are checked by the tests and `ledger rules`; compiling their
            # ~300 patterns one by one cost every Stop process some 150 ms. A user's or a
            # project's file is checked here, so a typo skips that file, not the hook.
            data = read_file(path, check_patterns=origin != "package")
        except RuleError as e:
            errors.append(e)
            continue
        name = data["pack"].get("extends") or data["pack"]["name"]
        if name in packs:
            _merge(packs[name].data, data)
            packs[name].sources.append((origin, path))
        else:
            lang = data["pack"].get("lang")
            if not lang:
                errors.append(RuleError(path, "pack.lang", f"new pack {name!r} needs a `lang`"))
                continue
            fresh = {"pack": dict(data["pack"])}
            _merge(fresh, {k: v for k, v in data.items() if k != "pack"})
            packs[name] = Pack(name, lang, fresh, [(origin, path)])
            order.append(name)
    result = []
    for name in order:
        p = packs[name]
        p.lang = p.data.get("pack", {}).get("lang", p.lang)
        result.append(p)
    # Lists are compiled when first searched (Matcher), and a bad pattern there is left out.
    return Rules(result, errors, files)


_CACHE = {}


def load_rules(project_dir=None):
    """The active rules for `project_dir` (default: cwd), compiled once per process per file set."""
    files = rule_files(project_dir)
    key = []
    for origin, path in files:
        try:
            st = os.stat(path)
            key.append((path, st.st_mtime_ns, st.st_size))
        except OSError:
            key.append((path, 0, 0))
    key = tuple(key)
    got = _CACHE.get(key)
    if got is None:
        got = build(files)
        _CACHE.clear()
        _CACHE[key] = got
    return got
