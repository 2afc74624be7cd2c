"""The guard's settings: defaults, then the user's file, then the project's, then the environment.

User file:    ~/.config/evidence-ledger/config.toml
Project file: .evidence-ledger/config.toml in the project directory or any parent of it

    mode = "enforce"            # or "monitor": record what it would do, never block
    max_blocks = 2              # blocks per user turn before the stop is let through
    block_kinds = ["assertion"] # add "negated" to block uncited "X is not the cause" too
    warn_kinds = ["negated"]    # reported to the user, not blocked
    reason_max_chars = 6000     # the block reason the agent reads (client cap is 10,000)
    max_output_bytes = 1048576  # per recorded tool output; head and tail are kept

Environment: LEDGER_MODE, LEDGER_MAX_BLOCKS, LEDGER_DISABLE=1 (turns every hook off).
A file that does not parse is an error the guard reports loudly, never a silent default.
"""

import os

from ledger import paths

DEFAULTS = {
    "mode": "enforce",
    "max_blocks": 2,
    "block_kinds": ["assertion"],
    "warn_kinds": ["negated"],
    "reason_max_chars": 6000,
    "max_output_bytes": 1024 * 1024,
}

MODES = ("enforce", "monitor")
KINDS = ("assertion", "hypothesis", "negated")
PROJECT_DIRNAME = ".evidence-ledger"


class ConfigError(Exception):
    """A config file exists but is broken; the message names the file and the entry."""


def user_config_file():
    return os.path.join(paths.user_config_dir(), "config.toml")


def find_project_dir(start=None):
    """The nearest directory at or above `start` holding .evidence-ledger/, else None."""
    here = os.path.abspath(start or os.getcwd())
    while True:
        if os.path.isdir(os.path.join(here, PROJECT_DIRNAME)):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def project_config_file(project_dir):
    found = find_project_dir(project_dir)
    return os.path.join(found, PROJECT_DIRNAME, "config.toml") if found else None


def load(project_dir=None):
    """Return (config dict, list of files that were read). Raises ConfigError."""
    config = dict(DEFAULTS)
    used = []
    for path in (user_config_file(), project_config_file(project_dir)):
        if path and os.path.isfile(path):
            config.update(_read(path))
            used.append(path)
    _apply_env(config)
    return config, used


def _read(path):
    from ledger import diskcache

    try:
        with open(path, "rb") as f:
            data = diskcache.toml(f.read())  # tomllib only when this content is new
    except ValueError as exc:
        import tomllib

        if not isinstance(exc, tomllib.TOMLDecodeError):
            raise
        raise ConfigError("%s: %s" % (path, exc))
    except OSError as exc:
        raise ConfigError("%s: %s" % (path, exc))
    return validate(data, path)


def validate(data, source):
    out = {}
    for key, value in data.items():
        if key not in DEFAULTS:
            raise ConfigError("%s: unknown setting %r (known: %s)" % (source, key, ", ".join(DEFAULTS)))
        if key == "mode":
            if value not in MODES:
                raise ConfigError("%s: mode = %r; expected one of %s" % (source, value, ", ".join(MODES)))
        elif key in ("block_kinds", "warn_kinds"):
            if not isinstance(value, list) or any(v not in KINDS for v in value):
                raise ConfigError("%s: %s = %r; expected a list drawn from %s" % (source, key, value, ", ".join(KINDS)))
        elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError("%s: %s = %r; expected a whole number >= 0" % (source, key, value))
        out[key] = value
    return out


def _apply_env(config):
    mode = os.environ.get("LEDGER_MODE")
    if mode:
        if mode not in MODES:
            raise ConfigError("LEDGER_MODE=%r; expected one of %s" % (mode, ", ".join(MODES)))
        config["mode"] = mode
    blocks = os.environ.get("LEDGER_MAX_BLOCKS")
    if blocks:
        if not blocks.isdigit():
            raise ConfigError("LEDGER_MAX_BLOCKS=%r; expected a whole number" % blocks)
        config["max_blocks"] = int(blocks)
