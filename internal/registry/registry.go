// Package registry is a name -> implementation map for Ramp's extension
// points (metric providers, traffic routers), in the style of caddy's
// modules: implementations register by name once, and looking up an unknown
// name is an error that lists what is available, never a silent default.
package registry

import (
	"fmt"
	"sort"
	"sync"
)

// Registry holds implementations of T by name. The zero value is not usable;
// call New.
type Registry[T any] struct {
	kind  string // what is registered, for error messages: "metric provider"
	mu    sync.RWMutex
	items map[string]T
}

// New returns an empty registry; kind names its items in error messages.
func New[T any](kind string) *Registry[T] {
	return &Registry[T]{kind: kind, items: map[string]T{}}
}

// Register adds impl under name; an empty or duplicate name is an error.
func (r *Registry[T]) Register(name string, impl T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" {
		return fmt.Errorf("%s registered without a name", r.kind)
	}
	if _, dup := r.items[name]; dup {
		return fmt.Errorf("%s %q registered twice", r.kind, name)
	}
	r.items[name] = impl
	return nil
}

// Get returns the implementation registered under name.
func (r *Registry[T]) Get(name string) (T, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if impl, ok := r.items[name]; ok {
		return impl, nil
	}
	var zero T
	return zero, fmt.Errorf("unknown %s %q (available: %v)", r.kind, name, r.namesLocked())
}

// Names lists the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

func (r *Registry[T]) namesLocked() []string {
	names := make([]string, 0, len(r.items))
	for n := range r.items {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
