package dashboard

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
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

// TestPreflightNamesTheKind: an identity that may not list a watched kind
// is refused at start with the kind's name.
func TestPreflightNamesTheKind(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, o ...client.ListOption) error {
			if _, ok := list.(*corev1.PodList); ok {
				return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
			}
			return cl.List(ctx, list, o...)
		},
	}).Build()
	if err := preflight(t.Context(), c); err == nil || !strings.Contains(err.Error(), "lists and watches pods in every namespace") {
		t.Errorf("preflight = %v", err)
	}
	if err := preflight(t.Context(), fakeClient(t, &recorder{}, nil)); err != nil {
		t.Errorf("preflight with every right = %v", err)
	}
}
