package traffic

import (
	"errors"
	"fmt"
)

// ConfigError is a problem with the routing configuration or the route
// objects that retrying cannot fix (a missing HTTPRoute, a route without the
// canary Service, a CRD that is not installed). The controller reports it
// as InvalidSpec on the Rollout and changes nothing; other errors are
// retried.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Misconfigured returns a ConfigError with a formatted message.
func Misconfigured(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// IsConfigError reports whether err is (or wraps) a ConfigError.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
