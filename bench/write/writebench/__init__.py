"""The write benchmark: iceflight vs PyIceberg (and iceberg-go) appending and deleting."""
