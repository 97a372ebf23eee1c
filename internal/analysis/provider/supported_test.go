package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ramp-rollouts/ramp/internal/registry"
)

// emptyRegistry gives the test a registry of its own, restored afterwards.
func emptyRegistry(t *testing.T) {
	saved := constructors
	constructors = registry.New[func(any) (Provider, error)]("metric provider")
	t.Cleanup(func() { constructors = saved })
}

type fakeClient struct{}

type fakeProvider struct{ c *fakeClient }

func (fakeProvider) Measure(context.Context, Request) (Result, error) { return Result{}, nil }

func TestRegisterBuildSupported(t *testing.T) {
	emptyRegistry(t)
	Register("web", func(any) fakeProvider { return fakeProvider{} })
	Register("job", func(c *fakeClient) fakeProvider { return fakeProvider{c: c} })

	if got := Supported(); !slices.Equal(got, []string{"job", "web"}) {
		t.Errorf("Supported = %v, want the registered names, sorted", got)
	}
	if msg := Unsupported("web"); msg != "" {
		t.Errorf("Unsupported(web) = %q", msg)
	}
	if msg := Unsupported(""); msg != "" {
		t.Errorf("Unsupported(\"\") = %q, want nothing (no provider set is another check)", msg)
	}
	if got, want := Unsupported("datadog"), "provider datadog is not supported by this version of Ramp (supported: job, web)"; got != want {
		t.Errorf("Unsupported(datadog) = %q, want %q", got, want)
	}
	if got := Unsupported("plugin/argoproj/sample"); !strings.Contains(got, "metric plugin argoproj/sample is not configured in this controller") {
		t.Errorf("Unsupported(plugin/argoproj/sample) = %q, want it to say the plugin is not configured", got)
	}

	c := &fakeClient{}
	reg, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := reg.Get("job"); err != nil || p.(fakeProvider).c != c {
		t.Errorf("job built as %v (%v), want it on the deps given to Build", p, err)
	}
	if _, err := reg.Get("datadog"); err == nil {
		t.Error("Get(datadog): no error")
	}
	if _, err := Build(42); err == nil || !strings.Contains(err.Error(), `metric provider "job" is built with a *provider.fakeClient, got int`) {
		t.Errorf("Build with the wrong argument: error %v", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	emptyRegistry(t)
	Register("web", func(any) fakeProvider { return fakeProvider{} })
	defer func() {
		if err, ok := recover().(error); !ok || !strings.Contains(err.Error(), `metric provider "web" registered twice`) {
			t.Errorf("second Register: panic %v", err)
		}
	}()
	Register("web", func(any) fakeProvider { return fakeProvider{} })
}
