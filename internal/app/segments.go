package app

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/ingest"
)

// part is a share of the input that a command reports on by itself: all
// items, or the items of one segment (--segment).
type part struct {
	Name   string // export.AllSegment, or the segment's value (ingest.Segmentation.Other for the folded ones)
	Sample *ingest.Sample
}

// segmented reports whether the part is one segment rather than all items.
func (p part) segmented() bool { return p.Name != export.AllSegment }

// title names the part in headings: "all items" or "segment card".
func (p part) title() string {
	if !p.segmented() {
		return "all items"
	}
	return "segment " + p.Name
}

// size counts the part's items for headings: "2,603 rows (12
// censored)", or for binned input "5,000 items in 40 bins".
func (p part) size() string {
	s := p.Sample
	var out string
	if s.Weights != nil {
		out = fmt.Sprintf("%s items in %s bins", thousands(int(math.Round(s.TotalWeight()))), thousands(s.Len()))
	} else {
		out = thousands(s.Len()) + " rows"
	}
	if c := s.CensoredCount(); c > 0 {
		out += fmt.Sprintf(" (%s censored)", thousands(c))
	}
	return out
}

// parts returns the parts a command reports on: all of s first, then each
// segment of --segment in name order, those with fewer rows than
// in.MinSegmentRows folded into one (ingest.Segmentation.Other; stderr is
// told which).
// s may be nil (a command run without data): its one part has no sample,
// and --segment is a usage error. The segments are copies, and s loses
// its labels (see segmentation).
func (in Input) parts(s *ingest.Sample, stderr io.Writer) ([]part, error) {
	out := []part{{Name: export.AllSegment, Sample: s}}
	if s == nil {
		return out, in.refuseSegment("a run without --input")
	}
	seg, err := in.segmentation(s, stderr)
	if err != nil {
		return nil, err
	}
	if seg != nil {
		for i, p := range seg.Parts(0, len(seg.Names)) {
			out = append(out, part{Name: seg.Names[i], Sample: p})
		}
	}
	return out, nil
}

// segmentation returns how s divides by --segment (nil without it), once
// stderr is told which segments were folded, and into what (nil when
// every segment was: that part would be all items again); a segment
// named as all items are is an error. s's labels are dropped: the
// segmentation holds each row's part in a byte (up to 256 parts; labels
// of a byte a row become that index in place), and nothing else reads
// them; that frees wider labels before the parts are copied out, and lets
// the fit reorder s, a sample of times and flags alone, in place
// (fit.Options.Reorder).
func (in Input) segmentation(s *ingest.Sample, stderr io.Writer) (*ingest.Segmentation, error) {
	seg, err := in.segmentationKeep(s, stderr)
	s.DropLabels()
	return seg, err
}

// segmentationKeep is segmentation leaving s its labels where the
// segmentation did not take them for its index, for a caller that
// partitions s in place next: labels of four bytes a row (past 256
// names) are the partition's buffer (ingest.Segmentation.PartitionInPlace),
// which drops them.
func (in Input) segmentationKeep(s *ingest.Sample, stderr io.Writer) (*ingest.Segmentation, error) {
	if s.HasSegments() {
		// The reader's garbage, collected and given back before the
		// segmentation's index is made: else the index (a byte a row)
		// comes on top of that garbage and of the sample with its labels
		// (13 bytes a row): 16.3 bytes a row at 10⁸ rows (issue 18).
		giveBack()
	}
	seg := s.Segmentation(in.MinSegmentRows)
	if seg == nil {
		return nil, nil
	}
	if len(seg.Names) == 1 && seg.Names[0] == seg.Other {
		// One part, all items again: said once, as all items.
		fmt.Fprintf(stderr, "every segment has fewer than %d rows, so all were folded (%s): all items only; lower --min-segment-rows to see them apart\n", in.MinSegmentRows, someNames(seg.Folded))
		return nil, nil
	}
	if len(seg.Folded) > 0 {
		note := ""
		if seg.Other != "other" {
			note = " (a segment of the data is named \"other\")"
		}
		fmt.Fprintf(stderr, "segments with fewer than %d rows folded into %q%s: %s\n", in.MinSegmentRows, seg.Other, note, someNames(seg.Folded))
	}
	for _, name := range seg.Names {
		if name == export.AllSegment {
			// Tables, CSV, JSON and schedule documents name all items so.
			return nil, fmt.Errorf("--segment %s: the value %q is reserved for all items: rename it in the data", in.Read.Segment, name)
		}
	}
	return seg, nil
}

