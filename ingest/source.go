package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"
)

// input is one file to read, with the Hive partition values of its path.
type input struct {
	path       string
	parquet    bool
	compressed bool // starts with the magic bytes of a codec
	part       map[string]string
	size       int64
}

// Read reads settle times from files and merges them into one Sample and
// Report. Each path is one of:
//
//   - "-": CSV on standard input;
//   - a file: Parquet when it starts with the magic bytes "PAR1" or is
//     named *.parquet or *.pq, otherwise CSV; gzip- and
//     Zstandard-compressed CSV is recognised by its content and
//     decompressed as it is parsed (see decompress);
//   - a glob pattern (filepath.Match syntax), which must match a file;
//   - a directory, read recursively: its *.parquet, *.pq, *.csv, *.tsv
//     files, and these last two compressed (*.csv.gz, *.csv.zst, …), in
//     lexical order, skipping names that start with "." or "_" (such as
//     Spark's _SUCCESS).
//
// Path components of the form key=value (a Hive-partitioned dataset as
// Spark or DuckDB writes it, dir/method=momo/part-0.parquet) give
// every row of the files below them a column key with value value, so
// that a partition key can be the Segment or Status column. Values are
// URL-unescaped and __HIVE_DEFAULT_PARTITION__ means empty.
//
// Parquet files are read in parallel, row group by row group. When more
// than one file is read, a file without data rows is skipped; the read
// fails only when no file has any.
func Read(paths []string, opt ReadOptions) (*Sample, *Report, error) {
	p, err := newPlan(opt)
	if err != nil {
		return nil, nil, err
	}
	ins, err := expand(paths)
	if err != nil {
		return nil, nil, err
	}
	var total int64
	for _, in := range ins {
		if in.size < 0 {
			total = -1
			break
		}
		total += in.size
	}
	bar := newProgress(opt.Progress, total, "reading")
	defer bar.done()

	m := merger{memLimit: p.memLimit, created: p.created, interval: p.interval}
	multi := len(ins) > 1
	for i := 0; i < len(ins); {
		if ins[i].parquet {
			j := i
			for j < len(ins) && ins[j].parquet {
				j++
			}
			if err := readParquet(ins[i:j], p, multi, bar, &m); err != nil {
				return nil, nil, err
			}
			m.rep.Files += j - i
			i = j
			continue
		}
		if err := readCSVInput(ins[i], p, bar, &m); err != nil {
			if !(multi && errors.Is(err, ErrNoRows)) {
				return nil, nil, err
			}
		}
		m.rep.Files++
		i++
	}
	return m.finish(strings.Join(paths, ", "), p)
}

// Files returns the files Read would read for paths, in the order it
// would read them: globs and directories expanded, "-" for standard
// input kept as it is. Its errors are Read's (ErrNoFiles for a path that
// names nothing).
func Files(paths []string) ([]string, error) {
	ins, err := expand(paths)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ins))
	for i, in := range ins {
		out[i] = in.path
	}
	return out, nil
}

// minMapped is the smallest file read in place from a memory mapping: for
// smaller ones read(2) costs less than setting up the mapping. Tests
// lower it.
var minMapped int64 = 4 << 20

func readCSVInput(in input, p *plan, bar *progress, m *merger) error {
	if in.path == "-" {
		var r io.Reader = os.Stdin
		if p.opt.Stdin != nil {
			r = p.opt.Stdin
		}
		return readCSV(bar.reader(r), "stdin", -1, p, nil, m, nil, nil)
	}
	f, err := os.Open(in.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if in.size >= minMapped && !in.compressed {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if data, unmap := mapFile(f, st.Size()); data != nil {
				defer unmap()
				return readMapped(data, in, p, bar, m)
			}
		}
	}
	return readCSV(bar.reader(f), in.path, in.size, p, in.part, m, nil, nil)
}

// readMapped reads a plain-text CSV input from its bytes mapped in
// memory, parsing them in place. A file that shrinks while it is read
// makes the access to the pages beyond its new end fault: the read fails
// with ErrCorrupt instead of crashing the program.
func readMapped(data []byte, in input, p *plan, bar *progress, m *merger) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // this goroutine's setting, restored
	defer func() {
		if r := recover(); r != nil {
			err = mappedFault(in.path, data, r)
		}
	}()
	return readCSV(bytes.NewReader(data), in.path, in.size, p, in.part, m, data, bar)
}

