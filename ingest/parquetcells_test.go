package ingest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestReadParquetPlain: a duration column read alone goes through
// readPlain (decoded straight into the sample) for every plain numeric
// type, and falls back to the general path, row group by row group, on a
// null or an invalid value, which then names the row or drops it.
func TestReadParquetPlain(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	path := filepath.Join(t.TempDir(), "plain.parquet")
	writeParquet(t, path, 3, []string{"f64", "f32", "i64", "i32", "opt", "neg"}, map[string]any{
		"f64": []float64{1.5, 2, 0.25, 4, 60, 0.5},
		"f32": []float32{1.5, 2, 0.25, 4, 60, 0.5},
		"i64": []int64{1500, 2000, 250, 4000, 60000, 500},
		"i32": []int32{1500, 2000, 250, 4000, 60000, 500},
		"opt": []*float64{f64(1.5), f64(2), f64(0.25), f64(4), nil, f64(0.5)},
		"neg": []float64{1.5, 2, 0.25, 4, -60, 0.5},
	})
	want := []float64{1.5, 2, 0.25, 4, 60, 0.5}
	for _, c := range []struct {
		col     string
		unit    Unit
		plain   [2]bool // readPlain succeeds on row group 0, 1
		times   []float64
		dropped int
	}{
		{"f64", 0, [2]bool{true, true}, want, 0},
		{"f32", 0, [2]bool{true, true}, want, 0},
		{"i64", Millisecond, [2]bool{true, true}, want, 0},
		{"i32", Millisecond, [2]bool{true, true}, want, 0},
		{"opt", 0, [2]bool{true, false}, []float64{1.5, 2, 0.25, 4, 0.5}, 1},
		{"neg", 0, [2]bool{true, false}, []float64{1.5, 2, 0.25, 4, 0.5}, 1},
	} {
		opt := ReadOptions{Column: c.col, Unit: c.unit, DropInvalid: true}
		p, err := newPlan(opt)
		if err != nil {
			t.Fatal(err)
		}
		f, err := openParquetLayout(input{path: path, parquet: true}, p)
		if err != nil {
			t.Fatal(err)
		}
		if !f.plain {
			t.Fatalf("%s: not read by readPlain", c.col)
		}
		var r pqReader
		for rg := range 2 {
			var b batch
			ok, err := r.readPlain(f, rg, p, &b)
			if err != nil || ok != c.plain[rg] {
				t.Errorf("%s: readPlain(row group %d) = %v, %v; want %v", c.col, rg, ok, err, c.plain[rg])
			}
		}
		r.close()
		s, rep, err := Read([]string{path}, opt)
		if err != nil {
			t.Fatalf("%s: %v", c.col, err)
		}
		if !slices.Equal(s.Times, c.times) || rep.Read != 6 || rep.DroppedTotal() != c.dropped {
			t.Errorf("%s: times %v, read %d, dropped %d; want %v, 6, %d", c.col, s.Times, rep.Read, rep.DroppedTotal(), c.times, c.dropped)
		}
	}
	// Without DropInvalid the general path names the row.
	_, _, err := Read([]string{path}, ReadOptions{Column: "neg"})
	if want := path + `: row group 1, row 2, column "neg": negative duration: -60`; err == nil || err.Error() != want {
		t.Errorf("neg: err = %v, want %s", err, want)
	}
	_, _, err = Read([]string{path}, ReadOptions{Column: "opt"})
	if want := path + `: row group 1, row 2, column "opt": empty value`; err == nil || err.Error() != want {
		t.Errorf("opt: err = %v, want %s", err, want)
	}
}

