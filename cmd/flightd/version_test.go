package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOfBuildInfo(t *testing.T) {
	t.Parallel()
	rev := "0123456789abcdef0123456789abcdef01234567"
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a go install of a tagged module reports its version", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a build in a clone reports the commit",
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}}, "0123456789ab"},
		{"uncommitted changes are marked dirty",
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}, "0123456789ab-dirty"},
		{"no version and no commit is devel", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := versionOf(&tc.bi); got != tc.want {
				t.Fatalf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersionAndHelpExitZero(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCmd(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "flightd "+buildVersion()+" (go") {
		t.Fatalf("--version: exit %d, %q %s", code, out, stderr)
	}
	for _, args := range [][]string{{"serve", "--help"}, {"serve", "-h"}, {"plan", "--help"}, {"inspect", "--help"}} {
		if code, _, stderr := runCmd(t, args...); code != 0 {
			t.Errorf("%v: exit %d, want 0 (%s)", args, code, stderr)
		}
	}
}

func TestServeHelpListsTheRequiredFlagFirstAndNamesFiles(t *testing.T) {
	t.Parallel()
	_, _, help := runCmd(t, "serve", "--help")
	flags := []string{}
	for _, line := range strings.Split(help, "\n") {
		if strings.HasPrefix(line, "  -") {
			flags = append(flags, strings.TrimPrefix(line, "  "))
		}
	}
	if len(flags) < 10 || flags[0] != "-warehouse DIR" {
		t.Fatalf("the first flag is not --warehouse DIR: %q", flags)
	}
	for _, want := range []string{"-tokens FILE", "-users FILE", "-ticket-keys FILE", "-tls-cert FILE", "-listen HOST:PORT"} {
		found := false
		for _, f := range flags {
			found = found || f == want
		}
		if !found {
			t.Errorf("serve --help lacks %q: %q", want, flags)
		}
	}
}

func TestServeWarnsOfAWarehouseWithoutTables(t *testing.T) {
	t.Parallel()
	s := startServe(t, "--warehouse", t.TempDir(), "--listen", "127.0.0.1:0")
	// The warning is logged before the address line startServe waited for.
	if !strings.Contains(s.stderr.String(), "the warehouse holds no table") {
		t.Fatalf("no warning for an empty warehouse: %s", s.stderr.String())
	}
}
