package ingest

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestEpochAppliesToBoth: --epoch is about numbers, so a column of RFC
// 3339 text beside one of epoch numbers reads as it says, either way
// round; a value neither reads as says that --epoch applies to both
// columns; and epoch columns in two units, which one --epoch cannot read,
// fail naming the column and the unit it fits, whatever --negative says.
func TestEpochAppliesToBoth(t *testing.T) {
	// 2025-12-02T06:00:16Z is 1764655216 s; the settles are 4 s and 40 s
	// later.
	for _, in := range []string{
		"id,created,finished\na,2025-12-02T06:00:16+00:00,1764655220\nb,2025-12-02T06:00:16Z,1764655256\n",
		"id,created,finished\na,1764655216,2025-12-02T06:00:20Z\nb,1764655216,2025-12-02 06:00:56\n",
	} {
		s, _, err := ReadCSV(strings.NewReader(in), "x.csv", ReadOptions{Start: "created", End: "finished", Epoch: Second})
		if err != nil || len(s.Times) != 2 || s.Times[0] != 4 || s.Times[1] != 40 {
			t.Errorf("ReadCSV(%q, --epoch s) = %v, %v; want [4 40]", in, s, err)
		}
	}
	_, _, err := ReadCSV(strings.NewReader("a,b\nyesterday,1764655220\n"), "x.csv", ReadOptions{Start: "a", End: "b", Epoch: Second})
	if want := `x.csv: row 2, column "a": bad timestamp: want epoch seconds (--epoch s applies to --start and --end alike) or RFC 3339 like 2006-01-02T15:04:05Z, found "yesterday"`; err == nil || err.Error() != want {
		t.Errorf("neither: %v\nwant %s", err, want)
	}
	// Start in ms, end in s, read as ms: the end is 1970-01-21.
	for _, neg := range []Negative{NegativeError, NegativeDrop, NegativeZero} {
		_, _, err := ReadCSV(strings.NewReader("a,b\n1764655216000,1764655220\n"), "x.csv", ReadOptions{Start: "a", End: "b", Epoch: Millisecond, Negative: neg})
		want := `x.csv: row 2, column "b": bad timestamp: the end 1970-01-21T10:10:55.22Z is before the start 2025-12-02T06:00:16Z, and column "b" read as epoch ms is in 1970 (it fits epoch s): --epoch applies to --start and --end alike, so the two columns must be in one unit; convert one`
		if !errors.Is(err, ErrBadTimestamp) || err.Error() != want {
			t.Errorf("units mixed, --negative %v: %v\nwant %s", neg, err, want)
		}
	}
}

// TestParquetSecondsOverflow: Parquet duration[s] and
// timestamp[s] values whose nanoseconds overflow an int64 came out as
// under a second; they are ErrOutOfRange naming row group and row, on the
// fast path (a duration column alone) and the general one.
func TestParquetSecondsOverflow(t *testing.T) {
	dir := t.TempDir()
	dur := filepath.Join(dir, "dur.parquet")
	// 10¹⁰ s is 317 years: 10¹⁹ ns overflows.
	writeDurationParquet(t, dur, arrow.Second, []int64{5, 1e10, 7})
	_, _, err := Read([]string{dur}, ReadOptions{Column: "wait"})
	wantParseError(t, err, ErrOutOfRange, dur, "row group 0, row 2", "10000000000 units of 1s")
	// The general path: a status column beside it.
	withStatus := filepath.Join(dir, "status.parquet")
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{5, 1e10, 7}, nil)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"ok", "ok", "ok"}, nil)
	stored := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: arrow.PrimitiveTypes.Int64}, {Name: "status", Type: arrow.BinaryTypes.String}}, nil)
	want := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: &arrow.DurationType{Unit: arrow.Second}}, {Name: "status", Type: arrow.BinaryTypes.String}}, nil)
	writeRecordParquet(t, withStatus, array.NewRecordBatch(stored, []arrow.Array{ib.NewArray(), sb.NewArray()}, 3),
		base64.StdEncoding.EncodeToString(flight.SerializeSchema(want, mem)))
	_, _, err = Read([]string{withStatus}, ReadOptions{Column: "wait", Status: "status"})
	wantParseError(t, err, ErrOutOfRange, withStatus, "row group 0, row 2", "10000000000 units of 1s")
	s, rep, err := Read([]string{dur}, ReadOptions{Column: "wait", DropInvalid: true})
	if err != nil || len(s.Times) != 2 || s.Times[1] != 7 || rep.Dropped["out of range"] != 1 {
		t.Errorf("drop-invalid: %v, %v, %v", s, rep, err)
	}

	ts := filepath.Join(dir, "ts.parquet")
	typ := &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}
	cols := make([]arrow.Array, 2)
	for k, v := range [][]arrow.Timestamp{{1740823200, 1740823200}, {1740823205, 167_000_000_000}} {
		b := array.NewTimestampBuilder(mem, typ)
		b.AppendValues(v, nil)
		cols[k] = b.NewArray()
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "start", Type: typ}, {Name: "end", Type: typ}}, nil)
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{array.NewRecordBatch(schema, cols, 2)})
	f, err := os.Create(ts)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 2, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, _, err = Read([]string{ts}, ReadOptions{Start: "start", End: "end"})
	// 1.67·10¹¹ s is the year 7262: as seconds it holds, as nanoseconds
	// it does not.
	wantParseError(t, err, ErrOutOfRange, ts, `row group 0, row 2, column "end"`)
}
