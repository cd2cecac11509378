package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pollfit/pollfit/ingest/internal/pq"
)

// segmentsOf lists each item's segment name, nil when s has no labels.
func segmentsOf(s *Sample) []string {
	if !s.HasSegments() {
		return nil
	}
	out := make([]string, s.Len())
	for i := range out {
		out[i] = s.SegmentNames[s.SegmentOf(i)]
	}
	return out
}

// labelsOf lists each item's label as an int32, whichever column holds
// them; nil when s has none.
func labelsOf(s *Sample) []int32 {
	if !s.HasSegments() {
		return nil
	}
	out := make([]int32, s.Len())
	for i := range out {
		out[i] = int32(s.SegmentOf(i))
	}
	return out
}

// labelNames is the segment of each of n rows, by name: seg000 … seg255
// once each, then those again in turn up to row mid, where seg256 …
// seg299 start (the 257th name, mid-file), in turn with the first ones.
func labelNames(n, mid int) []string {
	out := make([]string, n)
	for i := range out {
		g := i % 256
		if i >= mid && i%2 == 0 {
			g = 256 + (i/2)%44
		}
		out[i] = fmt.Sprintf("seg%03d", g)
	}
	return out
}

// csvOf writes rows of settle_s (the row's number) and method.
func csvOf(names []string) string {
	var b strings.Builder
	b.WriteString("settle_s,method\n")
	for i, n := range names {
		fmt.Fprintf(&b, "%d,%s\n", i, n)
	}
	return b.String()
}

// checkLabels compares the sample read with the rows' names: times i in
// order, the labels naming the rows' segments, a byte an item (Segment8)
// when the names number 256 or fewer and four (Segment) past that.
func checkLabels(t *testing.T, s *Sample, names []string) {
	t.Helper()
	if s.Len() != len(names) {
		t.Fatalf("%d items, want %d", s.Len(), len(names))
	}
	for i, x := range s.Times {
		if x != float64(i) {
			t.Fatalf("item %d: time %v, want %d", i, x, i)
		}
	}
	if got := segmentsOf(s); !slices.Equal(got, names) {
		for i := range got {
			if got[i] != names[i] {
				t.Fatalf("item %d: segment %q, want %q", i, got[i], names[i])
			}
		}
		t.Fatalf("segments %d, want %d", len(got), len(names))
	}
	distinct := len(slices.Compact(slices.Sorted(slices.Values(names))))
	if len(s.SegmentNames) != distinct {
		t.Errorf("%d segment names, want %d", len(s.SegmentNames), distinct)
	}
	if wide := distinct > 256; (s.Segment != nil) != wide || (s.Segment8 != nil) == wide {
		t.Errorf("%d names: Segment set %v, Segment8 set %v; want the labels in %d bytes an item", distinct, s.Segment != nil, s.Segment8 != nil, map[bool]int{false: 1, true: 4}[wide])
	}
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}

// TestLabelsWidenCSV: a CSV's labels are a byte an item while it
// has at most 256 segment names, and widen once to four when a 257th
// comes: in the middle of a block (the block's own labels widen), in a
// later block whose own names are few (the merged sample's widen), and in
// a second file; the labels name every row's segment throughout.
func TestLabelsWidenCSV(t *testing.T) {
	defer func(n int) { chunkSize = n }(chunkSize)
	opt := ReadOptions{Column: "settle_s", Segment: "method"}
	for _, c := range []struct {
		name  string
		rows  int
		mid   int // the row of the 257th name; rows for none
		chunk int // bytes a block
	}{
		{"256 names", 2000, 2000, 1 << 21},
		{"257th in a block", 2000, 1001, 1 << 21},
		{"257th in a later block", 2000, 1001, 1 << 10}, // about 70 rows a block
	} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers %d", c.name, workers), func(t *testing.T) {
				chunkSize = c.chunk
				names := labelNames(c.rows, c.mid)
				o := opt
				o.Workers = workers
				s, _, err := ReadCSV(strings.NewReader(csvOf(names)), "labels.csv", o)
				if err != nil {
					t.Fatal(err)
				}
				checkLabels(t, s, names)
			})
		}
	}

	t.Run("257th in a second file", func(t *testing.T) {
		chunkSize = 1 << 21
		dir := t.TempDir()
		first, second := labelNames(1000, 1000), make([]string, 500)
		for i := range second {
			second[i] = fmt.Sprintf("seg%03d", 200+i%100) // seg256 … seg299 new
		}
		var a, b strings.Builder
		a.WriteString(csvOf(first))
		b.WriteString("settle_s,method\n")
		for i, n := range second {
			fmt.Fprintf(&b, "%d,%s\n", len(first)+i, n)
		}
		pa, pb := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
		for p, text := range map[string]string{pa: a.String(), pb: b.String()} {
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, _, err := Read([]string{pa}, opt)
		if err != nil {
			t.Fatal(err)
		}
		checkLabels(t, s, first)
		s, _, err = Read([]string{pa, pb}, opt)
		if err != nil {
			t.Fatal(err)
		}
		checkLabels(t, s, append(first, second...))
	})
}

