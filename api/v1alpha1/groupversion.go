package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version served by Ramp.
var GroupVersion = schema.GroupVersion{Group: "argoproj.io", Version: "v1alpha1"}

// known holds the kinds each types file registers from its init.
var known []runtime.Object

func register(objs ...runtime.Object) { known = append(known, objs...) }

// AddToScheme registers the five kinds with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, known...)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
