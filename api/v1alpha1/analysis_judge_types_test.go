package v1alpha1

import (
	"encoding/json"
	"testing"
)

// TestDecimalJSON: a Decimal is written as a JSON number and reads a number
// or a string holding one, keeping its exact text.
func TestDecimalJSON(t *testing.T) {
	var q JudgeQuery
	if err := json.Unmarshal([]byte(`{"name":"a","query":"q","effectSize":0.10}`), &q); err != nil {
		t.Fatal(err)
	}
	if q.EffectSize != "0.10" {
		t.Fatalf("effectSize = %q, want 0.10", q.EffectSize)
	}
	out, err := json.Marshal(q)
	if err != nil || string(out) != `{"name":"a","query":"q","effectSize":0.10}` {
		t.Fatalf("marshal = %s, %v", out, err)
	}
	var d Decimal
	if err := json.Unmarshal([]byte(`"0.95"`), &d); err != nil || d != "0.95" {
		t.Fatalf("string form: %q, %v", d, err)
	}
	if err := json.Unmarshal([]byte(`true`), &d); err == nil {
		t.Fatal("a boolean was read as a decimal")
	}
	if f, err := Decimal("0.95").Float(); err != nil || f != 0.95 {
		t.Fatalf("Float = %v, %v", f, err)
	}
	if _, err := Decimal("{{args.x}}").Float(); err == nil {
		t.Fatal("a placeholder parsed as a number")
	}
	if out, _ := json.Marshal(Decimal("x")); string(out) != `"x"` {
		t.Fatalf("non-number marshals as %s, want a string", out)
	}
}

// TestDecimalFloatRefusesNonFinite: NaN, infinities, hex floats, digit
// separators and numbers out of float64's range are errors (ParseFloat
// alone accepts all but the last, and a NaN confidence or effect size
// would make every comparison with it false); "-0" and exponents parse.
func TestDecimalFloatRefusesNonFinite(t *testing.T) {
	for _, bad := range []Decimal{"NaN", "nan", "Inf", "+Inf", "-infinity", "0x1p-2", "1_000", "1e400", "-1e400", "1e", ".", "0.9 ", ""} {
		if f, err := bad.Float(); err == nil {
			t.Errorf("Decimal(%q).Float() = %v, want an error", bad, f)
		}
	}
	for text, want := range map[Decimal]float64{"-0": 0, "0.95": 0.95, ".5": 0.5, "5.": 5, "1e-3": 0.001, "+2E2": 200} {
		if f, err := text.Float(); err != nil || f != want {
			t.Errorf("Decimal(%q).Float() = %v, %v, want %v", text, f, err, want)
		}
	}
}
