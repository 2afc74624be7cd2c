"""Validation of detector rule packs for `ledger rules` (pydantic; the CLI only, never the hook).

The hook's loader (`ledger.detect.rules`) is deliberately forgiving: a broken user file is
skipped so a typo cannot take the Stop guard down. This module is the strict reader that tells
the user exactly which file and which entry is wrong.
"""

import re
import tomllib
from typing import List, Optional

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ledger.detect import rules as detect_rules


def _check_pattern(value):
    try:
        detect_rules._compile(value, re.IGNORECASE)
    except Exception as exc:  # re.error, regex.error
        raise ValueError("bad pattern %r: %s" % (value, exc))
    if re.match(r"^\(\?[aiLmsux]+\)", value):
        raise ValueError("global inline flags like %r cannot be joined with other patterns; "
                         "use a scoped group such as (?-i:...)" % value[:6])
    return value


def _check_list(values):
    for i, x in enumerate(values):
        try:
            _check_pattern(x)
        except ValueError as exc:
            raise ValueError("[%d] %s" % (i, exc))
    return values


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _patterns_model(name, keys):
    """A strict model whose every field is a list of valid patterns."""

    def check(cls, v):
        return _check_list(v)

    ns = {"__annotations__": {k: List[str] for k in keys}}
    ns.update({k: [] for k in keys})
    ns["_patterns"] = field_validator(*keys)(classmethod(check))
    return type(name, (_Strict,), ns)


Cues = _patterns_model("Cues", detect_rules.PATTERN_LISTS["cues"])
Headings = _patterns_model("Headings", detect_rules.PATTERN_LISTS["headings"])
Labels = _patterns_model("Labels", detect_rules.PATTERN_LISTS["labels"])
Grammar = _patterns_model("Grammar", detect_rules.PATTERN_LISTS["grammar"])


# Every pattern list the detector reads under [citation] (rules.PATTERN_LISTS), and two numbers.
class Citation(_patterns_model("CitationPatterns", detect_rules.PATTERN_LISTS["citation"])):
    min_quote_chars: Optional[int] = None
    min_single_token_chars: Optional[int] = None

    @field_validator("min_quote_chars", "min_single_token_chars")
    @classmethod
    def _positive(cls, v):
        if v is not None and v < 1:
            raise ValueError("must be at least 1")
        return v


class PackMeta(_Strict):
    name: str
    lang: Optional[str] = None
    description: str = ""
    case_sensitive: bool = False
    extends: Optional[str] = None

    @field_validator("lang")
    @classmethod
    def _lang(cls, v):
        if v is not None and not re.fullmatch(r"[a-z]{2,3}", v):
            raise ValueError("lang must be a language code such as 'en' or 'ja'")
        return v


def _loose(name, keys):
    ns = {"__annotations__": {k: List[str] for k in keys}}
    ns.update({k: [] for k in keys})
    return type(name, (_Strict,), ns)


class Remove(_Strict):
    cues: Optional[_loose("RemoveCues", detect_rules.PATTERN_LISTS["cues"])] = None
    headings: Optional[_loose("RemoveHeadings", detect_rules.PATTERN_LISTS["headings"])] = None
    labels: Optional[_loose("RemoveLabels", detect_rules.PATTERN_LISTS["labels"])] = None
    citation: Optional[_loose("RemoveCitation", detect_rules.PATTERN_LISTS["citation"])] = None
    grammar: Optional[_loose("RemoveGrammar", detect_rules.PATTERN_LISTS["grammar"])] = None


class PackFile(_Strict):
    pack: PackMeta
    cues: Optional[Cues] = None
    headings: Optional[Headings] = None
    labels: Optional[Labels] = None
    citation: Optional[Citation] = None
    grammar: Optional[Grammar] = None
    remove: Optional[Remove] = None


def _where(loc):
    out = ""
    for part in loc:
        out += "[%d]" % part if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def validate_file(path):
    """[error strings naming the file and the entry]; empty when the file is valid."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        return ["%s: cannot read: %s" % (path, exc)]
    except tomllib.TOMLDecodeError as exc:
        return ["%s: invalid TOML: %s" % (path, exc)]
    try:
        PackFile.model_validate(data)
    except ValidationError as exc:
        errors = []
        for e in exc.errors():
            msg = e["msg"]
            if msg.startswith("Value error, "):
                msg = msg[len("Value error, "):]
            if e["type"] == "extra_forbidden":
                msg = "unknown key"
            where = _where(e["loc"]) or "(top)"
            m = re.match(r"^\[(\d+)\] ", msg)
            if m:
                where, msg = where + "[%s]" % m.group(1), msg[m.end():]
            errors.append("%s: %s: %s" % (path, where, msg))
        return errors
    return []


def validate(files):
    """Validate every file, then the merge (a new pack needs a `lang`, ...). -> [errors]."""
    errors = []
    for _, path in files:
        errors.extend(validate_file(path))
    if not errors:
        built = detect_rules.build(files)
        errors.extend(str(e) for e in built.errors)
    return errors
