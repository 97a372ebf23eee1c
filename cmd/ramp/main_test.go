package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ramp-rollouts/ramp/internal/cli"
)

func TestMain_Version(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{[]string{"/bin/ramp", "version"}, 0, "ramp ", ""},
		{[]string{"/x/kubectl-ramp", "version"}, 0, "kubectl ramp ", ""},
		{[]string{"ramp", "frobnicate"}, 1, "", `unknown command "frobnicate"`},
	} {
		var out, errb bytes.Buffer
		if code := cli.Main(tc.args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}); code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errb.String())
		}
		if !strings.Contains(out.String(), tc.inStdout) || !strings.Contains(errb.String(), tc.inStderr) {
			t.Errorf("%v: stdout %q stderr %q", tc.args, out.String(), errb.String())
		}
	}
}
