package engine

import (
	"path/filepath"
)

var warehouse = filepath.Join("..", "testdata", "warehouse")
