// Package restcatalog serves the Apache Iceberg REST catalog API
// (rest-catalog-open-api.yaml) over iceflight's catalogs, so that any
// engine that speaks it (Spark, Trino, Flink, PyIceberg, Iceberg Java)
// loads, creates and commits tables through flightd with the same tokens
// and grants as Flight clients.
//
// It is a front end over package engine, like flight and flightsql: the
// engine authenticates callers, holds their grants, logs and counts every
// call and plans scans; writer commits, so a table's commits from REST
// clients and from DoPut take turns under one lock and retry the same
// way. The package only speaks HTTP and the REST API's JSON.
//
// Each catalog of the process is served under its own prefix
// (/v1/{prefix}/...), the name it has in the configuration; GET
// /v1/config?warehouse=NAME tells a client which. Without a prefix the
// routes serve every catalog at once, each as a top-level namespace, as
// flightd names tables on its other front ends (CATALOG.NAMESPACE.TABLE).
// A process that serves one --warehouse has no prefix.
package restcatalog
