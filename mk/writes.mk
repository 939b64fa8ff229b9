# mk/writes.mk: the write path's outside checks (issue 13). cmd/flightd's
# writes_*_test.go and testkit/writecheck run Iceberg Java's
# tablecheck (tools/javaref, in the jar the Makefile builds) and
# tools/pycheck/check.py under the PyIceberg 0.12 venv of mk/sql.mk, whose
# TEST_DEPS/TEST_ENV (servers-sql, the jar, JAVAREF_JAR, PYICEBERG_PYTHON)
# already cover them: nothing is added to make test here.
#
# The crash test commits 200 times by default; ICEFLIGHT_CRASH_COMMITS sets
# more, ICEFLIGHT_CRASH_SEED replays a run.
CRASH_COMMITS ?= 1000

## test-writes: only the write path's end-to-end tests, verbose (Iceberg Java and PyIceberg check every table).
.PHONY: test-writes test-writes-crash bench-write
test-writes: $(TEST_DEPS)
	$(TEST_ENV) $(GO) test -race -count=1 -v -run 'Writes' ./cmd/flightd ./testkit/writecheck

## test-writes-crash: the SIGKILL test with CRASH_COMMITS commits (default 1000).
test-writes-crash: $(TEST_DEPS)
	$(TEST_ENV) ICEFLIGHT_CRASH_COMMITS=$(CRASH_COMMITS) $(GO) test -count=1 -v -timeout 60m -run 'TestWritesSurviveSIGKILL' ./cmd/flightd

## bench-write: append 10M lineitem rows through iceflight, PyIceberg and iceberg-go; delete 1% by filter (bench/write/README.md).
BENCH_WRITE_ARGS ?=
# Written out: the Makefile names BENCH_VENV (bench/.venv) after the includes.
bench-write: build bench/.venv/.installed bench/.venv/.client-installed
	@cd bench/peers/icebergo && $(GO) build -o $(abspath $(BENCH_ICEBERGO)) . \
		|| { echo "iceberg-go peer not built: it is skipped"; rm -f $(abspath $(BENCH_ICEBERGO)); }
	cd bench/write && ../.venv/bin/python -m writebench --flightd $(abspath $(BIN)) \
		--icebergo $(abspath $(BENCH_ICEBERGO)) $(BENCH_WRITE_ARGS)
