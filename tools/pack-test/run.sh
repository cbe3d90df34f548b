#!/usr/bin/env bash
# The packages as a user gets them: packs each workspace package (pnpm pack, as `changeset
# publish` would publish it), installs the tarballs with npm into an empty project in a temp
# folder, and drives them there (drive.mjs): the server starts from its bin on an empty data
# directory, the CLI logs in with the key it printed, creates a site from a starter kit and
# builds it, the page is served; the SDK answers; cms-build builds the exported snapshot.
# Needs the npm registry for the packages' dependencies. Usage: bash tools/pack-test/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/trellis-pack-test-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/packs" "$work/project"
for pkg in core builder server sdk cli; do
  (cd "$root/packages/$pkg" && pnpm pack --pack-destination "$work/packs" >/dev/null)
done
ls "$work/packs"
cd "$work/project"
printf '{"name":"trellis-pack-test","private":true,"type":"module"}\n' > package.json
npm install --no-audit --no-fund --loglevel=error "$work"/packs/*.tgz
cp "$root/tools/pack-test/drive.mjs" .
node drive.mjs
