#!/usr/bin/env bash
# Regenerates the Java reference data (`make fixtures`):
#   1. builds tools/javaref/target/javaref.jar if it is missing or older than its sources;
#   2. fixturegen: rewrites testdata/warehouse from scratch (the old one is deleted first);
#   3. oracle on testdata/warehouse                              -> testdata/expected;
#   4. oracle queries testdata/queries/warehouse.json            -> testdata/expected-queries;
#   5. oracle on the conformance corpus                          -> testdata/conformance;
#   6. oracle queries testdata/queries/conformance.json (corpus) -> testdata/conformance-queries
#      (5 and 6 are skipped if the corpus is absent);
#   7. the differential seed set (make diffscan-expected)              -> testdata/diffscan
#      (seeded random scans of both, drawn from 3 and 5, answered by oracle queries);
#   8. locationgen: one table per spelling of a location, and the oracle on them
#      -> testdata/locations/{warehouse,expected}.
# `run.sh locations` runs step 8 alone (`make fixtures-locations`), leaving the rest as is.
# Environment: CONFORMANCE_ROOT (default ../shared/conformance/tables from the repo root),
#              ORACLE_FLAGS (extra oracle flags, e.g. --match-delete-paths-by-location).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jar="$here/target/javaref.jar"
corpus="${CONFORMANCE_ROOT:-$repo/../shared/conformance/tables}"

if [[ ! -f "$jar" || -n "$(find "$here/src" "$here/pom.xml" -newer "$jar" -print -quit)" ]]; then
  echo "building $jar"
  mvn -q -f "$here/pom.xml" package -DskipTests
fi

javaref() { java -cp "$jar" io.iceflight.javaref.Main "$@"; }

# locations writes the spelled-location tables and the oracle's rows of them.
locations() {
  javaref locationgen --warehouse testdata/locations/warehouse
  javaref oracle --root testdata/locations/warehouse --out testdata/locations/expected
}

cd "$repo"
if [[ "${1:-}" == locations ]]; then
  locations
  exit 0
fi
javaref fixturegen --warehouse testdata/warehouse
# shellcheck disable=SC2086
javaref oracle --root testdata/warehouse --out testdata/expected ${ORACLE_FLAGS:-}
# shellcheck disable=SC2086
javaref oracle queries --root testdata/warehouse --queries testdata/queries/warehouse.json \
  --out testdata/expected-queries ${ORACLE_FLAGS:-}
if [[ -d "$corpus" ]]; then
  # shellcheck disable=SC2086
  javaref oracle --root "$corpus" --out testdata/conformance ${ORACLE_FLAGS:-}
  # shellcheck disable=SC2086
  javaref oracle queries --root "$corpus" --queries testdata/queries/conformance.json \
    --out testdata/conformance-queries ${ORACLE_FLAGS:-}
else
  echo "conformance corpus not found at $corpus: testdata/conformance{,-queries} left as is"
fi
# The seed set draws its literals from testdata/expected and testdata/conformance: after them.
go run ./tests/diffscan/cmd/diffscan -jar "$jar" -corpus "$corpus"
locations
