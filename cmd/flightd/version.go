package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// version is set at link time by the Makefile and the Dockerfile
// (-ldflags "-X main.version=$(git describe --tags --always --dirty)");
// empty, the build info the go command stamps is used instead.
var version string

// buildVersion returns the version flightd reports: the linked-in one, else
// the module version of a "go install ...@v", else the commit the go
// command stamped (with "-dirty" for uncommitted changes), else "devel".
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
}

// versionOf picks the version in build info, as buildVersion describes.
func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-dirty"
	}
	return rev
}

// versionLine is what "flightd --version" prints.
func versionLine() string {
	return fmt.Sprintf("flightd %s (%s %s/%s)", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// buildInfoCollector is the iceflight_build_info gauge: always 1, with the
// version and Go version as labels, so a dashboard can show what runs.
func buildInfoCollector() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "iceflight_build_info",
		Help:        "Always 1; the labels say which flightd build is running.",
		ConstLabels: prometheus.Labels{"version": buildVersion(), "goversion": runtime.Version()},
	}, func() float64 { return 1 })
}
