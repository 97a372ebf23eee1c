package dashboard

import (
	"strings"
	"testing"
)

// TestOptionsValidate: loopback is accepted; any other address needs
// --in-cluster-auth; a malformed address is named.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o   Options
		err string
	}{
		{Options{Address: "127.0.0.1:3100"}, ""},
		{Options{Address: "[::1]:3100"}, ""},
		{Options{Address: "localhost:3100"}, ""},
		{Options{Address: "0.0.0.0:3100"}, "not a loopback address"},
		{Options{Address: ":3100"}, "not a loopback address"},
		{Options{Address: "0.0.0.0:3100", InClusterAuth: true}, ""},
		{Options{Address: "3100"}, "want HOST:PORT"},
	} {
		err := tc.o.Validate()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.err)
		}
	}
}
