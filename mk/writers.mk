# The writers corpus (testdata/writers, issue 11): tables written by Iceberg
# Java, PyIceberg and pyarrow + PyIceberg add_files, with the Java oracle's
# rows in testdata/expected-writers. Regenerating needs Java 17, Maven and
# Python 3.11; the tests only read the checked-in files.

## fixtures-writers: rewrite testdata/writers and testdata/expected-writers with Iceberg Java, PyIceberg 0.12 and pyarrow (needs Java 17, Maven, Python 3.11).
.PHONY: fixtures-writers
fixtures-writers:
	PYTHON=$(PYTHON) tools/pywriters/generate.sh
