package ingest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

var pqT0 = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// writeParquet writes the columns (name → []float64, []float32, []int64,
// []int32, []*float64 or []*time.Time (nil: null) or []string) as a Parquet file at path,
// rowGroup rows per row group, fields in the order of names.
func writeParquet(t testing.TB, path string, rowGroup int64, names []string, cols map[string]any) {
	t.Helper()
	writeParquetWith(t, path, rowGroup, names, cols, parquet.WithDictionaryDefault(true))
}

// writeParquetWith is writeParquet with the writer's properties given.
func writeParquetWith(t testing.TB, path string, rowGroup int64, names []string, cols map[string]any, opts ...parquet.WriterProperty) {
	t.Helper()
	writeParquetArrow(t, path, rowGroup, names, cols, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()), opts...)
}

// writeParquetArrow is writeParquetWith with the Arrow writer's
// properties given too.
func writeParquetArrow(t testing.TB, path string, rowGroup int64, names []string, cols map[string]any, aprops pqarrow.ArrowWriterProperties, opts ...parquet.WriterProperty) {
	t.Helper()
	mem := memory.DefaultAllocator
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, name := range names {
		switch v := cols[name].(type) {
		case []float64:
			b := array.NewFloat64Builder(mem)
			b.AppendValues(v, nil)
			fields, arrs = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64}), append(arrs, b.NewArray())
		case []float32:
			b := array.NewFloat32Builder(mem)
			b.AppendValues(v, nil)
			fields, arrs = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float32}), append(arrs, b.NewArray())
		case []int32:
			b := array.NewInt32Builder(mem)
			b.AppendValues(v, nil)
			fields, arrs = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32}), append(arrs, b.NewArray())
		case []*float64: // nil is null
			b := array.NewFloat64Builder(mem)
			for _, x := range v {
				if x == nil {
					b.AppendNull()
				} else {
					b.Append(*x)
				}
			}
			fields, arrs = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true}), append(arrs, b.NewArray())
		case []int64:
			b := array.NewInt64Builder(mem)
			b.AppendValues(v, nil)
			fields, arrs = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64}), append(arrs, b.NewArray())
		case []*time.Time:
			typ := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
			b := array.NewTimestampBuilder(mem, typ)
			for _, tm := range v {
				if tm == nil {
					b.AppendNull()
				} else {
					b.Append(arrow.Timestamp(tm.UnixMilli()))
				}
			}
			fields, arrs = append(fields, arrow.Field{Name: name, Type: typ, Nullable: true}), append(arrs, b.NewArray())
		case []string:
			b := array.NewStringBuilder(mem)
			b.AppendValues(v, nil)
			fields, arrs = append(fields, arrow.Field{Name: name, Type: arrow.BinaryTypes.String}), append(arrs, b.NewArray())
		default:
			t.Fatalf("writeParquet: column %s: type %T", name, v)
		}
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, arrs, int64(arrs[0].Len()))
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(opts...)
	if err := pqarrow.WriteTable(tbl, f, rowGroup, props, aprops); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func at(d time.Duration) *time.Time {
	t := pqT0.Add(d)
	return &t
}

// writeTestParquet writes a 6-row file in two row groups of 3:
//
//	settle_s wait_ms age created_at settled_at status    method
//	1.5      1500    1   t0         t0+1.5s    succeeded card
//	2        2000    2   t0         t0+2s      failed    momo
//	0.25     250     3   t0         t0+0.25s   succeeded momo
//	4        4000    4   t0         null       pending   wallet
//	60       60000   -1  t0         t0+60s     succeeded card
//	0.5      500     6   t0         t0+0.5s    cancelled momo
//
// (pqarrow cannot write Arrow durations, so age is an integer.)
func writeTestParquet(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "payments.parquet")
	writeParquet(t, path, 3, []string{"settle_s", "wait_ms", "age", "created_at", "settled_at", "status", "method"}, map[string]any{
		"settle_s":   []float64{1.5, 2, 0.25, 4, 60, 0.5},
		"wait_ms":    []int64{1500, 2000, 250, 4000, 60000, 500},
		"age":        []int64{1, 2, 3, 4, -1, 6},
		"created_at": []*time.Time{at(0), at(0), at(0), at(0), at(0), at(0)},
		"settled_at": []*time.Time{at(1500 * time.Millisecond), at(2 * time.Second), at(250 * time.Millisecond), nil, at(time.Minute), at(500 * time.Millisecond)},
		"status":     []string{"succeeded", "failed", "succeeded", "pending", "succeeded", "cancelled"},
		"method":     []string{"card", "momo", "momo", "wallet", "card", "momo"},
	})
	return path
}

