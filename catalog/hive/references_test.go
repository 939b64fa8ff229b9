package hive_test

import (
	"testing"

	hmsserver "github.com/iceflight/iceflight/testkit/servers/hms"
)

func checkReferences(t *testing.T, srv *hmsserver.Server) {}
