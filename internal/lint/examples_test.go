package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProviderExamples: every metric provider example under
// examples/analysis (an adaptation of upstream's documented example for the
// provider) lints clean: no error and no warning. A provider that stops
// being registered, or a field lint stops knowing, fails it.
func TestProviderExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/analysis/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("examples/analysis: %v (found %d)", err, len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range Check(File{Name: filepath.Base(path), Data: data}) {
				t.Errorf("%s", f)
			}
		})
	}
}
