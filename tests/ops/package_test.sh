#!/usr/bin/env bash
# Builds the .deb from BUILD_DIR's CPack configuration into a scratch directory,
# checks its control fields and contents, unpacks it into a scratch root and
# runs the unpacked binary on the unpacked example configuration.
# Usage: package_test.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack"; }
debs=("$work"/out/*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || fail "expected one .deb in $work/out: ${debs[*]}"
deb=${debs[0]}
echo "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == jank-exporter ]] || fail "Package: $(field Package)"
[[ -n $(field Maintainer) ]] || fail "no Maintainer"
[[ -n $(field Description) ]] || fail "no Description"
[[ $(field Recommends) == *adb* ]] || fail "Recommends: $(field Recommends)"
depends=$(field Depends)
echo "Depends: $depends"
[[ $depends != *adb* ]] || fail "adb must be a recommendation, not a dependency"

root=$work/root
dpkg-deb -x "$deb" "$root"
# Every shared library the packaged binary needs comes from a package named in
# Depends (derived from the binary itself, so relinking cannot make it stale).
arch=$(dpkg --print-architecture)
needed=$(objdump -p "$root/usr/bin/jank_exporter" | awk '$1 == "NEEDED" { print $2 }')
[[ -n $needed ]] || fail "no NEEDED entries in the binary"
for lib in $needed; do
  owner=$(dpkg -S "*/$lib" 2>/dev/null | grep -E "^[^:]+:$arch: " | head -n1 | cut -d: -f1)
  [[ -n $owner ]] || fail "no installed package ships $lib"
  tr ',|' '\n\n' <<<"$depends" | awk '{ print $1 }' | grep -qxF "$owner" ||
    fail "$lib comes from $owner, which Depends lacks"
done

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$work/contents"
for path in /usr/bin/jank_exporter \
            /usr/lib/systemd/system/jank_exporter.service \
            /usr/lib/systemd/system/jank-adb-server.service \
            /etc/jank_exporter/jank_exporter.yaml \
            /usr/share/jank_exporter/alertmanager/jank_exporter.yml \
            /usr/share/jank_exporter/grafana/jank_exporter.json \
            /usr/share/jank_exporter/grafana/jank_exporter_farm.json \
            /usr/share/jank_exporter/prometheus/jank_exporter.rules.yml \
            /usr/share/jank_exporter/prometheus/jank_exporter.alerts.yml \
            /usr/share/jank_exporter/prometheus/jank_exporter.farm.rules.yml \
            /usr/share/doc/jank-exporter/operations.md \
            /usr/share/doc/jank-exporter/troubleshooting.md; do
  grep -qxF "$path" "$work/contents" || { cat "$work/contents" >&2; fail "$path not in the package"; }
done
# Tests and the simulator stay out of the package.
! grep -qE 'jank_devsim|tests?/' "$work/contents" || fail "test files in the package"
dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
  sh -n "$work/control/$script" || fail "$script is not valid sh"
done
dpkg-deb -I "$deb" conffiles | grep -qxF /etc/jank_exporter/jank_exporter.yaml ||
  fail "the example configuration is not a conffile"

"$root/usr/bin/jank_exporter" --version | grep -q '^jank_exporter [0-9]' || fail "--version"
"$root/usr/bin/jank_exporter" --check-config "$root/etc/jank_exporter/jank_exporter.yaml" ||
  fail "--check-config of the installed example"
echo "package OK"
