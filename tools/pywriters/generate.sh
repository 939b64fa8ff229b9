#!/usr/bin/env bash
# Regenerates the writers corpus (`make fixtures-writers`): tables written by
# other writers than iceflight, with the Iceberg Java oracle's rows.
#   1. Iceberg Java (tools/javaref writersgen): one table per data file format;
#   2. PyIceberg (tools/pywriters/writers.py, in the venv .tools/pywriters
#      made from tools/pywriters/requirements.txt): its own appends, deletes
#      and overwrites, and add_files of pyarrow-written files;
#   3. the tables move from where they were written, the fixed neutral path
#      $FIXTURES (so recorded locations never name a checkout), to
#      testdata/writers/<writer>/<ns>/<table>;
#   4. oracle on each writer's folder -> testdata/expected-writers/<writer>.
# testdata/warehouse and testdata/expected are not touched (tools/javaref/run.sh
# writes them).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
javaref_dir="$repo/tools/javaref"
jar="$javaref_dir/target/javaref.jar"
venv="$repo/.tools/pywriters"
fixtures="${FIXTURES:-/tmp/iceflight-fixtures/writers}"
python="${PYTHON:-python3}"

if [[ ! -f "$jar" || -n "$(find "$javaref_dir/src" "$javaref_dir/pom.xml" -newer "$jar" -print -quit)" ]]; then
  echo "building $jar"
  mvn -q -f "$javaref_dir/pom.xml" package -DskipTests
fi
if [[ ! -f "$venv/.installed" || "$here/requirements.txt" -nt "$venv/.installed" ]]; then
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
  touch "$venv/.installed"
fi

javaref() { java -cp "$jar" io.iceflight.javaref.Main "$@"; }

rm -rf "$fixtures"
mkdir -p "$fixtures"
javaref writersgen --warehouse "$fixtures/java"
"$venv/bin/python" "$here/writers.py" --root "$fixtures"

cd "$repo"
rm -rf testdata/writers testdata/expected-writers
mkdir -p testdata/writers
for writer in java pyiceberg pyarrow-add_files; do
  cp -R "$fixtures/$writer" "testdata/writers/$writer"
  javaref oracle --root "testdata/writers/$writer" --out "testdata/expected-writers/$writer"
done
rm -rf "$fixtures"
du -sh testdata/writers testdata/expected-writers
