# The conformance corpus read from S3 (issue 12): uploaded to versitygw under
# a root none of its tables was written at, read through a directory
# warehouse on that prefix and through the Iceberg REST fixture, where
# Iceberg Java registered every table, and compared with the Java oracle.
# It takes one to three minutes under -race on 2 cores, so it runs once, as
# its own step of make test, rather than inside test-go (which skips it).

.PHONY: test-s3conf

## test-s3conf: the conformance corpus from S3, by a directory warehouse and by the REST catalog, against the Java oracle; prints its tallies and the S3 requests per data file.
test-s3conf: servers-versitygw servers-rest
	@ICEFLIGHT_S3_CONFORMANCE=1 VERSITYGW_BIN=$(VERSITYGW_BIN) REST_BIN=$(REST_BIN) \
	  $(GO) test -race -count=1 -v -timeout 15m -run 'TestConformanceCorpusFromS3' ./cmd/flightd \
	  | grep -E '^(conformance|--- FAIL|FAIL|ok)|oracle_test.go|storage_conformance_test.go' ; test $${PIPESTATUS[0]} -eq 0
