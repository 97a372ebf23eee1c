package plan

import (
	"fmt"
	"iter"
)

// maxRetryNames bounds the names one object may try.
const maxRetryNames = 100

// RetryNames are the names an object the plan asks for (an AnalysisRun, an
// Experiment) may take, in order: its own name, then, when an earlier try
// holds that (a retry after an abort), name.1, name.2, ... name.99.
func RetryNames(name string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if !yield(name) {
			return
		}
		for n := 1; n < maxRetryNames; n++ {
			if !yield(fmt.Sprintf("%s.%d", name, n)) {
				return
			}
		}
	}
}
