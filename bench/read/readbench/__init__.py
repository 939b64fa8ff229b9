"""Read benchmark: iceflight against PyIceberg, pyarrow, iceberg-go and a bare Flight server."""
