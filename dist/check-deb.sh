#!/usr/bin/env bash
# dist/check-deb.sh DEB: checks the Debian package as a user gets it, on this machine, as root.
#   1. Its contents and control fields (dpkg-deb -c, -I): the binary, the desktop entry with
#      Exec=/usr/bin/sightline, the MIME types and icons as in assets/, the dependencies.
#   2. `apt-get install ./DEB` (with Recommends, Debian's default), then with no further step:
#      /usr/bin/sightline --version; `xdg-mime query default TYPE` names sightline.desktop for
#      every type of assets/sightline-mime.xml, and mimeinfo.cache offers it for every type of
#      the entry's MimeType= (also application/vnd.sqlite3, which Sightline is not the default
#      for); `xdg-mime query filetype` gives each type for a sample file.
#   3. `apt-get purge sightline`: its files are gone, and so are the types and associations.
# Whatever happens, the machine is left as it was (trap): the package, and every package that
# this script's own apt-get runs installed (the check tools xdg-utils and libfile-mimeinfo-perl,
# desktop-file-utils, ...), are purged again. Only this script's installs are undone, so other
# work on the machine is left alone. Uses ../shared's .nsys-rep/.qdrep samples when present
# (required when SIGHTLINE_REQUIRE_SHARED=1, as in CI).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DEB" >&2; exit 2; }
deb=$(realpath "$1")
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "$0: must run as root (it installs the package)" >&2; exit 2; }

fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }
ok() { echo "check-deb: ok: $*"; }

if dpkg-query -W -f='${db:Status-Abbrev}' sightline 2>/dev/null | grep -q '^i'; then
    fail "sightline is installed already; the check would remove it (apt-get purge sightline first)"
fi

scratch=$PWD/target/check-deb
rm -rf "$scratch"
mkdir -p "$scratch/home"

# Every xdg-mime call sees the system's data only: a scratch HOME (no user mimeapps.list, never
# the real one), no XDG_* or desktop variables from the caller (so xdg-mime takes its generic
# path, the freedesktop.org files that every desktop reads).
xdg() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$scratch/home" xdg-mime "$@"; }

# apt-get as a user runs it, waiting for the dpkg lock if other work on the machine holds it.
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=600 "$@"; }

installed_packages() {
    dpkg-query -W -f='${db:Status-Abbrev} ${binary:Package}\n' | awk '$1 == "ii" { print $2 }' | sort
}

# `apt-get install ARGS`, recording in $scratch/installed the packages it installed: those it
# said it would install (a dry run first) that were not installed before and are after.
install_recorded() {
    local before=$scratch/before.$$ planned=$scratch/planned.$$
    installed_packages >"$before"
    apt_get install -s "$@" | awk '$1 == "Inst" { print $2 }' | sort >"$planned"
    apt_get install "$@"
    installed_packages | comm -13 "$before" - | sed 's/:.*//' | sort |
        comm -12 - <(sed 's/:.*//' "$planned") >>"$scratch/installed"
    rm -f "$before" "$planned"
}

# The trap: purge sightline and what install_recorded installed, whatever the outcome.
restore() {
    local rc=$?
    set +e
    if dpkg-query -W -f='${db:Status-Abbrev}' sightline 2>/dev/null | grep -q '^i'; then
        apt_get purge sightline
    fi
    # Those still installed (sightline, purged above or by the check, is among them).
    local left
    left=$(sort -u "$scratch/installed" | comm -12 - <(installed_packages | sed 's/:.*//' | sort))
    if [ -n "$left" ]; then
        echo "check-deb: removing what the check installed: $(echo $left)"
        # shellcheck disable=SC2086 # one word per package
        apt_get purge $left
    fi
    rm -rf "$scratch"
    [ $rc -eq 0 ] && echo "check-deb: all checks passed" || echo "check-deb: FAILED" >&2
    exit $rc
}
touch "$scratch/installed"
trap restore EXIT

## 1. The package's contents and control fields.
dpkg-deb -I "$deb" >"$scratch/info"
dpkg-deb -c "$deb" >"$scratch/contents"
cat "$scratch/info" "$scratch/contents"
field() { sed -n "s/^ $1: //p" "$scratch/info"; }
[ "$(field Package)" = sightline ] || fail "Package: is not sightline"
[ "$(field Architecture)" = amd64 ] || fail "Architecture: is not amd64"
field Depends | grep -q 'libc6' || fail "Depends: lacks libc6 (\$auto, dpkg-shlibdeps)"
for recommended in shared-mime-info desktop-file-utils; do
    field Recommends | grep -qw "$recommended" || fail "Recommends: lacks $recommended"
done
for path in \
    ./usr/bin/sightline \
    ./usr/share/applications/sightline.desktop \
    ./usr/share/mime/packages/sightline-mime.xml \
    ./usr/share/icons/hicolor/scalable/apps/sightline.svg \
    ./usr/share/icons/hicolor/256x256/apps/sightline.png \
    ./usr/share/doc/sightline/copyright; do
    awk '{ print $NF }' "$scratch/contents" | grep -qx -- "$path" || fail "the package lacks $path"
done
grep -Eq '^-rwxr-xr-x (root/root|0/0) .* \./usr/bin/sightline$' "$scratch/contents" ||
    fail "/usr/bin/sightline is not an executable owned by root"
