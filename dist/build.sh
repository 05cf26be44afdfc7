#!/usr/bin/env bash
# Every artifact of a release, into target/dist/, with target/dist/SHA256SUMS over them:
#   sightline_<version>-1_amd64.deb                the Debian package   (dist/linux.sh)
#   sightline-<version>-linux-x86_64.tar.gz        the portable binary  (dist/linux.sh)
# Run from a clean clone with only Rust installed: it installs the tools it needs (cargo-deb).
# Reproducible: every time stamp in the archives is the last commit's (SOURCE_DATE_EPOCH).
set -euo pipefail
cd "$(dirname "$0")/.."

DIST_DIR=target/dist
# The last commit's time (already set: kept, as reproducible-builds.org asks).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export SOURCE_DATE_EPOCH

# shellcheck source=dist/linux.sh
source dist/linux.sh

# target/dist/SHA256SUMS over the artifacts (names only, for `sha256sum -c` in that folder);
# cargo's own files in target/dist/ (the `dist` profile's build) are not artifacts.
write_checksums() {
    (
        cd "$DIST_DIR"
        shopt -s nullglob
        local artifacts=(*.deb *.tar.gz *.zip)
        if [ ${#artifacts[@]} -eq 0 ]; then
            echo "no artifacts in $DIST_DIR" >&2
            exit 1
        fi
        sha256sum -- "${artifacts[@]}" >SHA256SUMS
        cat SHA256SUMS
    )
}

build_linux_deb
build_linux_tarball
write_checksums
