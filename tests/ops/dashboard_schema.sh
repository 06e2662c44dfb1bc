#!/usr/bin/env bash
# Checks Grafana dashboards against Grafana's published JSON schemas with ajv
# (tests/ops/schema/validate_dashboards.mjs; its npm packages are installed by
# scripts/deps). Exits 77 (skipped) when the schema folder is absent: it is
# shared data beside the repository, not part of it.
# Usage: dashboard_schema.sh NODE SCHEMA_DIR DASHBOARD...
#          every dashboard valid; every error printed with its JSON pointer
#        dashboard_schema.sh --must-reject NODE SCHEMA_DIR DASHBOARD
#          a broken copy of DASHBOARD is rejected, at each broken field
set -euo pipefail
must_reject=0
if [[ "${1:-}" == "--must-reject" ]]; then
  must_reject=1
  shift
fi
node=$1 schemas=$2
shift 2
here=$(cd "$(dirname "$0")/schema" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

if [[ ! -f "$schemas/dashboard.jsonschema.json" ]]; then
  echo "SKIP: no Grafana schemas at $schemas"
  exit 77
fi
[[ -d "$here/node_modules/ajv" && -d "$here/node_modules/ajv-formats" ]] ||
  fail "ajv is not installed in $here/node_modules: run scripts/deps"
[[ $# -gt 0 ]] || fail "no dashboard given"

if [[ $must_reject -eq 0 ]]; then
  exec "$node" "$here/validate_dashboards.mjs" "$schemas" "$@"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
broken=$work/broken.json
"$node" "$here/break_dashboard.mjs" "$1" "$broken" >"$work/expected"
status=0
"$node" "$here/validate_dashboards.mjs" "$schemas" "$broken" >"$work/out" 2>&1 || status=$?
cat "$work/out"
[[ $status -eq 1 ]] || fail "the broken dashboard gave exit $status, not 1 (invalid)"
while read -r pointer; do
  grep -qF -- "$broken: $pointer:" "$work/out" || fail "no error reported at $pointer"
  echo "rejected at $pointer"
done <"$work/expected"
[[ -s "$work/expected" ]] || fail "nothing was broken"
