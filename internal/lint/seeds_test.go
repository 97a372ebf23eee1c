package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// knownUnsupported are the warnings the seed manifests get because this
// version of Ramp cannot run them yet (plan.ValidateRollout). They apply
// cleanly; when the controller learns the feature, the entry must go.
var knownUnsupported = map[string]string{}

// knownBroken are the errors lint must find in the seeds: mistakes in the
// seed text itself, which would end every run in Error in Argo Rollouts too.
var knownBroken = map[string][]string{
	"003-bluegreen-analysis-template.yaml": {
		`spec.metrics[0].count: count must be >= failureLimit (every run of this template ends in Error)`,
		`spec.metrics[0].successCondition: compiling successCondition "result[0] = 0": unexpected token Operator("=") (1:11) (every measurement is an Error)`,
	},
}

// TestSeedManifests: every manifest extracted from the seeds lints with no
// error but the known mistakes of the seed text. The features this version cannot run yet are still reported, as
// warnings.
func TestSeedManifests(t *testing.T) {
	files, err := filepath.Glob("../../test/e2e/testdata/seeds/*.yaml")
	if err != nil || len(files) < 8 {
		t.Fatalf("seed manifests: %v (found %d)", err, len(files))
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			broken := map[string]bool{}
			for _, b := range knownBroken[name] {
				broken[b] = true
			}
			for _, f := range Check(File{Name: name, Data: data}) {
				t.Logf("%s", f)
				if f.Field+": "+f.Message == knownUnsupported[name] && f.Severity == Warning {
					found = true
					continue
				}
				if f.Severity == Error && broken[f.Field+": "+f.Message] {
					delete(broken, f.Field+": "+f.Message)
					continue
				}
				if f.Severity == Error {
					t.Errorf("unexpected error: %s", f)
				}
			}
			for b := range broken {
				t.Errorf("known mistake not reported: %s", b)
			}
			if want := knownUnsupported[name]; want != "" && !found {
				t.Errorf("no longer reported (remove it from knownUnsupported): %s", want)
			}
		})
	}
}
