package datadog

import (
	"testing"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// FuzzDecode: neither decoder panics on any body, and a success always has
// a stored value (Display) to record.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"series":[{"pointlist":[[1,2]]}]}`, `{"series":[{"pointlist":[[1,null]]}]}`, `{"status":"error","error":"x"}`,
		`{"data":{"attributes":{"columns":[{"name":"g","type":"group","values":[["a"]]},{"name":"q","type":"number","values":[1,null]}]}}}`,
		`{"data":{"attributes":{"columns":[]}}}`, `{"errors":"e"}`, `null`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, decode := range []func([]byte) (provider.Result, error){decodeV1, decodeV2} {
			if res, err := decode(body); err == nil && res.Display == "" {
				t.Errorf("%q: success with no stored value", body)
			}
		}
	})
}
