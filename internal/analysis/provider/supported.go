package provider

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/registry"
)

// constructors are the registered providers: how to build each, by name.
var constructors = registry.New[func(deps any) (Provider, error)]("metric provider")

// Register makes a provider available under name: the name Name gives the
// metric.provider field it measures ("prometheus"). Call it from the
// provider package's init; an empty name or one registered twice panics,
// as the build itself is wrong.
//
// newProvider's argument type is a type parameter because this package may
// not name a client (lint imports it and stays pure); a provider that needs
// nothing takes any. Build checks the argument's type when the controller
// starts.
func Register[D any, P Provider](name string, newProvider func(D) P) {
	build := func(deps any) (Provider, error) {
		d, ok := deps.(D)
		if !ok && deps != nil {
			return nil, fmt.Errorf("metric provider %q is built with a %v, got %T", name, reflect.TypeFor[D](), deps)
		}
		return newProvider(d), nil
	}
	if err := constructors.Register(name, build); err != nil {
		panic(err)
	}
}

// Build constructs every registered provider with deps (the controller's
// manager) into the registry the AnalysisRun controller looks them up in.
func Build(deps any) (*registry.Registry[Provider], error) {
	reg := NewRegistry()
	for _, name := range constructors.Names() {
		build, err := constructors.Get(name)
		if err != nil {
			return nil, err
		}
		p, err := build(deps)
		if err != nil {
			return nil, err
		}
		if err := reg.Register(name, p); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Supported lists, sorted, the providers this build runs (the registered
// ones): lint, plan and the controller refuse the others with Unsupported's
// words.
func Supported() []string { return constructors.Names() }

// Unsupported is the refusal of a provider this build does not run ("" for
// one it runs).
func Unsupported(name string) string {
	if name == "" {
		return ""
	}
	if _, err := constructors.Get(name); err == nil {
		return ""
	}
	if plugin, ok := strings.CutPrefix(name, "plugin/"); ok {
		return fmt.Sprintf("metric plugin %s is not configured in this controller (metricProviderPlugins of its argo-rollouts-config ConfigMap)", plugin)
	}
	return fmt.Sprintf("provider %s is not supported by this version of Ramp (supported: %s)", name, strings.Join(Supported(), ", "))
}
