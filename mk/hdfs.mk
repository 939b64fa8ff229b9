# HDFS: Hadoop's MiniDFSCluster (tools/minidfs, from Maven Central's
# hadoop-client-minicluster) for the tests of fileio/hdfs. The suite starts
# one cluster (4.5-22 s on the busy 2-core machine, 270 MB resident at its
# peak), kills and restarts it once, and runs in 13-34 s, so it is part of
# make test; test-hdfs runs it alone.

MINIDFS_DIR := $(TOOLS)/minidfs
MINIDFS_BIN := $(MINIDFS_DIR)/minidfs
MINIDFS_SRC := tools/minidfs/pom.xml $(shell find tools/minidfs/src -name '*.java' 2>/dev/null)

.PHONY: servers-hdfs test-hdfs

## servers-hdfs: build tools/minidfs (mvn package) and install it with its Hadoop jars and a launcher under .tools/minidfs.
servers-hdfs: $(MINIDFS_BIN)

$(MINIDFS_BIN): $(MINIDFS_SRC)
	mvn -q -B -f tools/minidfs/pom.xml package -DskipTests
	rm -rf $(MINIDFS_DIR) && mkdir -p $(MINIDFS_DIR)
	cp -r tools/minidfs/target/minidfs.jar tools/minidfs/target/lib $(MINIDFS_DIR)/
	printf '#!/bin/sh\n# The heap is small: the cluster holds a few MB of test files.\nexec java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$$(dirname "$$0")/minidfs.jar" "$$@"\n' > $@
	chmod +x $@

## test-hdfs: the HDFS suite (fileio/hdfs) against MiniDFSCluster clusters it starts itself.
test-hdfs: servers-hdfs
	HDFS_BIN=$(MINIDFS_BIN) $(GO) test -race -count=1 -v ./fileio/hdfs/... ./testkit/servers/minidfs/...

TEST_DEPS += servers-hdfs
TEST_ENV  += HDFS_BIN=$(MINIDFS_BIN)
