#!/usr/bin/env bash
# Install the pinned MCP conformance suite, and the Node 22 it needs, into .conformance/ of
# the checkout (git-ignored), from the npm registry only: `npm ci` over the lock file here.
# Needs only npm (any node the machine has runs npm itself). Usage: install.sh [DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:-$here/../../.conformance}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

# An install from the same lock file is kept: `npm ci` would delete and fetch it all again.
if cmp -s "$here/package-lock.json" "$dest/package-lock.json" \
  && [ -f "$dest/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
  echo "conformance suite already installed in $dest"
  exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$dest/"
# The suite declares node >= 22 while the npm running here may sit on an older node: that
# only matters to the node that runs the suite, which is the pinned one (or node >= 22 on PATH).
npm ci --prefix "$dest" --no-audit --no-fund --loglevel=error --engine-strict=false
echo "conformance suite installed in $dest"
