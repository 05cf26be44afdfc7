# shellcheck shell=bash
# The Linux artifacts of a release, sourced by dist/build.sh (which sets `set -euo pipefail`,
# runs from the repository root and sets SOURCE_DATE_EPOCH):
#   build_linux_deb      target/dist/sightline_<version>-1_amd64.deb   (cargo-deb)
#   build_linux_tarball  target/dist/sightline-<version>-linux-x86_64.tar.gz
# Both package the same binary, built once by build_linux_binary with the `dist` profile
# (Cargo.toml: fat LTO, one codegen unit) into target/dist/sightline, or with the profile
# dist/build.sh's SIGHTLINE_DIST_PROFILE names (`release`: target/release/sightline).

# The cargo-deb release that dist/build.sh installs when it is missing or another version (it
# builds with Rust 1.85 and later; `--locked`: the dependency versions it was released with).
CARGO_DEB_VERSION=3.8.0
# Where the artifacts go (dist/build.sh may set it first). Cargo also puts the `dist` profile's
# build in target/dist/ (its `sightline`, deps/, build/...): only the files named here are
# artifacts.
: "${DIST_DIR:=target/dist}"
# The cargo profile of the binary (dist/build.sh sets `profile`), and where cargo puts it.
linux_profile() {
    echo "${profile:-dist}"
}
linux_binary() {
    echo "target/$(linux_profile)/sightline"
}

# The package version, from Cargo.toml: `cargo pkgid` prints `path+file:///...#sightline@0.1.0`.
linux_version() {
    local id
    id=$(cargo pkgid --locked -p sightline)
    echo "${id##*[#@]}"
}

# cargo-deb at CARGO_DEB_VERSION, installed with cargo into ~/.cargo/bin when missing.
ensure_cargo_deb() {
    if cargo deb --version 2>/dev/null | grep -qx "cargo-deb $CARGO_DEB_VERSION"; then
        return
    fi
    cargo install --locked --version "$CARGO_DEB_VERSION" cargo-deb
}

# The release binary, target/dist/sightline: built once, used by both artifacts.
build_linux_binary() {
    # Without SOURCE_DATE_EPOCH: the cc crate's build scripts watch it, so with the last
    # commit's time set every commit would rebuild SQLite, zstd, liblzma and psm and everything
    # above them; their C code reads no date (no __DATE__/__TIME__), so the binary is the same
    # either way, and the same one a plain `cargo build --profile dist` makes.
    env -u SOURCE_DATE_EPOCH cargo build --locked --profile "$(linux_profile)" --bin sightline
    # build.rs names the commit; a binary that does not run or says `unknown` here (in a git
    # clone) is not one to ship.
    local version
    version=$("$(linux_binary)" --version)
    echo "built: $version"
    case "$version" in
        *"(unknown)") echo "the binary does not know its commit" >&2; return 1 ;;
    esac
}

# The desktop entry as the package installs it: `Exec=/usr/bin/sightline %F`, so that a
# double-click starts the packaged binary even when another `sightline` (cargo install) comes
# first on PATH. Everything else is assets/sightline.desktop as `install-desktop` writes it.
linux_deb_desktop_entry() {
    mkdir -p target/deb
    sed 's|^Exec=sightline |Exec=/usr/bin/sightline |' assets/sightline.desktop >target/deb/sightline.desktop
    grep -qx 'Exec=/usr/bin/sightline %F' target/deb/sightline.desktop || {
        echo "assets/sightline.desktop has no 'Exec=sightline %F' line to rewrite" >&2
        return 1
    }
    touch --date="@$SOURCE_DATE_EPOCH" target/deb/sightline.desktop
}

# target/dist/sightline_<version>-1_amd64.deb, from the binary build_linux_binary made (cargo-deb
# takes every file's time from SOURCE_DATE_EPOCH, so the package is reproducible).
build_linux_deb() {
    ensure_cargo_deb
    build_linux_binary
    linux_deb_desktop_entry
    mkdir -p "$DIST_DIR"
    rm -f "$DIST_DIR"/sightline_*.deb
    # --no-build: the binary is the one just built and checked (cargo-deb would build it with
    # the same profile, `profile = "dist"` in Cargo.toml, but without the check).
    cargo deb --locked --no-build --profile "$(linux_profile)" --output "$DIST_DIR/"
    ls -l "$DIST_DIR"/sightline_*.deb
}

# target/dist/sightline-<version>-linux-x86_64.tar.gz: sightline-<version>/ with the binary, the
# README and the LICENSE. The binary embeds the desktop entry, MIME types and icons, so
# `sightline-<version>/sightline install-desktop` integrates it with the desktop from there.
# Reproducible: sorted names, every time SOURCE_DATE_EPOCH, owner root, and gzip without name
# or time stamp.
build_linux_tarball() {
    build_linux_binary
    local version name stage
    version=$(linux_version)
    name="sightline-$version"
    stage=target/tarball
    rm -rf "$stage"
    mkdir -p "$stage/$name" "$DIST_DIR"
    install -m 755 "$(linux_binary)" "$stage/$name/sightline"
    install -m 644 README.md LICENSE "$stage/$name/"
    rm -f "$DIST_DIR"/sightline-*-linux-x86_64.tar.gz
    local tarball="$DIST_DIR/$name-linux-x86_64.tar.gz"
    tar --create --directory="$stage" --sort=name --format=gnu \
        --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
        --mode='go-w' "$name" |
        gzip -9 -n >"$tarball"
    rm -rf "$stage"
    ls -l "$tarball"
}
