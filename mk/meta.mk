# mk/meta.mk: the metadata writer (iceberg: MarshalJSON, NewTableMetadata,
# ApplyUpdates) checked by the other implementations. make test already
# runs these tests with JAVAREF_JAR and PYICEBERG_PYTHON (mk/sql.mk puts
# both in TEST_ENV); test-metadata-interop runs only them and fails rather
# than skips when either is missing.
META_JAVAREF_JAR := tools/javaref/target/javaref.jar

.PHONY: test-metadata-interop
test-metadata-interop: $(META_JAVAREF_JAR) servers-sql
	ICEFLIGHT_REQUIRE_SERVERS=1 JAVAREF_JAR=$(abspath $(META_JAVAREF_JAR)) \
	  PYICEBERG_PYTHON=$(TOOLS)/pyiceberg-venv/bin/python \
	  $(GO) test -count=1 -run 'Java|PyIceberg' ./iceberg/