// maxNamesListed bounds the segment names a note lists.
const maxNamesListed = 20

// someNames lists names, comma-separated, the first maxNamesListed of
// them and how many more: 70,000 folded segments made a line of 517 KB.
func someNames(names []string) string {
	if len(names) <= maxNamesListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %s more", strings.Join(names[:maxNamesListed], ", "), thousands(len(names)-maxNamesListed))
}

// rereadable reports whether the input paths name regular files alone,
// which can be read a second time (not standard input or a pipe).
func rereadable(paths []string) bool {
	files, err := ingest.Files(paths)
	if err != nil || len(files) == 0 {
		return false
	}
	for _, f := range files {
		if f == "-" {
			return false
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// reread reads the input again, as load did but saying nothing, and
// returns how its rows divide by segment, the labels kept for
// PartitionInPlace (segmentationKeep). digest is the first read's
// ingest.Sample.Digest: rows that differ from those (a file written to
// between the reads) are an error, not segments of other data than all
// items'. Plan reads a file twice so that all items' plan may reorder
// their rows in place (issue 18).
func (in Input) reread(digest uint64) (*ingest.Segmentation, error) {
	collectTighter(in.Paths)
	// All items' garbage, given back first: else the rows read again came
	// on top of the heap the collector had grown for all items' plan (at
	// 10⁷ rows 206 MiB against the first read's 180).
	giveBack()
	s, _, err := ingest.Read(in.Paths, in.Read)
	if err != nil {
		return nil, fmt.Errorf("reading the input again for its segments: %w", err)
	}
	if s.Digest() != digest {
		return nil, fmt.Errorf("the input changed while it was read (%s): read again for the segments, its %s rows differ from those planned for all items; plan again once nothing writes to it, or plan a copy", strings.Join(in.Paths, ", "), thousands(s.Len()))
	}
	seg, err := in.segmentationKeep(s, io.Discard)
	if err == nil && seg == nil {
		err = fmt.Errorf("the input changed while it was read (%s): read again, it has no segments", strings.Join(in.Paths, ", "))
	}
	return seg, err
}

// giveBack collects the garbage and gives its memory back to the system
// when the input is large (collectTighter). Else a sample-sized array
// dropped — the reader's buffers, the segmentation's index and
// PartitionInPlace's buffer once the parts are views — stays resident under the work that
// follows until the runtime's scavenger returns it, minutes later: at
// 10⁷ rows the segments' plans ran 38 MiB above their live heap so.
func giveBack() {
	if tight {
		debug.FreeOSMemory()
	}
}

// collect collects the garbage, and gives it back to the system when the
// input is large (giveBack): a plan's steps each drop arrays the size of
// its rows, which stayed resident under the next part's plan.
func collect() {
	if tight {
		debug.FreeOSMemory()
		return
	}
	runtime.GC()
}

// lazyParts bounds the segments eachPartOnce copies out one at a time.
const lazyParts = 16

// eachPartOnce is parts and eachPart in one, for commands that read a
// part's rows in fn alone (fit without a plot, optimize): up to
// lazyParts segments, each is copied out of s as fn starts on it and
// dropped after, so that one segment's copy is held besides s instead of
// all of them (9 bytes a row); more are copied out in one pass, as parts
// does (a pass over the rows per segment would cost more than the fits
// of small segments). All items go last, so that fn may reorder them
// (fit.Options.Reorder). The parts' results do not depend on each other
// or on that order: the results, and the error when there is one, are
// those of eachPart — all items' error first, then the first segment's by
// name; segments after a failed one are not worked on, but all items are.
// The parts returned hold no segment's rows.
//
// With inPlace, up to lazyParts segments are views of s instead, which
// is partitioned in place (ingest.Segmentation.PartitionInPlace: each
// segment's rows together, in their order, through a buffer, the memory
// of s's labels when they are four bytes a row), and the segmentation's
// index (a byte a row) goes before fn
// starts: no copy besides s. fn may then reorder a segment's rows too,
// but all items come to it in another order than s's: inPlace is for an
// fn whose result on all items does not depend on their order
// (fitCanPartition).
func eachPartOnce[T any](in Input, s *ingest.Sample, stderr io.Writer, inPlace bool, fn func(part) (T, error)) ([]part, []T, error) {
	seg, err := in.segmentationKeep(s, stderr)
	if seg == nil || !inPlace || len(seg.Names) > lazyParts {
		s.DropLabels() // see segmentation
	}
	if err != nil {
		return nil, nil, err
	}
	parts := []part{{Name: export.AllSegment}}
	res := make([]T, 1)
	var segErr error
	if seg != nil {
		names := seg.Names
		var rows []*ingest.Sample
		switch {
		case len(names) > lazyParts:
			rows = seg.Parts(0, len(names))
		case inPlace:
			rows = seg.PartitionInPlace()
		}
		if rows != nil {
			seg = nil  // its index, a byte a row
			giveBack() // with the partition's buffer
		}
		for i, name := range names {
			var p *ingest.Sample
			if rows != nil {
				p, rows[i] = rows[i], nil
			} else {
				p = seg.Parts(i, i+1)[0]
			}
			r, err := fn(part{Name: name, Sample: p})
			if err != nil {
				segErr = fmt.Errorf("segment %q: %w", name, err)
				break
			}
			parts = append(parts, part{Name: name})
			res = append(res, r)
		}
	}
	parts[0].Sample = s
	if res[0], err = fn(parts[0]); err != nil {
		return nil, nil, err
	}
	if segErr != nil {
		return nil, nil, segErr
	}
	return parts, res, nil
}

// eachPart calls fn on every part in order and collects the results. An
// error from a segment names it.
func eachPart[T any](parts []part, fn func(part) (T, error)) ([]T, error) {
	out := make([]T, 0, len(parts))
	for _, p := range parts {
		r, err := fn(p)
		if err != nil {
			if p.segmented() {
				err = fmt.Errorf("segment %q: %w", p.Name, err)
			}
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// refuseSegment returns a usage error when --segment is given to a run
// that has no rows to split (a model, a density file, no input); why says
// what the run works from.
func (in Input) refuseSegment(why string) error {
	if in.Read.Segment == "" {
		return nil
	}
	return Usagef("--segment %s: %s has no rows to split by segment; give --input FILE, or leave --segment out", in.Read.Segment, why)
}

// maxNameBytes bounds the segment's share of a plot file name.
const maxNameBytes = 64

// plotPaths returns a file per part for a plot written to path: path
// itself for all items and, for each segment, path with "-NAME" before the
// extension ("lag.png" → "lag-card.png"). NAME is the segment's value with
// every character other than a letter, digit, '-', '_' or '.' replaced by
// '_', trimmed of leading and trailing '_' and '.', and cut to 64 bytes; a
// name left empty is "segment". Names that would still clash — also when
// they differ only in case, as on macOS and Windows file systems — get
// "-2", "-3", … in segment order.
func plotPaths(path string, parts []part) []string {
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext)
	out := make([]string, len(parts))
	used := map[string]bool{}
	for i, p := range parts {
		if !p.segmented() {
			out[i] = path
			continue
		}
		base := safeName(p.Name)
		name := base
		for k := 2; used[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s-%d", base, k)
		}
		used[strings.ToLower(name)] = true
		out[i] = stem + "-" + name + ext
	}
	return out
}

// safeName makes a segment's value safe in a file name (see plotPaths).
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_.")
	if len(name) > maxNameBytes {
		cut := maxNameBytes
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	if name == "" {
		return "segment"
	}
	return name
}

// plotParts draws one plot per part, to the files plotPaths names, by
// calling draw with the part's index and file. With segments it lists
// the files on stderr (unless quiet), since their names are derived.
func plotParts(path string, parts []part, stderr io.Writer, quiet bool, draw func(i int, file string) error) error {
	files := plotPaths(path, parts)
	for i, f := range files {
		if err := draw(i, f); err != nil {
			if parts[i].segmented() {
				return fmt.Errorf("segment %q: %w", parts[i].Name, err)
			}
			return err
		}
	}
	if len(files) > 1 && !quiet {
		// Which segment went where: the names are derived (safeName, and
		// "-2" where two would clash).
		list := make([]string, len(files))
		for i, f := range files {
			list[i] = f + " (all items)"
			if parts[i].segmented() {
				list[i] = fmt.Sprintf("%s (%q)", f, parts[i].Name)
			}
		}
		fmt.Fprintf(stderr, "plots: %s\n", strings.Join(list, ", "))
	}
	return nil
}
