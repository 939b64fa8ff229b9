package cluster_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// manifestFlag matches a flightd flag in a container's args ("- --role=worker").
var manifestFlag = regexp.MustCompile(`(?m)^\s*- --([a-z-]+)(?:=|$)`)

func TestDeployManifestsUseOnlyFlagsFlightdKnows(t *testing.T) {
	t.Parallel()
	usage, _ := exec.Command(flightd(t), "serve", "-h").CombinedOutput()
	manifests, err := filepath.Glob(filepath.Join(repo, "deploy", "k8s", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, path := range manifests {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range manifestFlag.FindAllStringSubmatch(string(data), -1) {
			seen++
			if !regexp.MustCompile(`(?m)^\s+-` + regexp.QuoteMeta(m[1]) + `\b`).Match(usage) {
				t.Errorf("%s: flightd serve has no --%s", filepath.Base(path), m[1])
			}
		}
	}
	if seen == 0 {
		t.Fatal("no flightd flags found in deploy/k8s: the manifests changed shape")
	}
}

// The YAML check needs PyYAML (Debian python3-yaml); it is skipped without.
func TestDeployFilesAreValidYAML(t *testing.T) {
	t.Parallel()
	if err := exec.Command("python3", "-c", "import yaml").Run(); err != nil {
		t.Skip("python3 with PyYAML not found: YAML syntax not checked")
	}
	files, err := filepath.Glob(filepath.Join(repo, "deploy", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const script = `import sys, yaml
for f in sys.argv[1:]:
    docs = [d for d in yaml.safe_load_all(open(f)) if d is not None]
    assert docs, f + ": no YAML documents"
    for d in docs:
        assert isinstance(d, dict), f + ": a document is not a mapping"
`
	out, err := exec.Command("python3", append([]string{"-c", script}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("deploy YAML: %v\n%s", err, out)
	}
}
