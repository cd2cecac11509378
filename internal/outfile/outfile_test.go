package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCommitsOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, nil, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write error = %v, want %v", err, boom)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q, want the old %q", b, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	if err := Write(path, nil, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("after a good write the file holds %q, want %q", b, "new")
	}
}

func TestWriteDashIsStdout(t *testing.T) {
	var buf bytes.Buffer
	if err := Write("-", &buf, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "x" {
		t.Errorf("stdout got %q, want %q", buf.String(), "x")
	}
}

// TestModesKept: writing over a file keeps its permission bits; a new
// file is 0644.
func TestModesKept(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []os.FileMode{0o600, 0o755, 0o640} {
		path := filepath.Join(dir, "out-"+mode.String())
		if err := os.WriteFile(path, []byte("old"), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, mode) // whatever the umask
		if err := Write(path, nil, writeString("new")); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		if st.Mode().Perm() != mode {
			t.Errorf("mode after Write = %v, want %v kept", st.Mode().Perm(), mode)
		}
	}
	path := filepath.Join(dir, "fresh")
	if err := Write(path, nil, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v, want 0644", st.Mode().Perm())
	}
}

// TestSymlinkFollowed: a symbolic link is followed: the file it names is
// written and the link stays a link, dangling ones included.
func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Skip(err)
	}
	if err := Write(link, nil, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the link's target holds %q, want %q", b, "new")
	}
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink("later.json", dangling)
	if err := Write(dangling, nil, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "later.json")); string(b) != "x" {
		t.Errorf("writing through a dangling link: target holds %q, want %q", b, "x")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("files left: %v, want real.json, link.json, dangling.json, later.json", ents)
	}
}

// TestDirectoryRefused: -o naming a directory fails before the work.
func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	called := false
	err := Write(dir, nil, func(io.Writer) error { called = true; return nil })
	if err == nil || called || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Write(dir) = %v (writer called: %v), want \"it is a directory\" before writing", err, called)
	}
	if err := CheckDir(dir); err == nil {
		t.Errorf("CheckDir(dir) = nil, want an error")
	}
	if err := CheckDir(filepath.Join(dir, "no", "x.json")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("CheckDir(missing dir) = %v", err)
	}
}

// TestSameFile: SameFile sees through other names of a file.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "d.csv")
	os.WriteFile(a, []byte("t\n1\n"), 0o644)
	os.Symlink("d.csv", filepath.Join(dir, "l.csv"))
	for _, c := range []struct {
		out, in string
		want    bool
	}{
		{a, a, true},
		{filepath.Join(dir, ".", "d.csv"), a, true},
		{filepath.Join(dir, "l.csv"), a, true},
		{filepath.Join(dir, "e.csv"), a, false},
		{"-", a, false},
		{a, "-", false},
	} {
		if got := SameFile(c.out, c.in); got != c.want {
			t.Errorf("SameFile(%q, %q) = %v, want %v", c.out, c.in, got, c.want)
		}
	}
}

// TestRemoveTemps: temporary files of writes in progress are
// deleted by RemoveTemps, and writes after it fail.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.ts")
	started, release := make(chan string), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- Write(path, nil, func(w io.Writer) error {
			started <- w.(*os.File).Name()
			<-release
			return nil
		})
	}()
	tmp := <-started
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("temporary file %s: %v", tmp, err)
	}
	RemoveTemps()
	defer func() { temps.Lock(); temps.closed = false; temps.Unlock() }()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary file still there after RemoveTemps: %v", err)
	}
	close(release)
	if err := <-done; err == nil {
		t.Errorf("Write finished without error after its temporary file was removed")
	}
	if err := Write(filepath.Join(dir, "later"), nil, writeString("x")); err == nil {
		t.Errorf("Write after RemoveTemps = nil error, want one")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left: %v", ents)
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}
