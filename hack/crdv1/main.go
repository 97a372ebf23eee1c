// Command crdv1 prints CustomResourceDefinitions written for the removed
// apiextensions.k8s.io/v1beta1 API (the SMI project's TrafficSplit CRD is
// only published that way) converted to apiextensions.k8s.io/v1 with the
// API server's own conversion functions, so current clusters accept them.
//
//	go run ./hack/crdv1 split.yaml | kubectl apply -f -
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "crdv1:", err)
		os.Exit(1)
	}
}

func run(files []string, out io.Writer) error {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiextensions.AddToScheme, apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var old apiextensionsv1beta1.CustomResourceDefinition
			if err := dec.Decode(&old); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			if old.Name == "" {
				continue
			}
			scheme.Default(&old)
			var internal apiextensions.CustomResourceDefinition
			if err := scheme.Convert(&old, &internal, nil); err != nil {
				return fmt.Errorf("%s: %s: %w", f, old.Name, err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := scheme.Convert(&internal, &crd, nil); err != nil {
				return fmt.Errorf("%s: %s: %w", f, old.Name, err)
			}
			structural(&crd)
			crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
			crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
			b, err := yaml.Marshal(&crd)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(out, "---\n%s", b); err != nil {
				return err
			}
		}
	}
	return nil
}

// structural makes what v1beta1 allowed and v1 requires explicit: a typed
// root, and unknown fields kept there instead of spec.preserveUnknownFields.
func structural(crd *apiextensionsv1.CustomResourceDefinition) {
	keep := crd.Spec.PreserveUnknownFields
	crd.Spec.PreserveUnknownFields = false
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			v.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{}}
		}
		root := v.Schema.OpenAPIV3Schema
		if root.Type == "" {
			root.Type = "object"
		}
		if keep {
			root.XPreserveUnknownFields = &keep
		}
	}
}
