package main

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// v1beta1 is the CRD API that current API servers no longer serve; the SMI
// project publishes its TrafficSplit CRD only in it.
const v1beta1 = "apiextensions.k8s.io/v1beta1"

// crdScheme converts CRDs between their versions.
func crdScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiextensions.AddToScheme, apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// toV1 converts one apiextensions.k8s.io/v1beta1 CustomResourceDefinition
// (YAML) to apiextensions.k8s.io/v1 with the API server's own conversion
// functions, so current clusters accept it.
func toV1(scheme *runtime.Scheme, doc []byte) ([]byte, error) {
	var old apiextensionsv1beta1.CustomResourceDefinition
	if err := yaml.Unmarshal(doc, &old); err != nil {
		return nil, err
	}
	scheme.Default(&old)
	var internal apiextensions.CustomResourceDefinition
	if err := scheme.Convert(&old, &internal, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", old.Name, err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := scheme.Convert(&internal, &crd, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", old.Name, err)
	}
	structural(&crd)
	crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	return yaml.Marshal(&crd)
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