func TestReadParquet(t *testing.T) {
	path := writeTestParquet(t)
	all := []float64{1.5, 2, 0.25, 4, 60, 0.5}
	tests := []struct {
		name     string
		opt      ReadOptions
		want     []float64
		censored []bool
		excluded int
	}{
		{"float seconds", ReadOptions{Column: "settle_s"}, all, nil, 0},
		{"integer milliseconds", ReadOptions{Column: "wait_ms", Unit: Millisecond}, all, nil, 0},
		{"negative dropped", ReadOptions{Column: "age", DropInvalid: true}, []float64{1, 2, 3, 4, 6}, nil, 0},
		// The pending row has a null end: its age is ObservedAt − start = 10 s.
		{"timestamps, pending, excluded", ReadOptions{Start: "created_at", End: "settled_at", Status: "status",
			Pending: []string{"pending"}, ExcludeStatus: []string{"cancelled"}, ObservedAt: pqT0.Add(10 * time.Second)},
			[]float64{1.5, 2, 0.25, 10, 60}, []bool{false, false, false, true, false}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rep, err := Read([]string{path}, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Times, tt.want) || !slices.Equal(s.Censored, tt.censored) || rep.Excluded != tt.excluded {
				t.Errorf("Read = %v %v (%v), want %v %v, %d excluded", s.Times, s.Censored, rep, tt.want, tt.censored, tt.excluded)
			}
		})
	}
	s, _, err := Read([]string{path}, ReadOptions{Column: "settle_s", Segment: "method"})
	if err != nil {
		t.Fatal(err)
	}
	names, parts, _ := s.Segments(1)
	if !slices.Equal(names, []string{"card", "momo", "wallet"}) || !slices.Equal(parts[0].Times, []float64{1.5, 60}) {
		t.Errorf("Segments = %v, card %v; want card, momo, wallet and card [1.5 60]", names, parts[0].Times)
	}
}

