package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianRun runs ensure_debian (hack/debian.sh) with args in a shell like
// hack/test.sh's (set -euo pipefail), as root, with fake apt-get and id
// first on PATH and the policy-rc.d at policy. The fake apt-get logs each
// call with DEBIAN_FRONTEND and the policy's content at that moment to
// log, then runs the shell code in the environment variable APT_DOES.
func debianRun(t *testing.T, dir, policy, aptDoes string, args ...string) (string, error) {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fakes := map[string]string{
		"id": "#!/bin/sh\necho 0\n",
		"apt-get": `#!/bin/sh
echo "apt-get $* frontend=${DEBIAN_FRONTEND:-} policy=$(cat "$RAMP_POLICY_RC_D" 2>/dev/null | tail -1)" >>"$LOG"
eval "$APT_DOES"
`,
	}
	for name, text := range fakes {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "apt.log")
	script := `set -euo pipefail; source "$1"; shift; for a in "$@"; do ensure_debian $a; done`
	cmd := exec.Command("bash", append([]string{"-c", script, "bash", filepath.Join(repo, "hack/debian.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "RAMP_POLICY_RC_D="+policy, "LOG="+log, "APT_DOES="+aptDoes)
	out, err := cmd.CombinedOutput()
	calls, _ := os.ReadFile(log)
	_ = os.Remove(log)
	t.Logf("output:\n%s", out)
	return string(calls), err
}

// TestEnsureDebian: apt-get update runs once, before the installs, which
// are non-interactive, keep existing configuration files and run while a
// policy-rc.d forbids starting daemons; the administrator's own policy is
// back afterwards; a command already on PATH installs nothing.
func TestEnsureDebian(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy-rc.d")
	const own = "#!/bin/sh\nexit 0 # the administrator's\n"
	if err := os.WriteFile(policy, []byte(own), 0o755); err != nil {
		t.Fatal(err)
	}
	calls, err := debianRun(t, dir, policy, "", "ramp-absent-a pkg-a", "ramp-absent-b pkg-b1 pkg-b2", "sh shell")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(calls), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], " update ") {
		t.Fatalf("apt-get calls:\n%s\nwant one update, then two installs", calls)
	}
	for _, l := range lines {
		if !strings.Contains(l, "DPkg::Lock::Timeout=") || !strings.HasSuffix(l, "policy=exit 101") {
			t.Errorf("call %q: want a dpkg lock wait, under a policy-rc.d that exits 101", l)
		}
	}
	for i, pkgs := range []string{"pkg-a", "pkg-b1 pkg-b2"} {
		l := lines[i+1]
		if !strings.Contains(l, " install -y --no-install-recommends ") || !strings.Contains(l, "--force-confold "+pkgs+" frontend=noninteractive") {
			t.Errorf("install call %q: want non-interactive, no recommends, confold, %s", l, pkgs)
		}
	}
	if b, err := os.ReadFile(policy); err != nil || string(b) != own {
		t.Errorf("policy-rc.d after the installs: %q, %v; want the administrator's back", b, err)
	}
}

// TestEnsureDebianInterrupted: an install killed half way (the script gets
// SIGTERM) or failing leaves no policy-rc.d of its own behind, the
// administrator's is back, and a policy an earlier killed run set aside is
// put back rather than overwritten.
func TestEnsureDebianInterrupted(t *testing.T) {
	// the install is interrupted: the script gets SIGTERM, apt-get gives up
	const killAtInstall = `case "$*" in *" install "*) kill -TERM $PPID; exit 1; esac`
	const own = "#!/bin/sh\nexit 0 # the administrator's\n"
	for name, tc := range map[string]struct {
		aptDoes string
		stale   bool // an earlier run was killed before it could put the policy back
		none    bool // no policy of the administrator's
	}{
		"killed":                   {aptDoes: killAtInstall},
		"failed":                   {aptDoes: `case "$*" in *" install "*) exit 100; esac`},
		"earlier run killed":       {stale: true},
		"killed, no policy of its": {aptDoes: killAtInstall, none: true},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			policy := filepath.Join(dir, "policy-rc.d")
			switch {
			case tc.stale:
				if err := os.WriteFile(policy+".ramp-saved", []byte(own), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(policy, []byte("#!/bin/sh\nexit 101\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			case !tc.none:
				if err := os.WriteFile(policy, []byte(own), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			_, err := debianRun(t, dir, policy, tc.aptDoes, "ramp-absent pkg")
			if tc.aptDoes != "" && err == nil {
				t.Error("the run succeeded")
			}
			b, err := os.ReadFile(policy)
			switch {
			case tc.none && !os.IsNotExist(err):
				t.Errorf("policy-rc.d left behind: %q, %v", b, err)
			case !tc.none && string(b) != own:
				t.Errorf("policy-rc.d: %q, %v; want the administrator's", b, err)
			}
			if _, err := os.Stat(policy + ".ramp-saved"); !os.IsNotExist(err) {
				t.Errorf("a set-aside policy is left: %v", err)
			}
		})
	}
}
