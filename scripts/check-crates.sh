#!/usr/bin/env bash
# The crates as users get them: `cargo package` of the three publishable crates (each must hold
# its manifest, README and licences), then `cargo install` of the packaged monapi-cli, built
# against the packaged monapi and monapi-emulator, into a temporary root: its `monapi` must
# report the workspace version and talk to its own emulator. That one build compiles every
# package from what was packaged, so a file left out of a package fails it. The install is a
# debug build (`--debug`): what it checks does not depend on the profile, and a release build
# would take minutes more.
#
# Environment: CARGO (the cargo to run), CARGO_TARGET_DIR (default target: the install shares
# the builds of `make` instead of compiling everything again in a directory of its own).
set -euo pipefail

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

# --no-verify: cargo's verification builds each .crate on its own, three builds of the
# dependencies with three sets of features; the CLI's build below compiles all three packages as
# packaged in one. --allow-dirty: a developer runs this before committing; CI runs it on a clean
# clone.
"$cargo" package --no-verify --locked --allow-dirty --target-dir "$target_dir" "${crates[@]/#/--package=}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for crate in "${crates[@]}"; do
  file=$target_dir/package/$crate-$version.crate
  listing=$(tar -tzf "$file")
  for required in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE; do
    grep -qx "$crate-$version/$required" <<<"$listing" || {
      echo "$file lacks $required" >&2
      exit 1
    }
  done
  tar -xzf "$file" -C "$work"
done

# `cargo install` of the packaged CLI, its dependencies on monapi and monapi-emulator being the
# packaged ones (as a registry would serve them; they are not published). Its Cargo.lock names
# them from the registry: resolving once with the patches changes those two entries only, and
# the install then keeps every version locked.
patches=(
  --config "patch.crates-io.monapi.path='$work/monapi-$version'"
  --config "patch.crates-io.monapi-emulator.path='$work/monapi-emulator-$version'"
)
cli=$work/monapi-cli-$version
# A packaged manifest has no profile of its own: the install gets the workspace's dev profile
# (Cargo.toml's [profile.dev], as --config settings), so that it builds each dependency whose
# features agree exactly as the suites' builds did, and reuses it instead of building it again.
# (An assignment, so that a failure stops the script, as a process substitution's would not.)
settings=$(python3 -c '
import json, tomllib
def settings(path, table):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from settings(path + [key], value)
        else:
            yield ".".join(json.dumps(part) for part in path + [key]) + "=" + json.dumps(value)
with open("Cargo.toml", "rb") as manifest:
    for setting in settings(["profile", "dev"], tomllib.load(manifest)["profile"]["dev"]):
        print("--config")
        print(setting)
')
mapfile -t profile <<<"$settings"
"$cargo" metadata --format-version 1 --manifest-path "$cli/Cargo.toml" "${patches[@]}" >/dev/null
"$cargo" install --debug --locked --quiet --path "$cli" --root "$work/root" --target-dir "$target_dir" "${patches[@]}" "${profile[@]}"
monapi=$work/root/bin/monapi
[ "$("$monapi" --version)" = "monapi $version" ] || {
  echo "the installed monapi reports $("$monapi" --version), not monapi $version" >&2
  exit 1
}
agents=$(MONAPI_BIN=$monapi scripts/with-emulator.sh "$monapi" agents)
python3 -c 'import json, sys; agents = json.loads(sys.argv[1]); assert isinstance(agents, dict) and agents, agents' "$agents" || {
  echo "the installed monapi did not list the emulator's agents: $agents" >&2
  exit 1
}
echo "packaged ${crates[*]} $version; cargo install of the packaged monapi-cli gives a working monapi"
