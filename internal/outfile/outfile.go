// Package outfile writes command output whole or not at all.
//
// A file is written to a temporary file in the same directory and renamed
// over the target only when the writer has finished without error, so a
// failed run never leaves a half-written file behind.
package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write calls fn with a writer for path and commits the result. An empty
// path or "-" writes to stdout directly.
func Write(path string, stdout io.Writer, fn func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return fn(stdout)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := CheckDir(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := fn(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// CheckDir returns an error naming path when its directory does not
// exist, so that commands can say so before doing the work.
func CheckDir(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	}
	return nil
}
