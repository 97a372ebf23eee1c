package influxdb

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/influxdb/influxdbtest"
)

func TestDecodeCSV(t *testing.T) {
	twoTables := influxdbtest.Table("double", "0.5", "") + influxdbtest.Table("double", "2")
	for _, tc := range []struct {
		name, body string
		want       []any
		err        string
	}{
		{"doubles", influxdbtest.Table("double", "0.005", "NaN", "+Inf"), nil, ""}, // checked below
		{"two tables, an empty cell", twoTables, []any{0.5, nil, 2.0}, ""},
		{"long", influxdbtest.Table("long", "-3"), []any{int64(-3)}, ""},
		{"unsignedLong", influxdbtest.Table("unsignedLong", "18446744073709551615"), []any{uint64(18446744073709551615)}, ""},
		{"boolean", influxdbtest.Table("boolean", "true"), []any{true}, ""},
		{"string", influxdbtest.Table("string", `"a,b"`), []any{"a,b"}, ""},
		{"dateTime", influxdbtest.Table("dateTime:RFC3339", "2026-01-01T00:00:00Z"), []any{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, ""},
		{"duration, as upstream's client", influxdbtest.Table("duration", "1m30s"), []any{90 * time.Second}, ""},
		{"base64Binary as written", influxdbtest.Table("base64Binary", "aGk="), []any{"aGk="}, ""},
		{"unknown datatype", influxdbtest.Table("decimal", "1.5"), nil, `row 5: _value has the unknown datatype "decimal"`},
		{"datatype row too short", "#datatype,string\r\n,result,_value\r\n,,1\r\n", nil, `row 3: _value has the unknown datatype ""`},
		{"dateTime, unknown format", influxdbtest.Table("dateTime:unix", "1"), nil, `unknown datatype "dateTime:unix"`},
		{"default annotation", "#datatype,string,long,double\r\n#group,false,false,false\r\n#default,_result,,7\r\n,result,table,_value\r\n,,0,\r\n", []any{7.0}, ""},
		{"no _value column", "#datatype,string,long,double\r\n#group,false,false,false\r\n#default,_result,,\r\n,result,table,mean\r\n,,0,1\r\n", []any{nil}, ""},
		{"no annotations", ",result,table,_value\r\n,,0,1.5\r\n", []any{"1.5"}, ""},
		{"empty", "", nil, ""},
		{"error table", "#datatype,string,string\r\n#group,true,true\r\n#default,,\r\n,error,reference\r\n,\"panic: runtime error, in query\",897\r\n", nil, "the query failed: panic: runtime error, in query"},
		{"bad double", influxdbtest.Table("double", "x"), nil, `row 5: _value "x" is not a double`},
		{"bad csv", "#datatype,double\r\n,\"_value\r\n", nil, "invalid CSV response"},
		{"short row", "#datatype,string,double\r\n,result,_value\r\n,\r\n", nil, "the row has no column 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeCSV([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil && tc.name == "doubles" {
				if len(got) != 3 || got[0] != 0.005 || got[1] == got[1] || got[2] != got[2] {
					t.Fatalf("got %#v", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestDecodeCSVBounded: an answer with more than provider.MaxValues
// records is an error, whether the records have a _value or not, and
// decoding stops there.
func TestDecodeCSVBounded(t *testing.T) {
	rows := strings.Repeat(",,0,1\n", provider.MaxValues)
	for _, head := range []string{"#datatype,string,long,double\n,result,table,_value\n", ",result,table,mean\n"} {
		if got, err := decodeCSV([]byte(head + rows)); err != nil || len(got) != provider.MaxValues {
			t.Fatalf("%d values: %d, %v", provider.MaxValues, len(got), err)
		}
		_, err := decodeCSV([]byte(head + rows + ",,0,2\n"))
		if want := "the answer has more than 100000 values: aggregate or filter in the query"; err == nil || err.Error() != want {
			t.Fatalf("error %v, want %q", err, want)
		}
	}
}

// FuzzDecodeCSV: no answer panics the decoder, and an error returns no
// values.
func FuzzDecodeCSV(f *testing.F) {
	for _, s := range []string{
		influxdbtest.Table("double", "1", ""), influxdbtest.Table("long", "2") + influxdbtest.Table("boolean", "false"),
		"#datatype,string,string\r\n,error,reference\r\n,boom,1\r\n", ",_value\r\n,1\r\n", "#default,1\r\n", "\"", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		values, err := decodeCSV(body)
		if err != nil && values != nil {
			t.Fatalf("error %v with values %v", err, values)
		}
	})
}
