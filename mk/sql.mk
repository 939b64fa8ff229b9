# mk/sql.mk: what the SQL catalog's tests (catalog/sql) need. PostgreSQL
# from Debian: testkit/servers/postgres runs initdb and postgres from the
# bin folder linked as .tools/postgres-bin. The writers of the tables the
# tests read, run at test time: PyIceberg 0.12 with SqlCatalog's SQLite and
# PostgreSQL drivers (and the Glue and Hive catalogs' clients, which the
# tests of those catalogs use), in its own venv, and Iceberg Java's
# JdbcCatalog (tools/javaref's jdbcwrite, in the jar the Makefile builds).
# SQLite needs nothing (modernc.org/sqlite is Go).
PYICEBERG_VERSION := 0.12.0
# The extras of every catalog the tests have PyIceberg check: SqlCatalog's
# drivers, GlueCatalog's boto3 and HiveCatalog's thrift.
PYICEBERG_EXTRAS  := sql-sqlite,sql-postgres,pyarrow,glue,hive
PYICEBERG_VENV    := $(TOOLS)/pyiceberg-venv
comma             := ,
PYICEBERG_STAMP   := $(PYICEBERG_VENV)/.installed-$(PYICEBERG_VERSION)-$(subst $(comma),-,$(PYICEBERG_EXTRAS))
POSTGRES_BIN      := $(TOOLS)/postgres-bin
# The Makefile names and builds this jar (JAVAREF_JAR) below the include.
SQL_JAVAREF_JAR   := tools/javaref/target/javaref.jar

.PHONY: servers-sql servers-postgres
servers-sql: servers-postgres $(PYICEBERG_STAMP)

# Debian installs each major version under /usr/lib/postgresql/<N>/bin; the
# newest is linked. apt-get runs only where none is installed.
servers-postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  [ "$$(id -u)" = 0 ] || { echo "servers-postgres: install Debian's postgresql (as root: apt-get install postgresql)" >&2; exit 1; }; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; }
	@mkdir -p $(TOOLS)
	@ln -sfn "$$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)" $(POSTGRES_BIN)

$(PYICEBERG_STAMP):
	$(PYTHON) -m venv $(PYICEBERG_VENV)
	$(PYICEBERG_VENV)/bin/pip install -q 'pyiceberg[$(PYICEBERG_EXTRAS)]==$(PYICEBERG_VERSION)'
	touch $@

TEST_DEPS += servers-sql $(SQL_JAVAREF_JAR)
TEST_ENV  += POSTGRES_BIN=$(POSTGRES_BIN) PYICEBERG_PYTHON=$(PYICEBERG_VENV)/bin/python JAVAREF_JAR=$(abspath $(SQL_JAVAREF_JAR))
