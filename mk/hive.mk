# Hive Metastore: the standalone metastore 4.0.0 from Maven Central over an
# embedded Derby database, or a PostgreSQL one for the tests that race
# writers (tools/hms), for the tests of catalog/hive and flightd's `type:
# hive`. testkit/servers/hms starts one per test on loopback. The schema
# scripts come from the metastore's binary distribution (Maven Central's
# "bin" tar.gz), which the build unpacks.

HMS_DIR := $(TOOLS)/hms
HMS_BIN := $(HMS_DIR)/hms
HMS_SRC := tools/hms/pom.xml $(shell find tools/hms/src -name '*.java' 2>/dev/null)

.PHONY: servers-hms test-hive

## servers-hms: build tools/hms (mvn package) and install it with its jars, the metastore's Derby schema scripts and a launcher under .tools/hms.
servers-hms: $(HMS_BIN)

$(HMS_BIN): $(HMS_SRC)
	mvn -q -B -f tools/hms/pom.xml clean package -DskipTests
	rm -rf $(HMS_DIR) && mkdir -p $(HMS_DIR)
	cp -r tools/hms/target/hms.jar tools/hms/target/lib $(HMS_DIR)/
	cp -r tools/hms/target/dist/apache-hive-metastore-*-bin $(HMS_DIR)/home
	printf '#!/bin/sh\n# A small heap: the metastore holds a few databases and tables.\nexec java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$$(dirname "$$0")/hms.jar" "$$@"\n' > $@
	chmod +x $@

## test-hive: the Hive catalog's suite (catalog/hive, flightd's type: hive) against metastores it starts itself.
test-hive: servers-hms servers-sql
	HMS_BIN=$(HMS_BIN) POSTGRES_BIN=$(POSTGRES_BIN) PYICEBERG_PYTHON=$(PYICEBERG_VENV)/bin/python $(GO) test -race -count=1 -v ./catalog/hive/...
	HMS_BIN=$(HMS_BIN) PYICEBERG_PYTHON=$(PYICEBERG_VENV)/bin/python JAVAREF_JAR=$(abspath $(SQL_JAVAREF_JAR)) $(GO) test -race -count=1 -v -run Hive ./cmd/flightd

TEST_DEPS += servers-hms
TEST_ENV  += HMS_BIN=$(HMS_BIN)
