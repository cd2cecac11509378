package ingest

import (
	"strings"
	"testing"
)

// TestBlankLinesCounted: blank lines are skipped, not rows, and counted
// in the report, on the unquoted and the quoted paths, and at every
// chunking.
func TestBlankLinesCounted(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"plain", "t\n1\n\n2\r\n\r\n3\n\n"},
		{"quoted", "t\n\"1\"\n\n2\r\n\r\n3\n\n"},
	} {
		for _, chunk := range []int{1 << 21, 3} {
			chunkSize = chunk
			s, rep, err := ReadCSV(strings.NewReader(c.in), "b.csv", ReadOptions{Column: "t"})
			chunkSize = 1 << 21
			if err != nil {
				t.Fatal(err)
			}
			if rep.Read != 3 || s.Len() != 3 || rep.BlankLines != 3 || !strings.HasSuffix(rep.String(), "; skipped 3 blank lines") {
				t.Errorf("%s, chunk %d: %d rows, report %q (blank %d); want 3 rows, 3 blank lines", c.name, chunk, s.Len(), rep.String(), rep.BlankLines)
			}
		}
	}
}