// TestParquetEncodings: Parquet as other writers make it — data
// pages v2, Zstandard, gzip and Brotli, delta and byte-stream-split
// encodings, no dictionaries, INT96 timestamps (Spark, Impala), small
// pages — reads to the same sample: the settle times of the first 300
// rows of fixtures/payments.csv to the millisecond, from a duration
// column and from two timestamps, with the same censoring and segments.
func TestParquetEncodings(t *testing.T) {
	rows, _, err := ReadCSVFile("../fixtures/payments.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}, Segment: "method"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	ms := make([]int64, n)
	status, method := make([]string, n), make([]string, n)
	created, settled := make([]*time.Time, n), make([]*time.Time, n)
	for i, v := range rows.Times[:n] {
		ms[i] = int64(math.Round(v * 1000))
		status[i], method[i] = "succeeded", rows.SegmentNames[rows.SegmentOf(i)]
		created[i] = at(time.Duration(i) * time.Second)
		if rows.IsCensored(i) {
			status[i] = "pending"
		} else {
			settled[i] = at(time.Duration(i)*time.Second + time.Duration(ms[i])*time.Millisecond)
		}
	}
	names := []string{"wait_ms", "created_at", "settled_at", "status", "method"}
	cols := map[string]any{"wait_ms": ms, "created_at": created, "settled_at": settled, "status": status, "method": method}
	small := []parquet.WriterProperty{parquet.WithDataPageSize(512), parquet.WithBatchSize(50)}
	stored := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
	for _, c := range []struct {
		name   string
		aprops pqarrow.ArrowWriterProperties
		opts   []parquet.WriterProperty
	}{
		{"v2 zstd delta", stored, append(small, parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false),
			parquet.WithEncodingFor("wait_ms", parquet.Encodings.DeltaBinaryPacked), parquet.WithEncodingFor("created_at", parquet.Encodings.DeltaBinaryPacked),
			parquet.WithEncodingFor("status", parquet.Encodings.DeltaByteArray), parquet.WithEncodingFor("method", parquet.Encodings.DeltaLengthByteArray))},
		{"gzip plain", stored, append(small, parquet.WithCompression(compress.Codecs.Gzip), parquet.WithDictionaryDefault(false))},
		{"brotli dictionaries", stored, append(small, parquet.WithCompression(compress.Codecs.Brotli), parquet.WithDictionaryDefault(true))},
		{"lz4 raw byte stream split", stored, append(small, parquet.WithCompression(compress.Codecs.Lz4Raw), parquet.WithDictionaryDefault(false), parquet.WithEncodingFor("wait_ms", parquet.Encodings.ByteStreamSplit))},
		{"int96 snappy", pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)), append(small, parquet.WithCompression(compress.Codecs.Snappy))},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.parquet")
			writeParquetArrow(t, path, 120, names, cols, c.aprops, c.opts...)
			dur, _, err := Read([]string{path}, ReadOptions{Column: "wait_ms", Unit: Millisecond, Status: "status", Pending: []string{"pending"}, Segment: "method"})
			if err != nil {
				t.Fatal(err)
			}
			ts, _, err := Read([]string{path}, ReadOptions{Start: "created_at", End: "settled_at", Status: "status", Pending: []string{"pending"}, ObservedAt: pqT0.Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if len(dur.Times) != n || len(ts.Times) != n {
				t.Fatalf("%d and %d rows, want %d", len(dur.Times), len(ts.Times), n)
			}
			for i := range n {
				want := float64(ms[i]) / 1000
				if dur.Times[i] != want || dur.IsCensored(i) != rows.IsCensored(i) || dur.SegmentNames[dur.SegmentOf(i)] != method[i] {
					t.Fatalf("row %d: %v censored %v segment %s; want %v, %v, %s", i+1, dur.Times[i], dur.IsCensored(i), dur.SegmentNames[dur.SegmentOf(i)], want, rows.IsCensored(i), method[i])
				}
				if ts.IsCensored(i) != rows.IsCensored(i) || !rows.IsCensored(i) && ts.Times[i] != want {
					t.Fatalf("row %d from timestamps: %v censored %v; want %v, %v", i+1, ts.Times[i], ts.IsCensored(i), want, rows.IsCensored(i))
				}
			}
		})
	}
}

// TestParquetEmptyRowGroup: arrow-go writes an empty record batch as a
// row group of no rows whose column chunks start at byte 0 (a dictionary
// page alone, or nothing); such a file reads as its rows, not as a
// corrupt one ("column chunk 0 lies at bytes 0 to 14"), with the
// dictionary and without.
func TestParquetEmptyRowGroup(t *testing.T) {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "settle_s", Type: arrow.PrimitiveTypes.Float64},
		{Name: "method", Type: arrow.BinaryTypes.String},
	}, nil)
	record := func(times []float64, methods []string) arrow.RecordBatch {
		tb := array.NewFloat64Builder(mem)
		tb.AppendValues(times, nil)
		mb := array.NewStringBuilder(mem)
		mb.AppendValues(methods, nil)
		return array.NewRecordBatch(schema, []arrow.Array{tb.NewArray(), mb.NewArray()}, int64(len(times)))
	}
	for _, dict := range []bool{true, false} {
		t.Run(fmt.Sprintf("dictionary %v", dict), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "empty_rg.parquet")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			fw, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithDictionaryDefault(dict)), pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range []arrow.RecordBatch{
				record([]float64{1.5, 2, 0.25}, []string{"card", "momo", "card"}),
				record([]float64{4}, []string{"momo"}),
				record(nil, nil),
			} {
				if err := fw.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := fw.Close(); err != nil {
				t.Fatal(err)
			}
			rdr, err := openParquet(path)
			if err != nil {
				t.Fatal(err)
			}
			groups := []int64{}
			for rg := range rdr.NumRowGroups() {
				groups = append(groups, rdr.RowGroup(rg).NumRows)
			}
			rdr.close()
			if want := []int64{3, 1, 0}; !slices.Equal(groups, want) {
				t.Fatalf("row groups of %v rows, want %v (the file this test is about)", groups, want)
			}
			s, rep, err := Read([]string{path}, ReadOptions{Column: "settle_s", Segment: "method"})
			if err != nil {
				t.Fatal(err)
			}
			if want := []float64{1.5, 2, 0.25, 4}; !slices.Equal(s.Times, want) || rep.Read != 4 {
				t.Errorf("read %v (%d rows), want %v", s.Times, rep.Read, want)
			}
			var got []string
			for i := range s.Len() {
				got = append(got, s.SegmentNames[s.SegmentOf(i)])
			}
			if want := []string{"card", "momo", "card", "momo"}; !slices.Equal(got, want) {
				t.Errorf("segments %v, want %v", got, want)
			}
		})
	}
}
