#!/usr/bin/env bash
# Install the pinned host programs the tests in tests/hosts ask (Claude Code, Gemini CLI,
# Codex) into tests/hosts/node_modules (git-ignored), from the npm registry only: `npm ci`
# over the lock file here. Each package ships its native binary inside a registry package
# (Claude Code's postinstall copies it from its optional dependency; nothing is downloaded
# from elsewhere). About 1m40s and 760 MB on a fresh machine. Without npm it says so and
# exits 0: the tests skip, with the reason, where a program is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if ! command -v npm >/dev/null 2>&1; then
  echo "host programs not installed: npm is missing (tests/hosts skip)" >&2
  exit 0
fi

# An install from the same lock file is kept: `npm ci` would delete and fetch it all again.
stamp="$here/node_modules/.installed-from-lock.json"
if cmp -s "$here/package-lock.json" "$stamp" \
  && [ -x "$here/node_modules/.bin/claude" ] \
  && [ -e "$here/node_modules/.bin/gemini" ] \
  && [ -e "$here/node_modules/.bin/codex" ]; then
  echo "host programs already installed in $here/node_modules"
  exit 0
fi
npm ci --prefix "$here" --no-audit --no-fund --loglevel=error
cp "$here/package-lock.json" "$stamp"
echo "host programs installed in $here/node_modules:"
# Each program writes state into its HOME even for --version: give it a throwaway one.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for program in claude gemini codex; do
  printf '  %s %s\n' "$program" \
    "$(HOME="$scratch" GEMINI_CLI_NO_RELAUNCH=true "$here/node_modules/.bin/$program" --version 2>/dev/null | head -n 1)"
done
