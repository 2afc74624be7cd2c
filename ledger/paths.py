"""Where the ledger, the configs and the packaged data live.

Stdlib only, and os.path rather than pathlib: this runs on every hook call.
"""

import os

APP = "evidence-ledger"


def data_home():
    return os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")


def config_home():
    return os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def cache_home():
    # A relative $XDG_CACHE_HOME is invalid by the spec, and would put the cache wherever the
    # hook happens to run.
    home = os.environ.get("XDG_CACHE_HOME")
    if home and os.path.isabs(home):
        return home
    return os.path.join(os.path.expanduser("~"), ".cache")


def cache_dir():
    """Per-user cache (compiled regexes and parsed rule packs, see diskcache.py): safe to delete at any time."""
    return os.path.join(cache_home(), APP)


def db_path():
    """$LEDGER_DB wins everywhere, so tests and users can point every command at one file."""
    override = os.environ.get("LEDGER_DB")
    if override:
        return os.path.abspath(os.path.expanduser(override))
    return os.path.join(data_home(), APP, "ledger.db")


def user_config_dir():
    return os.path.join(config_home(), APP)


def package_data_dir():
    """rules/ and skills/: inside the wheel as ledger/_data, at the repo root in a checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "_data")
    if os.path.isdir(packaged):
        return packaged
    return os.path.dirname(here)


def rules_dir():
    return os.path.join(package_data_dir(), "rules")


def skills_dir():
    return os.path.join(package_data_dir(), "skills")
