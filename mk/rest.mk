# The Iceberg REST catalog fixture (tools/javaref `restserver`: Iceberg's
# RESTCatalogAdapter over a JdbcCatalog behind Jetty) for the tests of
# catalog/rest. The launcher runs the javaref jar, which the Makefile's own
# rule builds with Maven when its sources change.
REST_BIN := $(TOOLS)/rest/restserver

.PHONY: servers-rest
servers-rest: $(REST_BIN)

$(REST_BIN): tools/javaref/target/javaref.jar mk/rest.mk
	mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec java -cp %s io.iceflight.javaref.Main restserver "$$@"\n' \
	  '$(abspath tools/javaref/target/javaref.jar)' > $@
	chmod +x $@

TEST_DEPS += servers-rest
TEST_ENV += REST_BIN=$(REST_BIN)
