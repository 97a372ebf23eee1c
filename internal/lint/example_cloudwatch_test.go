package lint

import (
	"os"
	"testing"
)

// TestExampleCloudWatch: upstream's documented cloudWatch template
// (examples/analysis/cloudwatch.yaml) lints without a finding.
func TestExampleCloudWatch(t *testing.T) {
	const file = "../../examples/analysis/cloudwatch.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if fs := Check(File{Name: file, Data: data}); len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
}
