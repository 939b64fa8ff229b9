# mk/benchs3.mk: the read benchmark with its tables on an S3 server (versitygw)
# and the REST catalog planning check (bench/read/README.md, "On S3").
# Prerequisites name bench/.venv literally: this fragment is read before the
# Makefile defines BENCH_VENV, and prerequisites expand as they are read.

## bench-s3: the read benchmark on versitygw, with requests per data file and REST planning requests (bench/read/README.md).
.PHONY: bench-s3
bench-s3: build bench/.venv/.installed bench/.venv/.client-installed servers-versitygw servers-rest
	@cd bench/peers/icebergo && $(GO) build -o $(abspath $(BENCH_ICEBERGO)) . \
		|| { echo "iceberg-go peer not built: it is skipped"; rm -f $(abspath $(BENCH_ICEBERGO)); }
	cd bench/read && ../.venv/bin/python -m readbench --storage s3 --flightd $(abspath $(BIN)) \
		--icebergo $(abspath $(BENCH_ICEBERGO)) --versitygw $(abspath $(VERSITYGW_BIN)) \
		--rest $(abspath $(REST_BIN)) $(BENCH_READ_ARGS)
