package lint

import (
	"os"
	"testing"
)

// TestExampleJudge: the built-in judge's example (an AnalysisTemplate and
// the Experiment it judges, docs/user-guide.md) lints clean.
func TestExampleJudge(t *testing.T) {
	data, err := os.ReadFile("../../examples/analysis/judge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if fs := Check(File{Name: "judge.yaml", Data: data}); len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
}
