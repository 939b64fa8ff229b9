#!/usr/bin/env bash
# Regenerates testdata/changelog (`make fixtures-changelog`): small tables
# written by Spark 4.1 with Iceberg's runtime and, for ranges of their
# snapshots, Spark's create_changelog_view rows and Spark's reads of each
# snapshot (changelog.py). Same tools as run.sh (pyspark venv, runtime jar).
# Needs Java 17+, Maven, Python 3.10+.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
fixtures="${CHANGELOG_FIXTURES:-/tmp/iceflight-fixtures/changelog/warehouse}"
out="$repo/testdata/changelog"

# shellcheck source=setup.sh
source "$here/setup.sh"

rm -rf "$out/db" "$out/expected"
"$tools/venv/bin/python" "$here/changelog.py" --warehouse "$fixtures" --jar "$runtime" --out "$out/expected"
mkdir -p "$out"
cp -R "$fixtures"/. "$out"/
du -sh "$out"
