#!/usr/bin/env bash
# The crates as users get them: `cargo package` of the three publishable crates (with cargo's
# verification build of each .crate on its own), then `cargo install --path cli` into a
# temporary root, whose `monapi` must report the workspace version and talk to its own emulator.
# The install is a debug build (`--debug`): what it checks (the package installs from its path
# and works) does not depend on the profile, and a release build would take minutes more.
#
# Environment: CARGO (the cargo to run), CARGO_TARGET_DIR (default target: the install shares
# the builds of `make` instead of compiling everything again in a directory of its own).
set -euo pipefail

# The verification builds take the profile of each package's own manifest, which has none: they
# would keep full debuginfo, unlike the workspace's dev profile (Cargo.toml). With the workspace's
# setting here too, the install below reuses the dependencies the verification of monapi-cli
# compiled (same features, same profile) instead of compiling them a second time.
export CARGO_PROFILE_DEV_DEBUG=line-tables-only

cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}
target_dir=${CARGO_TARGET_DIR:-target}
crates=(monapi monapi-emulator monapi-cli)
version=$("$cargo" metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print({p["name"]: p["version"] for p in json.load(sys.stdin)["packages"]}["monapi"])')

# The rust-version the crates declare must be at least every dependency's: cargo refuses to build
# a package with an older compiler than it declares, so a lower figure would be a false promise.
"$cargo" metadata --format-version 1 --locked | python3 -c '
import json, sys
packages = json.load(sys.stdin)["packages"]
def version(text):
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))
ours = next(p["rust_version"] for p in packages if p["name"] == "monapi")
newer = sorted("%s %s (%s)" % (p["name"], p["version"], p["rust_version"]) for p in packages
               if p.get("rust_version") and version(p["rust_version"]) > version(ours))
if newer:
    sys.exit("workspace.package.rust-version is %s, but these need a newer Rust: %s" % (ours, ", ".join(newer)))
'

# cargo verifies each .crate against the others through a temporary registry, whose crates it
# unpacks under CARGO_HOME's registry/src/-<hash>/ (the hash is of the target directory) and
# reuses there on the next run even though their contents changed under the same version: a
# second run would build monapi-cli against the monapi of the first. Those directories hold
# only such local copies (crates.io's are under index.*), so ours go before each run.
for unpacked in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/; do
  for crate in "${crates[@]}"; do
    rm -rf "$unpacked$crate-$version"
  done
done

# --allow-dirty: a developer runs this before committing; CI runs it on a clean clone.
"$cargo" package --locked --allow-dirty --target-dir "$target_dir" "${crates[@]/#/--package=}"

for crate in "${crates[@]}"; do
  file=$target_dir/package/$crate-$version.crate
  listing=$(tar -tzf "$file")
  for required in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE; do
    grep -qx "$crate-$version/$required" <<<"$listing" || {
      echo "$file lacks $required" >&2
      exit 1
    }
  done
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
"$cargo" install --debug --locked --quiet --path cli --root "$root" --target-dir "$target_dir"
monapi=$root/bin/monapi
[ "$("$monapi" --version)" = "monapi $version" ] || {
  echo "the installed monapi reports $("$monapi" --version), not monapi $version" >&2
  exit 1
}
agents=$(MONAPI_BIN=$monapi scripts/with-emulator.sh "$monapi" agents)
python3 -c 'import json, sys; agents = json.loads(sys.argv[1]); assert isinstance(agents, dict) and agents, agents' "$agents" || {
  echo "the installed monapi did not list the emulator's agents: $agents" >&2
  exit 1
}
echo "packaged ${crates[*]} $version; cargo install --path cli gives a working monapi"
