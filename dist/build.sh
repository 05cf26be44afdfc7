#!/usr/bin/env bash
# Builds the release artifacts into target/dist/ and lists their checksums in
# target/dist/SHA256SUMS. Runs from a clean clone: installs what it needs (as .ci/run does).
#
#   dist/build.sh                  every artifact
#   dist/build.sh linux windows    only the named ones (linux: the .deb and the .tar.gz,
#                                  dist/linux.sh; windows: the Windows .zip)
#
# Each artifact is one function `artifact_<name>` writing its files into $dist, listed in
# ARTIFACTS.
#
# The binaries are built with the `dist` profile (fat LTO, one codegen unit: Cargo.toml) unless
# SIGHTLINE_DIST_PROFILE names another (`release` builds faster, for trying the script out).
# Reproducible: file times in the archives are the last commit's (SOURCE_DATE_EPOCH), entries
# are in a fixed order without extra attributes, the build paths are remapped out of the
# binary, and the Windows linker writes no time stamp into the exe.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

ARTIFACTS=(linux windows)

profile=${SIGHTLINE_DIST_PROFILE:-dist}
target_dir=${CARGO_TARGET_DIR:-$root/target}
dist=$target_dir/dist
version=$(cargo pkgid -p sightline | sed 's/.*[@#]//')
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
cargo_home=${CARGO_HOME:-$HOME/.cargo}

# `--remap-path-prefix` for the paths panic messages and debug data would hold.
remap_flags() {
    echo "--remap-path-prefix=$root=/sightline --remap-path-prefix=$cargo_home=/cargo"
}

# Sets every file's time under $1 to SOURCE_DATE_EPOCH.
clamp_times() {
    find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
}

# shellcheck source=dist/linux.sh
source dist/linux.sh

# The Linux x86_64 artifacts: sightline_<version>-1_amd64.deb and
# sightline-<version>-linux-x86_64.tar.gz, from one `dist` binary (dist/linux.sh).
artifact_linux() {
    DIST_DIR=$dist
    build_linux_deb
    build_linux_tarball
}

# The Windows x86_64 build: sightline.exe (icon and version resources, see build.rs), README
# and LICENSE in sightline-<version>-windows-x86_64.zip.
artifact_windows() {
    .ci/windows-setup
    local triple=x86_64-pc-windows-gnu
    local var=CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS
    local flags
    flags="$(remap_flags) -C link-arg=-Wl,--no-insert-timestamp"
    env "$var=$flags" cargo build --locked --profile "$profile" --target "$triple" -p sightline
    local exe=$target_dir/$triple/$profile/sightline.exe
    local name=sightline-$version-windows-x86_64
    local stage=$dist/stage/$name
    rm -rf "$stage"
    mkdir -p "$stage"
    cp "$exe" "$stage/sightline.exe"
    # Windows editors and Notepad read LF text; the files go as they are in the repository.
    cp README.md LICENSE "$stage/"
    clamp_times "$stage"
    rm -f "$dist/$name.zip"
    (cd "$dist/stage" && TZ=UTC zip -q -X -D "$dist/$name.zip" \
        "$name/sightline.exe" "$name/README.md" "$name/LICENSE")
    rm -rf "$dist/stage"
    echo "$dist/$name.zip"
}

# Rewrites SHA256SUMS from the packages in $dist (.zip, .deb, .tar.gz: target/dist/ is also
# cargo's folder of the `dist` profile, whose own files are not artifacts).
write_sums() {
    local sums
    sums=$(cd "$dist" && find . -maxdepth 1 -type f \( -name '*.zip' -o -name '*.deb' -o \
        -name '*.tar.gz' \) -printf '%P\n' | LC_ALL=C sort | xargs -r sha256sum)
    printf '%s\n' "$sums" >"$dist/SHA256SUMS"
    cat "$dist/SHA256SUMS"
}

main() {
    command -v cargo >/dev/null || { echo "cargo not found: install Rust 1.95 (rustup)" >&2; exit 1; }
    local wanted=("$@")
    [ ${#wanted[@]} -gt 0 ] || wanted=("${ARTIFACTS[@]}")
    mkdir -p "$dist"
    for name in "${wanted[@]}"; do
        if ! declare -F "artifact_$name" >/dev/null; then
            echo "unknown artifact $name (known: ${ARTIFACTS[*]})" >&2
            exit 1
        fi
        local started=$SECONDS
        "artifact_$name"
        echo "artifact $name: $((SECONDS - started)) s" >&2
    done
    write_sums
}

main "$@"
