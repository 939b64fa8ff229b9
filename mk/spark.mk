# The spark writer of the writers corpus (tools/sparkgen/run.sh): Apache Spark
# in local mode with Iceberg's Spark runtime writes testdata/writers/spark, and
# the Java oracle writes its expected rows. Slow (Spark starts a JVM and
# downloads pyspark on first use), so it is not part of `make test`; the tables
# it leaves are committed and read by cmd/flightd's writers_spark_test.go.
.PHONY: fixtures-spark

## fixtures-spark: rewrite testdata/writers/spark with Spark 4.1 + Iceberg 1.12 (needs Java 17, Maven, Python 3).
fixtures-spark:
	@$(MAKE) --no-print-directory $(JAVAREF_JAR)
	tools/sparkgen/run.sh

# The change streams' oracle (tools/sparkgen/changelog.sh): small tables and
# Spark's create_changelog_view of ranges of their snapshots, committed under
# testdata/changelog and read by the changelog package's tests.
.PHONY: fixtures-changelog

## fixtures-changelog: rewrite testdata/changelog with Spark 4.1 + Iceberg 1.12 changelog views (needs Java 17, Maven, Python 3).
fixtures-changelog:
	tools/sparkgen/changelog.sh
