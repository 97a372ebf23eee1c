package analysis

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/expr-lang/expr"
)

// helpers are the functions a condition may call besides expr's builtins,
// with the names and meaning Argo Rollouts gives them:
//
//	asInt(v)            v as an int64: numbers are truncated, strings parsed
//	asFloat(v)          v as a float64: numbers converted, strings parsed
//	isNaN(v), isInf(v)  whether a number is NaN / ±Inf (false for integers)
//	isNil(v)            whether v is nil (also a nil map, slice or pointer)
//	default(v, d)       d when v is nil, else v
//
// A value they cannot handle is an evaluation error, never a panic. Ramp's
// isNil and default test their argument; upstream's test "result" whatever
// the argument, which gives the same answer for the documented uses
// (isNil(result), default(result, 0)).
var helpers = []expr.Option{
	expr.Function("asInt", func(p ...any) (any, error) { return asInt(p[0]) }, new(func(any) int64)),
	expr.Function("asFloat", func(p ...any) (any, error) { return asFloat(p[0]) }, new(func(any) float64)),
	expr.Function("isNaN", func(p ...any) (any, error) {
		return floatTest("isNaN", p[0], math.IsNaN)
	}, new(func(any) bool)),
	expr.Function("isInf", func(p ...any) (any, error) {
		return floatTest("isInf", p[0], func(f float64) bool { return math.IsInf(f, 0) })
	}, new(func(any) bool)),
	expr.Function("isNil", func(p ...any) (any, error) { return isNil(p[0]), nil }, new(func(any) bool)),
	expr.Function("default", func(p ...any) (any, error) {
		if isNil(p[0]) {
			return p[1], nil
		}
		return deref(p[0]), nil
	}, new(func(any, any) any)),
}

func asInt(v any) (int64, error) {
	switch n := deref(v).(type) {
	case string:
		i, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("asInt: %w", err)
		}
		return i, nil
	case float64:
		return int64(n), nil
	case float32:
		return int64(n), nil
	default:
		rv := reflect.ValueOf(n)
		switch {
		case rv.CanInt():
			return rv.Int(), nil
		case rv.CanUint():
			return int64(rv.Uint()), nil
		}
	}
	return 0, fmt.Errorf("asInt: cannot convert %T to an integer", v)
}

func asFloat(v any) (float64, error) {
	switch n := deref(v).(type) {
	case string:
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return 0, fmt.Errorf("asFloat: %w", err)
		}
		return f, nil
	default:
		rv := reflect.ValueOf(n)
		switch {
		case rv.CanFloat():
			return rv.Float(), nil
		case rv.CanInt():
			return float64(rv.Int()), nil
		case rv.CanUint():
			return float64(rv.Uint()), nil
		}
	}
	return 0, fmt.Errorf("asFloat: cannot convert %T to a number", v)
}

// floatTest applies test to a floating-point number; integers are never
// NaN or infinite; anything else is an error.
func floatTest(name string, v any, test func(float64) bool) (bool, error) {
	rv := reflect.ValueOf(deref(v))
	switch {
	case rv.CanFloat():
		return test(rv.Float()), nil
	case rv.CanInt(), rv.CanUint():
		return false, nil
	}
	return false, fmt.Errorf("%s: %T is not a number", name, v)
}

// isNil reports whether v is nil or a nil pointer, map, slice, channel,
// function or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
