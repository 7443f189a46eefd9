#!/usr/bin/env bash
# Sets the project's one version: Cargo's workspace.package.version, which the crates and the
# wheel take, and every copy the tools need elsewhere: the path dependencies monapi,
# monapi-emulator and monapi-cli in Cargo.toml, Cargo.lock, package.json and package-lock.json (npm version),
# npm/<platform>/package.json (napi create-npm-dirs). CHANGELOG.md's Unreleased entries move
# under a heading for the version, dated today. The test suite checks that every copy agrees.
#
#   scripts/set-version.sh X.Y.Z      (make set-version VERSION=X.Y.Z)
#
# Environment: CARGO (the cargo to run), NODE and NPM likewise.
set -euo pipefail
version=${1:-}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: scripts/set-version.sh X.Y.Z (a semantic version, e.g. 0.2.0 or 1.0.0-rc.1)" >&2
  exit 2
fi
cd "$(dirname "$0")/.."

python3 - "$version" <<'EOF'
import datetime, pathlib, re, sys

version = sys.argv[1]
cargo = pathlib.Path("Cargo.toml")
text = cargo.read_text(encoding="utf-8")
text, n = re.subn(r'(\[workspace\.package\][^\[]*?\nversion = ")[^"]*(")', rf"\g<1>{version}\g<2>", text)
assert n == 1, "workspace.package.version not found in Cargo.toml"
for crate in ("monapi", "monapi-emulator", "monapi-cli"):
    text, n = re.subn(rf'(\n{crate} = \{{ path = "[^"]*", version = ")[^"]*(")', rf"\g<1>{version}\g<2>", text)
    assert n == 1, f"workspace.dependencies.{crate} not found in Cargo.toml"
cargo.write_text(text, encoding="utf-8")

changelog = pathlib.Path("CHANGELOG.md")
text = changelog.read_text(encoding="utf-8")
if f"\n## [{version}]" not in text:
    heading = f"## [Unreleased]\n\n## [{version}] - {datetime.date.today().isoformat()}"
    text, n = re.subn(r"^## \[Unreleased\]$", heading, text, count=1, flags=re.MULTILINE)
    assert n == 1, "CHANGELOG.md has no '## [Unreleased]' section"
    changelog.write_text(text, encoding="utf-8")
EOF

"${CARGO:-cargo}" update --workspace --quiet
"${NPM:-npm}" version "$version" --no-git-tag-version --allow-same-version >/dev/null
"${NODE:-node}" bindings-node/scripts/platforms.mjs npm-dirs >/dev/null
echo "version $version set; review CHANGELOG.md, then commit"
