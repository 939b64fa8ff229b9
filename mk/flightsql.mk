# The Flight SQL client checks of tests/e2e: ADBC's driver comes from PyPI
# (tests/e2e/requirements.txt); the JDBC driver from Maven Central, run by
# tools/flightsqljdbc, whose jar test-python builds and names here.
FLIGHTSQL_JDBC_JAR := tools/flightsqljdbc/target/flightsqljdbc.jar

## tools/flightsqljdbc/target/flightsqljdbc.jar: the JDBC check's program, with the Arrow Flight SQL JDBC driver shaded in.
$(FLIGHTSQL_JDBC_JAR): tools/flightsqljdbc/pom.xml $(shell find tools/flightsqljdbc/src -name '*.java' 2>/dev/null)
	mvn -q -f tools/flightsqljdbc/pom.xml package -DskipTests

test-python: $(FLIGHTSQL_JDBC_JAR)
test-python: export FLIGHTSQL_JDBC_JAR := $(abspath $(FLIGHTSQL_JDBC_JAR))
