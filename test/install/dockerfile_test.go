package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const repo = "../.."

// instruction is one Dockerfile instruction, its continuation lines joined.
type instruction struct {
	cmd, args string
}

// parseDockerfile reads the instructions of a Dockerfile, by stage (each
// FROM starts one).
func parseDockerfile(t *testing.T, file string) [][]instruction {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]instruction
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") || (l == "" && line == "") {
			continue
		}
		if cont, ok := strings.CutSuffix(l, `\`); ok {
			line += cont + " "
			continue
		}
		line += l
		cmd, args, _ := strings.Cut(line, " ")
		line = ""
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			t.Fatalf("%s: %s before the first FROM", file, in.cmd)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	return stages
}

// TestDockerfile: the image runs the controller as a non-root numeric user
// from a static binary on a distroless or empty base, built with the
// version injected; every path the build copies exists in the context and
// is not excluded by .dockerignore, and so is every Go file the controller
// is built from.
func TestDockerfile(t *testing.T) {
	checkDockerfile(t, "Dockerfile", "/ramp-controller", "./cmd/ramp-controller")
}

// TestDashboardDockerfile: the dashboard's image (Dockerfile.dashboard) is
// built the same way from ./cmd/ramp, with the web page bundled by esbuild
// in a Node.js stage (npm ci of the lock file, the type check) and copied
// where go:embed takes it; the entrypoint is the one
// config/dashboard/deployment.yaml runs.
func TestDashboardDockerfile(t *testing.T) {
	stages := checkDockerfile(t, "Dockerfile.dashboard", "/ramp", "./cmd/ramp")
	var all strings.Builder
	for _, st := range stages {
		for _, in := range st {
			all.WriteString(in.cmd + " " + in.args + "\n")
		}
	}
	for _, want := range []string{"npm ci", "web/package-lock.json", "tsc -p", "esbuild src/main.ts", "--from=web", "internal/dashboard/assets"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("Dockerfile.dashboard does not say %q", want)
		}
	}
	deploy, err := os.ReadFile(filepath.Join(repo, "config/dashboard/deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(deploy), "command: [/ramp]") || !strings.Contains(string(deploy), "dashboard") {
		t.Errorf("config/dashboard/deployment.yaml does not run /ramp dashboard, the image's entrypoint")
	}
}

// checkDockerfile checks what TestDockerfile says of the image built by
// file, whose entrypoint is entry and whose binary is built from pkg, and
// returns its stages.
func checkDockerfile(t *testing.T, file, entry, pkg string) [][]instruction {
	t.Helper()
	stages := parseDockerfile(t, filepath.Join(repo, file))
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, got %d stage(s)", len(stages))
	}
	final := stages[len(stages)-1]
	if base := final[0].args; !strings.HasPrefix(base, "gcr.io/distroless/static") && base != "scratch" {
		t.Errorf("final stage FROM %s, want distroless static or scratch", base)
	}
	var user, entrypoint string
	for _, in := range final {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entrypoint = in.args
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("final stage USER %q, want a numeric non-root uid", user)
	}
	var ep []string
	if err := json.Unmarshal([]byte(entrypoint), &ep); err != nil || len(ep) != 1 || ep[0] != entry {
		t.Errorf("%s: ENTRYPOINT %s, want [%q] in exec form", file, entrypoint, entry)
	}

	var build strings.Builder
	for _, st := range stages[:len(stages)-1] {
		for _, in := range st {
			build.WriteString(in.cmd + " " + in.args + "\n")
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "internal/buildinfo.version=", "internal/buildinfo.commit=", pkg} {
		if !strings.Contains(build.String(), want) {
			t.Errorf("%s: the build stage does not say %q", file, want)
		}
	}

	ignore := readDockerignore(t)
	var copied []string
	for _, st := range stages {
		for _, in := range st {
			if in.cmd != "COPY" || strings.Contains(in.args, "--from=") {
				continue
			}
			f := strings.Fields(in.args)
			for _, src := range f[:len(f)-1] {
				src = strings.TrimSuffix(path.Clean(src), "/")
				if _, err := os.Stat(filepath.Join(repo, src)); err != nil {
					t.Errorf("COPY %s: not in the build context: %v", src, err)
				}
				if excluded(ignore, src) {
					t.Errorf("COPY %s: excluded by .dockerignore", src)
				}
				copied = append(copied, src)
			}
		}
	}
	for _, f := range goSources(t, pkg) {
		if excluded(ignore, f) || !under(copied, f) {
			t.Errorf("%s: %s is built from it but the image build does not copy it", f, pkg)
		}
	}
	return stages
}

// goSources are the module's files pkg is built from, relative to the
// repository.
func goSources(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{if and .Module .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}`,
		pkg)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"go.mod", "go.sum"}
	for _, l := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, l)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	if len(files) < 10 {
		t.Fatalf("go list found only %v", files)
	}
	return files
}

func under(dirs []string, f string) bool {
	for _, d := range dirs {
		if f == d || strings.HasPrefix(f, d+"/") {
			return true
		}
	}
	return false
}

func readDockerignore(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var pats []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			pats = append(pats, path.Clean(strings.TrimPrefix(l, "/")))
		}
	}
	return pats
}

// excluded says whether .dockerignore's patterns exclude p or one of its
// parents; as in Docker, the last matching pattern wins and "!" re-includes.
func excluded(pats []string, p string) bool {
	parts := strings.Split(p, "/")
	out := false
	for _, pat := range pats {
		neg := strings.HasPrefix(pat, "!")
		pat = strings.TrimPrefix(pat, "!")
		for i := 1; i <= len(parts); i++ {
			if matchSegments(strings.Split(pat, "/"), parts[:i]) {
				out = !neg
				break
			}
		}
	}
	return out
}

// matchSegments matches path segments against pattern segments, "**"
// standing for any number of segments.
func matchSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], segs[0])
	return err == nil && ok && matchSegments(pat[1:], segs[1:])
}

// TestDockerignoreMatch pins the matcher the build-context check relies on.
func TestDockerignoreMatch(t *testing.T) {
	pats := []string{"bin", "**/*_test.go", "docs", "!docs/keep.md", ".ramp-*"}
	for p, want := range map[string]bool{
		"bin": true, "bin/ramp": true, "cmd/main.go": false, "cmd/main_test.go": true,
		"internal/a/b_test.go": true, "docs/x.md": true, "docs/keep.md": false, ".ramp-dev/x": true, "api/v1alpha1/types.go": false,
	} {
		if got := excluded(pats, p); got != want {
			t.Errorf("excluded(%s) = %v, want %v", p, got, want)
		}
	}
}
