// Command routers prints what the local control plane needs for the traffic
// routers of this build, read from their definitions
// (internal/traffic/<name>/definition.go), so hack/up.sh names no router:
//
//	routers crds       the CustomResourceDefinitions of the routers' kinds,
//	                   as one YAML stream (kubectl apply -f -): the files each
//	                   definition names in its pinned Go module (fetched with
//	                   `go mod download`: the module proxy and the checksum
//	                   database), apiextensions.k8s.io/v1beta1 ones converted
//	                   to v1
//	routers crd-names  crd/<resource>.<group> for each router kind served by
//	                   a CRD (kubectl wait --for=condition=Established)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	_ "github.com/ramp-rollouts/ramp/internal/builtin"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "routers:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: routers crds|crd-names")
	}
	switch args[0] {
	case "crd-names":
		for _, name := range crdNames(traffic.Definitions()) {
			if _, err := fmt.Fprintln(out, "crd/"+name); err != nil {
				return err
			}
		}
		return nil
	case "crds":
		return crds(traffic.Definitions(), out)
	}
	return fmt.Errorf("unknown command %q: usage: routers crds|crd-names", args[0])
}

// crdNames are the CRDs serving the kinds of routers that name CRDs, each
// once, sorted.
func crdNames(defs []traffic.Definition) []string {
	var names []string
	for _, d := range defs {
		if d.CRDs == nil {
			continue // built into Kubernetes (Ingress)
		}
		for _, k := range d.Kinds {
			if !slices.Contains(names, k.CRD()) {
				names = append(names, k.CRD())
			}
		}
	}
	slices.Sort(names)
	return names
}

// crds writes every CRD file the definitions name, each module and file
// once, as one YAML stream.
func crds(defs []traffic.Definition, out io.Writer) error {
	scheme, err := crdScheme()
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, d := range defs {
		if d.CRDs == nil {
			continue
		}
		dir, err := moduleDir(d.CRDs.Module)
		if err != nil {
			return fmt.Errorf("router %s: %w", d.Name, err)
		}
		for _, f := range d.CRDs.Files {
			path := filepath.Join(dir, f)
			if done[path] {
				continue
			}
			done[path] = true
			if err := writeCRDs(scheme, path, out); err != nil {
				return fmt.Errorf("router %s: %w", d.Name, err)
			}
		}
	}
	return nil
}

// moduleDir downloads module ("path@version") into the module cache, if it
// is not there yet, and returns its directory.
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, m.Error)
	}
	return m.Dir, nil
}

// writeCRDs copies the YAML documents of file to out, converting
// apiextensions.k8s.io/v1beta1 CRDs to v1 and dropping empty documents.
func writeCRDs(scheme *runtime.Scheme, file string, out io.Writer) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if tm.Kind == "" {
			continue // comments only
		}
		if tm.APIVersion == v1beta1 {
			if doc, err = toV1(scheme, doc); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
		if _, err := fmt.Fprintf(out, "---\n%s", bytes.TrimPrefix(doc, []byte("---\n"))); err != nil {
			return err
		}
	}
}