// TestLabelsWidenParquet: the same in Parquet, whose batches are
// row groups: the 257th name in the middle of a row group, in a later row
// group than the first 256, and in a second file, read by one worker and
// two.
func TestLabelsWidenParquet(t *testing.T) {
	dir := t.TempDir()
	opt := ReadOptions{Column: "settle_s", Segment: "method"}
	write := func(name string, rowGroup int64, names []string, from int) string {
		times := make([]float64, len(names))
		for i := range times {
			times[i] = float64(from + i)
		}
		path := filepath.Join(dir, name)
		writeParquet(t, path, rowGroup, []string{"settle_s", "method"}, map[string]any{"settle_s": times, "method": names})
		return path
	}
	for _, c := range []struct {
		name           string
		rows, mid      int
		rowGroup       int64
		wantRowGroups  int
		wantLocalWider bool // a row group has more than 256 names of its own
	}{
		{"256 names", 2000, 2000, 2000, 1, false},
		{"257th in a row group", 2000, 1001, 2000, 1, true},
		{"257th in a later row group", 2000, 1001, 100, 20, false},
	} {
		path := write(strings.ReplaceAll(c.name, " ", "_")+".parquet", c.rowGroup, labelNames(c.rows, c.mid), 0)
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers %d", c.name, workers), func(t *testing.T) {
				o := opt
				o.Workers = workers
				s, _, err := Read([]string{path}, o)
				if err != nil {
					t.Fatal(err)
				}
				checkLabels(t, s, labelNames(c.rows, c.mid))
			})
		}
		// The case is what it says: count the row groups and their names.
		rdr, err := openParquet(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := rdr.NumRowGroups(); n != c.wantRowGroups {
			t.Errorf("%s: %d row groups, want %d", c.name, n, c.wantRowGroups)
		}
		wider := false
		for rg := range rdr.NumRowGroups() {
			lo := int64(rg) * c.rowGroup
			seen := map[string]bool{}
			for _, n := range labelNames(c.rows, c.mid)[lo:min(int64(c.rows), lo+c.rowGroup)] {
				seen[n] = true
			}
			wider = wider || len(seen) > 256
		}
		rdr.close()
		if wider != c.wantLocalWider {
			t.Errorf("%s: a row group with more than 256 names %v, want %v", c.name, wider, c.wantLocalWider)
		}
	}

	t.Run("257th in a second file", func(t *testing.T) {
		first, second := labelNames(1000, 1000), make([]string, 500)
		for i := range second {
			second[i] = fmt.Sprintf("seg%03d", 200+i%100)
		}
		pa, pb := write("a.parquet", 300, first, 0), write("b.parquet", 300, second, len(first))
		for _, workers := range []int{1, 2} {
			o := opt
			o.Workers = workers
			s, _, err := Read([]string{pa, pb}, o)
			if err != nil {
				t.Fatal(err)
			}
			checkLabels(t, s, append(slices.Clone(first), second...))
		}
	})
}

// TestLabelsParquetDictionary: a dictionary-encoded segment column
// whose dictionary holds 300 names, of which the rows use three: the
// labels count the names the rows use, and stay a byte an item.
func TestLabelsParquetDictionary(t *testing.T) {
	mem := memory.DefaultAllocator
	dict := array.NewStringBuilder(mem)
	for g := range 300 {
		dict.Append(fmt.Sprintf("seg%03d", g))
	}
	dictArr := dict.NewArray()
	idx := array.NewInt32Builder(mem)
	times := array.NewFloat64Builder(mem)
	var want []string
	for i := range 1000 {
		g := []int32{7, 299, 150}[i%3]
		idx.Append(g)
		times.Append(float64(i))
		want = append(want, fmt.Sprintf("seg%03d", g))
	}
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	method := array.NewDictionaryArray(typ, idx.NewArray(), dictArr)
	schema := arrow.NewSchema([]arrow.Field{{Name: "settle_s", Type: arrow.PrimitiveTypes.Float64}, {Name: "method", Type: typ}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{times.NewArray(), method}, 1000)
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	path := filepath.Join(t.TempDir(), "dict.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true))
	if err := pqarrow.WriteTable(tbl, f, 1000, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	f.Close()

	// The file's dictionary holds every name, used or not.
	rdr, err := openParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.close()
	var ch pq.Chunk
	col := slices.IndexFunc(rdr.Columns, func(c pq.Column) bool { return c.Name == "method" })
	if err := ch.Reset(rdr.File, 0, &rdr.Columns[col]); err != nil {
		t.Fatal(err)
	}
	page, err := ch.Next()
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if page == nil || page.Dict == nil || page.Dict.Len() != 300 {
		t.Fatalf("the method column's first page: %+v, want indices into a dictionary of 300 names", page)
	}

	for _, workers := range []int{1, 2} {
		s, _, err := Read([]string{path}, ReadOptions{Column: "settle_s", Segment: "method", Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		checkLabels(t, s, want)
	}
}

// TestReadEmptySegmentApart: rows whose segment field is empty or blank
// are read as the empty value, which the segmentation names "(empty value)"
// when the data also has the literal value "(empty)": the two are parts
// of their own, not merged (found by a fresh user).
func TestReadEmptySegmentApart(t *testing.T) {
	// From a CSV: an empty field, a blank one and the literal value.
	path := filepath.Join(t.TempDir(), "e.csv")
	var b strings.Builder
	b.WriteString("settle_s,seg\n")
	for i := range 600 {
		fmt.Fprintf(&b, "%d,%s\n", i+1, []string{"", "(empty)", "  "}[i%3])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := Read([]string{path}, ReadOptions{Column: "settle_s", Segment: "seg"})
	if err != nil {
		t.Fatal(err)
	}
	seg := s.Segmentation(0)
	parts := seg.Parts(0, len(seg.Names))
	if want := []string{"(empty value)", "(empty)"}; !slices.Equal(seg.Names, want) || parts[0].Len() != 400 || parts[1].Len() != 200 {
		t.Errorf("CSV: parts %q of %d and %d rows, want %q of 400 (empty and blank fields) and 200", seg.Names, parts[0].Len(), parts[1].Len(), want)
	}
}