// expand turns the paths given into the files to read.
func expand(paths []string) ([]input, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no path given", ErrNoFiles)
	}
	var ins []input
	for _, path := range paths {
		if path == "-" {
			ins = append(ins, input{path: "-", size: -1})
			continue
		}
		var matches []string
		if strings.ContainsAny(path, "*?[") {
			var err error
			if matches, err = filepath.Glob(path); err != nil {
				return nil, fmt.Errorf("pattern %q: %w", path, err)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("%w: pattern %q matches no file", ErrNoFiles, path)
			}
		} else {
			matches = []string{path}
		}
		for _, mpath := range matches {
			st, err := os.Stat(mpath)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s does not exist", ErrNoFiles, mpath)
			}
			if err != nil {
				return nil, err
			}
			if !st.IsDir() {
				in, err := newInput(mpath, st.Size())
				if err != nil {
					return nil, err
				}
				ins = append(ins, in)
				continue
			}
			n := len(ins)
			err = filepath.WalkDir(mpath, func(fp string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				name := d.Name()
				if fp != mpath && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.IsDir() || !dataFileName(name) {
					return nil
				}
				info, err := d.Info()
				if err != nil {
					return err
				}
				in, err := newInput(fp, info.Size())
				if err != nil {
					return err
				}
				ins = append(ins, in)
				return nil
			})
			if err != nil {
				return nil, err
			}
			if len(ins) == n {
				return nil, fmt.Errorf("%w: directory %q holds no .csv, .tsv (or these .gz or .zst) or .parquet file", ErrNoFiles, mpath)
			}
		}
	}
	// A file named twice (a.csv and *.csv) is read once.
	seen := map[string]bool{}
	out := ins[:0]
	for _, in := range ins {
		if in.path == "-" || !seen[filepath.Clean(in.path)] {
			seen[filepath.Clean(in.path)] = true
			out = append(out, in)
		}
	}
	return out, nil
}

func dataFileName(name string) bool {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".parquet") || strings.HasSuffix(lower, ".pq") {
		return true
	}
	for _, c := range codecs {
		if t, ok := strings.CutSuffix(lower, c.suffix); ok {
			lower = t
			break
		}
	}
	return strings.HasSuffix(lower, ".csv") || strings.HasSuffix(lower, ".tsv")
}

// newInput classifies a file by its magic bytes or name and reads the
// partition values of its path.
func newInput(path string, size int64) (input, error) {
	in := input{path: path, size: size, part: partitions(path)}
	lower := strings.ToLower(path)
	named := strings.HasSuffix(lower, ".parquet") || strings.HasSuffix(lower, ".pq")
	f, err := os.Open(path)
	if err != nil {
		return in, err
	}
	var head [64]byte
	n, _ := io.ReadFull(f, head[:])
	f.Close()
	in.parquet = named || n >= 4 && string(head[:4]) == "PAR1"
	for _, c := range codecs {
		in.compressed = in.compressed || !named && strings.HasPrefix(string(head[:n]), c.magic)
	}
	if named && n >= 4 && string(head[:4]) != "PAR1" && looksText(head[:n]) {
		return in, fmt.Errorf("%w: %s is named as Parquet but holds text (%s): if it is CSV, name it .csv", ErrCorrupt, path, quote(head[:min(n, 32)]))
	}
	return in, nil
}

// looksText reports whether the first bytes of a file are text: printable
// ASCII or UTF-8, tabs and line ends, with a line end or a delimiter.
func looksText(b []byte) bool {
	if !utf8.Valid(b) && !utf8.Valid(b[:max(0, len(b)-3)]) { // a rune cut at the end
		return false
	}
	for _, c := range b {
		if c < ' ' && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return bytes.ContainsAny(b, "\n,;\t|")
}

// maxListed is the most column names an error lists.
const maxListed = 20

// listColumns lists a file's columns and partition keys for an error:
// "id, settle_s, method (partition)", at most maxListed of them, each
// cut to maxQuoted bytes.
func listColumns(names []string, part map[string]string) string {
	all := slices.Clone(names)
	for _, k := range slices.Sorted(maps.Keys(part)) {
		all = append(all, k+" (partition)")
	}
	var b strings.Builder
	for i, n := range all {
		if i == maxListed {
			fmt.Fprintf(&b, ", … (%d columns)", len(all))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if len(n) > maxQuoted {
			n = quote(n)
		}
		b.WriteString(n)
	}
	return b.String()
}

// partitions reads the key=value components of a path's directories.
func partitions(path string) map[string]string {
	var part map[string]string
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(path)), "/")
	for _, d := range slices.Backward(dirs) {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			continue
		}
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		if v == "__HIVE_DEFAULT_PARTITION__" {
			v = ""
		}
		if part == nil {
			part = map[string]string{}
		}
		if _, seen := part[k]; !seen { // the innermost directory wins
			part[k] = v
		}
	}
	return part
}
