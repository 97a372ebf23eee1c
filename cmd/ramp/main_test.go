package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{[]string{"/bin/ramp", "version"}, 0, "ramp ", ""},
		{[]string{"/x/kubectl-ramp", "version"}, 0, "kubectl ramp ", ""},
		{[]string{"ramp"}, 2, "", "usage: ramp"},
		{[]string{"ramp", "frobnicate"}, 2, "", `unknown command "frobnicate"`},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
		if !strings.Contains(out.String(), tc.inStdout) || !strings.Contains(errb.String(), tc.inStderr) {
			t.Errorf("%v: stdout %q stderr %q", tc.args, out.String(), errb.String())
		}
	}
}
