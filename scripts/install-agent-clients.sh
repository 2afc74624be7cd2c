#!/bin/sh
# Install pinned agent clients from npm into a cache folder, one folder per package@version,
# so the end-to-end tests (tests/e2e/) can run the real clients offline afterwards.
#
#   scripts/install-agent-clients.sh                 # every pinned client below
#   scripts/install-agent-clients.sh claude          # only the ones named
#   scripts/install-agent-clients.sh --print claude  # print the client's executable path only
#
# Cache root: $LEDGER_E2E_CACHE, else ~/.cache/evidence-ledger/agents. A client lands in
# <root>/<pkg>@<version>/node_modules/.bin/<bin>; a complete install is reused as it is.
# This needs the npm registry. The tests never touch the network: they only run what is here.
set -eu

# One line per client: name, npm package, pinned version, executable. tests/e2e/harness.py
# reads this table too, so a pin lives in this one place. Add a line to add a client.
CLIENTS='
claude  @anthropic-ai/claude-code  2.1.328  claude
codex   @openai/codex              0.171.0  codex
gemini  @google/gemini-cli         0.61.0   gemini
'

root="${LEDGER_E2E_CACHE:-$HOME/.cache/evidence-ledger/agents}"
print_only=0
if [ "${1:-}" = "--print" ]; then print_only=1; shift; fi

wanted() {
    [ $# -eq 0 ] && return 0
    for w in "$@"; do [ "$w" = "$name" ] && return 0; done
    return 1
}

install_one() {
    dir="$root/$pkg@$version"
    exe="$dir/node_modules/.bin/$bin"
    if [ "$print_only" = 1 ]; then echo "$exe"; return 0; fi
    if [ -f "$dir/.complete" ] && [ -x "$exe" ]; then
        echo "$name: $pkg@$version already in $dir"
        return 0
    fi
    echo "$name: installing $pkg@$version into $dir"
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{"name": "ledger-e2e-client", "private": true}' > "$dir/package.json"
    # Install scripts stay on: some clients link their platform binary in postinstall.
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$pkg@$version")
    if ! "$exe" --version </dev/null >/dev/null 2>&1; then
        echo "$name: installed, but '$exe --version' failed" >&2
        return 1
    fi
    touch "$dir/.complete"
    echo "$name: ok, $("$exe" --version </dev/null 2>&1 | head -n 1)"
}

matched=0
while read -r name pkg version bin; do
    [ -n "$name" ] || continue
    wanted "$@" || continue
    matched=$((matched + 1))
    install_one
done <<TABLE
$CLIENTS
TABLE

if [ "$matched" = 0 ]; then
    echo "no pinned client named: $*" >&2
    exit 2
fi
