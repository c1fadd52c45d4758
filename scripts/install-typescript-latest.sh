#!/usr/bin/env bash
# Puts the newest TypeScript (the 7 line, what `npm install typescript` brings a consumer today) at
# .kubeloom-tools/typescript-latest, for test/pack.test.ts, which type-checks the packed consumer with it
# as well as with the pinned 5.9. Kept out of devDependencies: typescript and an aliased typescript both
# declare a `tsc` bin, and npm may link node_modules/.bin/tsc to either. Does nothing when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=.kubeloom-tools/typescript-latest
package=typescript@^7
tsc="$prefix/node_modules/typescript/bin/tsc"
if [ -x "$tsc" ] && "$tsc" --version >/dev/null 2>&1; then exit 0; fi

echo "install-typescript-latest: installing $package from the npm registry"
mkdir -p "$prefix"
npm install --silent --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "$package" >/dev/null
echo "install-typescript-latest: $("$tsc" --version) at $tsc"
