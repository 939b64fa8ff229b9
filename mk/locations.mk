# Location spellings (testdata/locations): tables written by Iceberg Java that
# record relative, file:, hdfs://, s3a:// and C:\ locations, and the Java
# oracle's rows of them. `make fixtures` rewrites them too, after the rest.
.PHONY: fixtures-locations

## fixtures-locations: rewrite testdata/locations alone with Iceberg Java (needs Java 17 and Maven).
fixtures-locations:
	tools/javaref/run.sh locations
