# Sourced by run.sh and changelog.sh: sets tools and runtime after making
# sure of what both need, the pyspark venv (requirements.txt) under
# .tools/sparkgen/venv and iceberg-spark-runtime (pom.xml) from Maven
# Central in .tools/sparkgen/jars. Expects here and repo to be set.
tools="$repo/.tools/sparkgen"
if [[ ! -x "$tools/venv/bin/python" || "$here/requirements.txt" -nt "$tools/venv/.installed" ]]; then
  echo "installing pyspark into $tools/venv"
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install -q -r "$here/requirements.txt"
  touch "$tools/venv/.installed"
fi
mvn -q -f "$here/pom.xml" dependency:copy-dependencies \
  -DexcludeTransitive=true -DoutputDirectory="$tools/jars"
runtime="$(ls "$tools"/jars/iceberg-spark-runtime-*.jar)"
