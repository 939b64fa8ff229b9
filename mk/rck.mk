# mk/rck.mk: Iceberg's REST Compatibility Kit against flightd --rest-listen
# (issue 29). tools/javaref's rck runs Iceberg's own CatalogTests (from
# iceberg-core's test jar, as the kit's RESTCompatibilityKitCatalogTests
# does) through Iceberg's REST client; TestRESTCompatibilityKit starts a
# fresh flightd per test, on a directory warehouse and on the SQL catalog,
# and runs only when ICEFLIGHT_RCK is set: a JVM per test, minutes in all,
# so it is not part of make test.
RCK_JAVAREF_JAR := tools/javaref/target/javaref.jar

## rck: Iceberg's REST Compatibility Kit (CatalogTests through Iceberg Java's REST client) against flightd --rest-listen, a test per subtest and a tally per catalog.
.PHONY: rck
rck: $(RCK_JAVAREF_JAR)
	@ICEFLIGHT_RCK=1 JAVAREF_JAR=$(abspath $(RCK_JAVAREF_JAR)) $(GO) test -count=1 -v -timeout 60m \
		-run 'TestRESTCompatibilityKit' ./cmd/flightd \
		| grep -E '^(rck |\s+--- (FAIL|SKIP)|\s+rest_rck_test|--- FAIL|FAIL|ok)' ; test $${PIPESTATUS[0]} -eq 0
