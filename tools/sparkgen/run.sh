#!/usr/bin/env bash
# Regenerates the spark writer of the writers corpus (`make fixtures-spark`):
#   1. a venv with pyspark (requirements.txt) under .tools/sparkgen/venv;
#   2. iceberg-spark-runtime (pom.xml) copied from Maven Central into .tools/sparkgen/jars;
#   3. sparkgen.py writes the tables with Spark in local mode into a Hadoop catalog at
#      $SPARK_FIXTURES (default /tmp/iceflight-fixtures/spark/warehouse), a fixed path so
#      the recorded locations never name a checkout;
#   4. the tables replace testdata/writers/spark/<ns>/<table>;
#   5. the Java oracle reads them               -> testdata/expected-writers/spark.
# Needs Java 17+, Maven, Python 3.10+; the oracle jar must be built (the make target does).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
fixtures="${SPARK_FIXTURES:-/tmp/iceflight-fixtures/spark/warehouse}"
out="$repo/testdata/writers/spark"
jar="$repo/tools/javaref/target/javaref.jar"

# shellcheck source=setup.sh
source "$here/setup.sh"

"$tools/venv/bin/python" "$here/sparkgen.py" --warehouse "$fixtures" --jar "$runtime"

# Only the namespaces sparkgen wrote and the oracle's output are replaced.
find "$out" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null || true
mkdir -p "$out"
cp -R "$fixtures"/. "$out"/
java -cp "$jar" io.iceflight.javaref.Main oracle --root "$out" --out "$repo/testdata/expected-writers/spark"
du -sh "$out"
