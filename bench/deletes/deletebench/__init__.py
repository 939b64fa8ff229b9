"""Row-level-delete read benchmark: full scans of tables with and without deletes."""
