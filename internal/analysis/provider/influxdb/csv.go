package influxdb

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// table is the schema of the annotated CSV table being read.
type table struct {
	types, defaults []string // by column; the first column is the annotation's name
	header          []string
	value           int // index of the _value column, -1 if none
	errorCol        int // index of the error column of an error table, -1 if not one
}

// decodeCSV reads InfluxDB's annotated CSV answer to a Flux query and
// returns the _value of every record of every table, in order, typed by
// the #datatype annotation (nil for a record without _value, as upstream).
// An error table (columns error, reference: a query that failed after the
// answer began) is an error carrying its message.
func decodeCSV(body []byte) ([]any, error) {
	rd := csv.NewReader(bytes.NewReader(body))
	rd.FieldsPerRecord = -1
	rd.ReuseRecord = false
	var (
		values []any
		t      *table
	)
	for line := 1; ; line++ {
		row, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return values, nil
		}
		if err != nil {
			return nil, fmt.Errorf("invalid CSV response: %w", err)
		}
		switch {
		case row[0] == "#datatype":
			t = &table{types: row}
		case row[0] == "#default" && t != nil:
			t.defaults = row
		case strings.HasPrefix(row[0], "#"): // #group, or a comment
		case t == nil || t.header == nil:
			if t == nil {
				t = &table{}
			}
			t.header = row
			t.value, t.errorCol = slices.Index(row, "_value"), slices.Index(row, "error")
			if !slices.Contains(row, "reference") {
				t.errorCol = -1
			}
		case t.errorCol >= 0:
			if t.errorCol < len(row) {
				return nil, fmt.Errorf("the query failed: %s", httpfetch.Excerpt(row[t.errorCol]))
			}
			return nil, errors.New("the query failed")
		case len(values) == provider.MaxValues:
			return nil, tooMany()
		case t.value < 0:
			values = append(values, nil)
		default:
			v, err := t.cell(row, t.value)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", line, err)
			}
			values = append(values, v)
		}
	}
}

// cell is the value of column i of row, typed as the table says; an empty
// cell is the column's default, else nil.
func (t *table) cell(row []string, i int) (any, error) {
	if i >= len(row) {
		return nil, fmt.Errorf("the row has no column %d", i)
	}
	s := row[i]
	if s == "" && i < len(t.defaults) {
		s = t.defaults[i]
	}
	if s == "" {
		return nil, nil
	}
	typ := "string" // a table without a #datatype annotation
	if t.types != nil {
		typ = "" // a #datatype row shorter than the header: no type
		if i < len(t.types) {
			typ = t.types[i]
		}
	}
	var (
		v   any
		err error
	)
	switch typ {
	case "double":
		v, err = strconv.ParseFloat(s, 64)
	case "long":
		v, err = strconv.ParseInt(s, 10, 64)
	case "unsignedLong":
		v, err = strconv.ParseUint(s, 10, 64)
	case "boolean":
		v, err = strconv.ParseBool(s)
	case "dateTime:RFC3339", "dateTime:RFC3339Nano":
		v, err = time.Parse(time.RFC3339Nano, s)
	case "duration":
		v, err = time.ParseDuration(s)
	case "string", "base64Binary": // base64Binary as written: see docs/conformance.md
		v = s
	default:
		return nil, fmt.Errorf("_value has the unknown datatype %.40q", typ)
	}
	if err != nil {
		return nil, fmt.Errorf("_value %.40q is not a %s", s, typ)
	}
	return v, nil
}

// tooMany is the error of an answer with more than provider.MaxValues
// values.
func tooMany() error {
	return fmt.Errorf("the answer has more than %d values: aggregate or filter in the query", provider.MaxValues)
}
