package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TestCRDNames: the wait list is every CRD-served kind of this build's
// routers (Ingress is built in).
func TestCRDNames(t *testing.T) {
	want := []string{
		"destinationrules.networking.istio.io",
		"httproutes.gateway.networking.k8s.io",
		"trafficsplits.split.smi-spec.io",
		"virtualservices.networking.istio.io",
	}
	if got := crdNames(traffic.Definitions()); !slices.Equal(got, want) {
		t.Errorf("crdNames = %v, want %v", got, want)
	}
}

// TestWriteCRDs: v1 documents are copied as they are, comment-only ones
// dropped, v1beta1 ones converted to v1 with a structural root.
func TestWriteCRDs(t *testing.T) {
	const v1 = `# a header comment
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
`
	const old = `---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: splits.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Split, plural: splits, singular: split, listKind: SplitList}
  version: v1alpha1
  versions:
  - {name: v1alpha1, served: true, storage: true}
`
	file := filepath.Join(t.TempDir(), "crds.yaml")
	if err := os.WriteFile(file, []byte(v1+old), 0o600); err != nil {
		t.Fatal(err)
	}
	scheme, err := crdScheme()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeCRDs(scheme, file, &out); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out.String(), "---\n")
	if len(docs) != 3 || docs[0] != "" {
		t.Fatalf("want two documents, each after ---, got:\n%s", out.String())
	}
	if want := strings.TrimPrefix(v1, "# a header comment\n---\n"); docs[1] != want {
		t.Errorf("v1 document changed:\n%s\nwant:\n%s", docs[1], want)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &crd); err != nil {
		t.Fatal(err)
	}
	if crd.APIVersion != "apiextensions.k8s.io/v1" || crd.Name != "splits.example.com" || len(crd.Spec.Versions) != 1 ||
		crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Type != "object" {
		t.Errorf("converted CRD = %+v", crd)
	}
}