func TestReadParquetHive(t *testing.T) {
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "method=momo", "part-0.parquet"), 1, []string{"settle_s"}, map[string]any{"settle_s": []float64{10, 20}})
	writeParquet(t, filepath.Join(dir, "method=card", "part-0.parquet"), 1, []string{"settle_s"}, map[string]any{"settle_s": []float64{3}})
	writeParquet(t, filepath.Join(dir, "method=a%2Fb", "part-0.parquet"), 1, []string{"settle_s"}, map[string]any{"settle_s": []float64{7}})
	for _, paths := range [][]string{{dir}, {filepath.Join(dir, "method=*", "*.parquet")}} {
		s, rep, err := Read(paths, ReadOptions{Column: "settle_s", Segment: "method", Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		// Lexical order: method=a%2Fb, method=card, method=momo.
		if want := []float64{7, 3, 10, 20}; !slices.Equal(s.Times, want) {
			t.Errorf("Read(%v).Times = %v, want %v", paths, s.Times, want)
		}
		if want := []string{"a/b", "card", "momo"}; !slices.Equal(s.SegmentNames, want) || rep.Files != 3 {
			t.Errorf("Read(%v) segments %v, %d files; want %v, 3 files", paths, s.SegmentNames, rep.Files, want)
		}
	}
}

// genPayments writes n CSV rows of the payments generator's schema with
// fixed-seed values (the shape matters here, not the distribution).
func genPayments(n int) []byte {
	var b bytes.Buffer
	b.WriteString("payment_id,method,created_at,settled_at,status,settle_s\n")
	r := rand.New(rand.NewPCG(1, 2))
	methods := []string{"wallet", "momo", "card", "bank"}
	for i := range n {
		c := pqT0.Add(time.Duration(i) * 8 * time.Millisecond)
		d := time.Duration(r.ExpFloat64()*20000) * time.Millisecond
		fmt.Fprintf(&b, "pay_%08d,%s,%s,%s,succeeded,%.3f\n", i, methods[r.IntN(4)],
			c.Format("2006-01-02T15:04:05.000Z"), c.Add(d).Format("2006-01-02T15:04:05.000Z"), d.Seconds())
	}
	return b.Bytes()
}

func BenchmarkReadCSV(b *testing.B) {
	const n = 500_000
	data := genPayments(n)
	for _, bc := range []struct {
		name string
		opt  ReadOptions
	}{
		{"column", ReadOptions{Column: "settle_s"}},
		{"timestamps+segment", ReadOptions{Start: "created_at", End: "settled_at", Status: "status", Segment: "method"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := ReadCSV(bytes.NewReader(data), "bench", bc.opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func BenchmarkReadParquet(b *testing.B) {
	const n = 2_000_000
	r := rand.New(rand.NewPCG(1, 2))
	settle := make([]float64, n)
	status := make([]string, n)
	for i := range settle {
		settle[i] = float64(int(r.ExpFloat64()*20000)) / 1000
		status[i] = "succeeded"
		if i%100 == 0 {
			status[i] = "pending"
		}
	}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	writeParquet(b, path, 1<<20, []string{"settle_s", "status"}, map[string]any{"settle_s": settle, "status": status})
	for _, bc := range []struct {
		name string
		opt  ReadOptions
	}{
		{"column", ReadOptions{Column: "settle_s"}},
		{"column+status", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Read([]string{path}, bc.opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// writeDurationParquet writes an Arrow duration column as Parquet
// does (INT64) with the ARROW:schema metadata that restores the duration
// type on reading, as pyarrow writes it (pqarrow cannot write durations
// itself).
func writeDurationParquet(t testing.TB, path string, unit arrow.TimeUnit, ms []int64) {
	t.Helper()
	mem := memory.DefaultAllocator
	b := array.NewInt64Builder(mem)
	b.AppendValues(ms, nil)
	stored := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(stored, []arrow.Array{b.NewArray()}, int64(len(ms)))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(stored, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	want := arrow.NewSchema([]arrow.Field{{Name: "wait", Type: &arrow.DurationType{Unit: unit}}}, nil)
	if err := fw.AppendKeyValueMetadata("ARROW:schema", base64.StdEncoding.EncodeToString(flight.SerializeSchema(want, mem))); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadParquetDuration: an Arrow duration column is read in its unit
// (milliseconds here: 1500 ms is 1.5 s), whatever --unit says, and a
// negative duration is an error naming its row.
func TestReadParquetDuration(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "dur.parquet")
	writeDurationParquet(t, ok, arrow.Millisecond, []int64{1500, 2000, 250, 60000})
	s, rep, err := Read([]string{ok}, ReadOptions{Column: "wait", Unit: Minute})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1.5, 2, 0.25, 60}; !slices.Equal(s.Times, want) || rep.Used != 4 {
		t.Errorf("times %v (used %d), want %v", s.Times, rep.Used, want)
	}
	// pandas timedeltas: duration[ns].
	ns := filepath.Join(dir, "ns.parquet")
	writeDurationParquet(t, ns, arrow.Nanosecond, []int64{1_500_000_000, 250_000_000})
	s, _, err = Read([]string{ns}, ReadOptions{Column: "wait"})
	if want := []float64{1.5, 0.25}; err != nil || !slices.Equal(s.Times, want) {
		t.Errorf("duration[ns]: times %v, %v; want %v", s.Times, err, want)
	}
	bad := filepath.Join(dir, "neg.parquet")
	writeDurationParquet(t, bad, arrow.Millisecond, []int64{1500, -2000})
	_, _, err = Read([]string{bad}, ReadOptions{Column: "wait"})
	if want := bad + `: row group 0, row 2, column "wait": negative duration: -2s`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestReadHiveShadowed: a partition key in use that the files also have
// as a column is read from the column, and said once.
func TestReadHiveShadowed(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"card", "momo"} {
		writeParquet(t, filepath.Join(dir, "method="+m, "part-0.parquet"), 1, []string{"settle_s", "method"}, map[string]any{
			"settle_s": []float64{1, 2}, "method": []string{"wallet", "wallet"},
		})
	}
	s, rep, err := Read([]string{dir}, ReadOptions{Column: "settle_s", Segment: "method"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"method" is both a column of the files and a partition key (method=card/): the column is read`}
	if !slices.Equal(rep.Warnings, want) || !slices.Equal(s.SegmentNames, []string{"wallet"}) {
		t.Errorf("warnings %q, segments %v; want %q, [wallet]", rep.Warnings, s.SegmentNames, want)
	}
}
