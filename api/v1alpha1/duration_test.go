package v1alpha1

import (
	"math"
	"math/big"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestSaturatingSeconds(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want time.Duration
	}{
		{0, 0},
		{1, time.Second},
		{-1, -time.Second},
		{math.MaxInt32, math.MaxInt32 * time.Second}, // about 68 years: exact
		{math.MinInt32, math.MinInt32 * time.Second},
		{9223372036, 9223372036 * time.Second}, // the last whole second below MaxDuration
		{9223372037, MaxDuration},              // wraps negative when multiplied
		{math.MaxInt64, MaxDuration},
		{-9223372037, -MaxDuration},
		{math.MinInt64, -MaxDuration},
	} {
		if got := SaturatingSeconds(c.in); got != c.want {
			t.Errorf("SaturatingSeconds(%d) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestSaturatingAdd(t *testing.T) {
	for _, c := range []struct{ a, b, want time.Duration }{
		{0, 0, 0},
		{time.Second, 20 * time.Millisecond, 1020 * time.Millisecond},
		{MaxDuration, 20 * time.Millisecond, MaxDuration},
		{MaxDuration - time.Millisecond, 20 * time.Millisecond, MaxDuration},
		{20 * time.Millisecond, MaxDuration, MaxDuration},
		{MaxDuration, MaxDuration, MaxDuration},
		{MaxDuration, -time.Second, MaxDuration - time.Second},
		{-MaxDuration, -time.Second, -MaxDuration},
		{math.MinInt64, -1, -MaxDuration},
		{-time.Second, time.Second, 0},
	} {
		if got := SaturatingAdd(c.a, c.b); got != c.want {
			t.Errorf("SaturatingAdd(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"", 0, ""},
		{"0", 0, ""}, // Go's syntax: a bare 0 is the only number without a unit
		{"0s", 0, ""},
		{"-1s", -time.Second, ""}, // parsed; the caller's rule rejects it where it must
		{"90s", 90 * time.Second, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"2562047h47m16.854775807s", MaxDuration, ""},
		{"2562047h47m16.854775808s", 0, `time: invalid duration "2562047h47m16.854775808s"`},
		{"3000000h", 0, `time: invalid duration "3000000h"`},
		{"1e9h", 0, `time: unknown unit "e" in duration "1e9h"`},
		{"9223372037", 0, `time: missing unit in duration "9223372037"`},
		{"10", 0, `time: missing unit in duration "10"`},
		{"x", 0, `time: invalid duration "x"`},
	} {
		got, err := ParseDuration(c.in)
		if errString(err) != c.wantErr || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.wantErr)
		}
		if d, derr := DurationString(c.in).Duration(); d != got || errString(derr) != errString(err) {
			t.Errorf("DurationString(%q).Duration() = %v, %v; want ParseDuration's %v, %v", c.in, d, derr, got, err)
		}
	}
}

func TestParseSecondsOrDuration(t *testing.T) {
	for _, c := range []struct {
		in      intstr.IntOrString
		want    time.Duration
		wantErr string
	}{
		{intstr.FromInt32(0), 0, ""},
		{intstr.FromInt32(30), 30 * time.Second, ""},
		{intstr.FromInt32(-5), -5 * time.Second, ""},
		{intstr.FromInt32(math.MaxInt32), math.MaxInt32 * time.Second, ""},
		{intstr.FromString("30"), 30 * time.Second, ""},
		{intstr.FromString("2147483647"), math.MaxInt32 * time.Second, ""},
		// as upstream: digits beyond an int32 of seconds are invalid (it
		// reports such a pause as invalid), so never a short pause
		{intstr.FromString("9223372037"), 0, `strconv.ParseInt: parsing "9223372037": value out of range`},
		{intstr.FromString("30s"), 30 * time.Second, ""},
		{intstr.FromString("-1s"), -time.Second, ""},
		{intstr.FromString("2562047h47m16.84s"), MaxDuration - 14775807, ""},
		{intstr.FromString("1e9h"), 0, `time: unknown unit "e" in duration "1e9h"`},
		{intstr.FromString(""), 0, `time: invalid duration ""`},
	} {
		got, err := ParseSecondsOrDuration(c.in)
		if errString(err) != c.wantErr || got != c.want {
			t.Errorf("ParseSecondsOrDuration(%s) = %v, %v; want %v, %q", c.in.String(), got, err, c.want, c.wantErr)
		}
	}
}

// A time plus a saturated wait saturates too: time.Time.Add never wraps,
// so a deadline of MaxDuration is never before its start.
func TestTimeAddSaturates(t *testing.T) {
	for _, start := range []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Unix(math.MaxInt64/2, 0),
		time.Now(), // with a monotonic reading
	} {
		if end := start.Add(MaxDuration); !end.After(start) {
			t.Errorf("%v + MaxDuration = %v: not after the start", start, end)
		}
		if end := start.Add(SaturatingAdd(MaxDuration, time.Second)); end.Sub(start) <= 0 {
			t.Errorf("%v + saturated sum: Sub = %v", start, end.Sub(start))
		}
	}
}

// FuzzParseDuration: whatever the string or number, parsing never panics
// and never turns a positive value into a shorter or negative wait.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"", "0", "1s", "-1s", "1e9h", "9223372037", "2147483648", "2562047h47m16.854775807s",
		"3000000h", "1.5h", "0.000000001s", ".5s", "1h-1s", "+1s", "1ns1us1ms", "99999999999999999999s", "25%"} {
		f.Add(s, int64(len(s)), int64(0))
	}
	f.Add("", int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add("", int64(math.MinInt64+1), int64(-1))
	f.Fuzz(func(t *testing.T, s string, n, m int64) {
		if d, err := ParseDuration(s); err == nil && d < 0 && s != "" && s[0] != '-' {
			t.Errorf("ParseDuration(%q) = %v: negative without a sign", s, d)
		}
		if d, err := ParseSecondsOrDuration(intstr.FromString(s)); err == nil && d < 0 && s[0] != '-' {
			t.Errorf("ParseSecondsOrDuration(%q) = %v: negative without a sign", s, d)
		}
		if d := SaturatingSeconds(n); (n > 0 && d <= 0) || (n < 0 && d >= 0) || (n == 0 && d != 0) {
			t.Errorf("SaturatingSeconds(%d) = %v: wrong sign", n, d)
		}
		if n == math.MinInt64 || m == math.MinInt64 {
			return // below -MaxDuration already: not a wait any field yields
		}
		exact := new(big.Int).Add(big.NewInt(n), big.NewInt(m))
		want := time.Duration(0)
		switch {
		case exact.Cmp(big.NewInt(math.MaxInt64)) > 0:
			want = MaxDuration
		case exact.Cmp(big.NewInt(-math.MaxInt64)) < 0:
			want = -MaxDuration
		default:
			want = time.Duration(exact.Int64())
		}
		if got := SaturatingAdd(time.Duration(n), time.Duration(m)); got != want {
			t.Errorf("SaturatingAdd(%d, %d) = %d, want %d", n, m, got, want)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
