# mk/maint.mk: the Iceberg Java checks of schema/spec evolution and table
# maintenance alone. They also run in make test-go, where mk/sql.mk passes
# JAVAREF_JAR: javaref's evolve (Java's SchemaUpdate and
# BaseUpdatePartitionSpec against iceberg/schema_evolve.go, spec_evolve.go)
# and tablecheck (tables after alter, compaction, manifest rewrite and
# expiry, read by Iceberg Java).
MAINT_JAVAREF_JAR := tools/javaref/target/javaref.jar

## test-maint-interop: Iceberg Java against the evolution builders and the maintained tables.
.PHONY: test-maint-interop
test-maint-interop: $(MAINT_JAVAREF_JAR)
	JAVAREF_JAR=$(abspath $(MAINT_JAVAREF_JAR)) $(GO) test -race -count=1 -run 'EvolutionAgreesWithIcebergJava|IcebergJavaReadsMaintained|SchemaUpdate|SpecUpdate' ./iceberg ./writer