# The files are those of assets/ (the entry with only Exec= changed), as install-desktop's.
mkdir "$scratch/root"
dpkg-deb -x "$deb" "$scratch/root"
cmp "$scratch/root/usr/share/mime/packages/sightline-mime.xml" assets/sightline-mime.xml
cmp "$scratch/root/usr/share/icons/hicolor/scalable/apps/sightline.svg" assets/sightline.svg
cmp "$scratch/root/usr/share/icons/hicolor/256x256/apps/sightline.png" assets/sightline-256.png
diff <(grep -v '^Exec=' assets/sightline.desktop) \
    <(grep -v '^Exec=' "$scratch/root/usr/share/applications/sightline.desktop") ||
    fail "the packaged desktop entry differs from assets/sightline.desktop beyond Exec="
grep -qx 'Exec=/usr/bin/sightline %F' "$scratch/root/usr/share/applications/sightline.desktop" ||
    fail "the packaged desktop entry does not start /usr/bin/sightline"
ok "contents and control fields"

# The types: those the MIME package defines (Sightline is their default application), and those
# the desktop entry lists (offered in Open With; a superset, with application/vnd.sqlite3).
mapfile -t defined < <(grep -o '<mime-type type="[^"]*"' assets/sightline-mime.xml | cut -d'"' -f2)
mapfile -t listed < <(sed -n 's/^MimeType=//p' assets/sightline.desktop | tr ';' '\n' | grep .)
[ ${#defined[@]} -gt 0 ] && [ ${#listed[@]} -gt 0 ] || fail "no MIME types found in assets/"
for type in "${defined[@]}"; do
    printf '%s\n' "${listed[@]}" | grep -qx -- "$type" || fail "the desktop entry does not list $type"
done

# The samples, one per file name pattern: "FILE TYPE" (by name, and one by content alone).
samples=(
    "fixtures/sample.ncu-rep application/x-nvidia-ncu-report"
    "fixtures/sample.ncu-repz application/x-nvidia-ncu-report-zstd"
    "fixtures/nvtxt/generated.nvtxt application/x-nvidia-nvtxt"
    "fixtures/codexl/session1.atp application/x-amd-codexl-trace"
    "fixtures/codexl/session1.occupancy application/x-amd-codexl-occupancy"
    "fixtures/nsys/synth_2k.sqlite application/vnd.sqlite3"
    "$scratch/report-without-extension application/x-nvidia-ncu-report"
)
cp fixtures/sample.ncu-rep "$scratch/report-without-extension"
nsys_originals=../shared/corpus/nsys/originals
if [ -d "$nsys_originals" ]; then
    samples+=(
        "$nsys_originals/caoye310_la_nsys23.nsys-rep application/x-nvidia-nsys-report"
        "$nsys_originals/gartangh_keras-darknet53.qdrep application/x-nvidia-nsys-report"
    )
elif [ "${SIGHTLINE_REQUIRE_SHARED:-}" = 1 ]; then
    fail "no $nsys_originals (SIGHTLINE_REQUIRE_SHARED=1): no .nsys-rep/.qdrep sample"
else
    echo "check-deb: note: no $nsys_originals: .nsys-rep and .qdrep samples not checked" >&2
fi

## 2. Install as a user does, with the check's own tools first: xdg-mime (xdg-utils) and the
## `mimetype` program it uses to read the shared-mime-info database (libfile-mimeinfo-perl;
## without it xdg-mime asks `file`, which knows none of these types).
apt_get update
install_recorded --no-install-recommends xdg-utils libfile-mimeinfo-perl
install_recorded -o APT::Install-Recommends=true "$deb"

version=$(/usr/bin/sightline --version)
pattern='^sightline [0-9][^ ]* \([0-9a-f]{7,}(-dirty)? [0-9]{4}-[0-9]{2}-[0-9]{2}\)$'
[[ $version =~ $pattern ]] ||
    fail "/usr/bin/sightline --version: $version"
ok "/usr/bin/sightline --version: $version"

for type in "${defined[@]}"; do
    default=$(xdg query default "$type")
    [ "$default" = sightline.desktop ] || fail "xdg-mime query default $type: '$default'"
    ok "xdg-mime query default $type: $default"
done
cache=/usr/share/applications/mimeinfo.cache
for type in "${listed[@]}"; do
    grep -q "^$type=\(.*;\)\?sightline\.desktop;" "$cache" ||
        fail "$cache does not offer sightline.desktop for $type"
done
ok "$cache offers sightline.desktop for: ${listed[*]}"
for sample in "${samples[@]}"; do
    read -r file type <<<"$sample"
    found=$(xdg query filetype "$file")
    [ "$found" = "$type" ] || fail "xdg-mime query filetype $file: '$found', not $type"
    ok "xdg-mime query filetype $file: $found"
done

## 3. Remove: the files, the types and the associations go with the package.
dpkg-query -L sightline | sort >"$scratch/files"
apt_get purge sightline
while read -r path; do
    [ -d "$path" ] || [ ! -e "$path" ] || fail "$path is still there after apt-get purge"
done <"$scratch/files"
grep -q 'sightline\.desktop' "$cache" 2>/dev/null && fail "$cache still names sightline.desktop"
for type in "${defined[@]}"; do
    default=$(xdg query default "$type")
    [ "$default" != sightline.desktop ] || fail "after purge, xdg-mime query default $type: $default"
done
found=$(xdg query filetype fixtures/sample.ncu-rep)
[ "$found" != application/x-nvidia-ncu-report ] ||
    fail "after purge, the shared-mime-info database still defines $found"
ok "purged: files, MIME types and associations gone (sample.ncu-rep is $found again)"
