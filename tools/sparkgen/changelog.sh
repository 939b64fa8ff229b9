#!/usr/bin/env bash
# Regenerates testdata/changelog (`make fixtures-changelog`): small tables
# written by Spark 4.1 with Iceberg's runtime and, for ranges of their
# snapshots, Spark's create_changelog_view rows and Spark's reads of each
# snapshot (changelog.py). Same tools as run.sh (pyspark venv, runtime jar).
# Needs Java 17+, Maven, Python 3.10+.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tools="$repo/.tools/sparkgen"
fixtures="${CHANGELOG_FIXTURES:-/tmp/iceflight-fixtures/changelog/warehouse}"
out="$repo/testdata/changelog"

if [[ ! -x "$tools/venv/bin/python" || "$here/requirements.txt" -nt "$tools/venv/.installed" ]]; then
  echo "installing pyspark into $tools/venv"
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install -q -r "$here/requirements.txt"
  touch "$tools/venv/.installed"
fi
mvn -q -f "$here/pom.xml" dependency:copy-dependencies \
  -DexcludeTransitive=true -DoutputDirectory="$tools/jars"
runtime="$(ls "$tools"/jars/iceberg-spark-runtime-*.jar)"

rm -rf "$out/db" "$out/expected"
"$tools/venv/bin/python" "$here/changelog.py" --warehouse "$fixtures" --jar "$runtime" --out "$out/expected"
mkdir -p "$out"
cp -R "$fixtures"/. "$out"/
du -sh "$out"
