// Package outfile writes command output whole or not at all, and never
// in place of something that is not a file.
//
// Over a regular file (or where nothing is yet), the output is written to
// a temporary file in the same directory, synced to disk and renamed over
// the target only when the writer has finished without error, keeping the
// target's permission bits: a failed or killed run never leaves a
// half-written file behind, and the old file stays whole until the new one
// is. Anything else — a device such as /dev/null or /dev/stdout, a named
// pipe, a socket — is opened and written in place, as a shell's > would:
// replacing it with a regular file would break whatever reads it. A
// symbolic link is followed, so that the file it points to is written and
// the link stays.
//
// Temporary files are registered while they exist; RemoveTemps deletes
// them, and RemoveTempsOnSignal does that when the process is interrupted
// or terminated.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// newFileMode is the permission of a file that did not exist: readable
// by all, as output meant for sharing (plots, generated code) should be.
const newFileMode fs.FileMode = 0o644

// Write calls fn with a writer for path and commits the result (see the
// package comment). An empty path or "-" writes to stdout directly.
func Write(path string, stdout io.Writer, fn func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return fn(stdout)
	}
	target, err := resolve(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	mode := newFileMode
	switch st, err := os.Stat(target); {
	case err == nil && st.IsDir():
		return fmt.Errorf("cannot write %s: it is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		return writeInPlace(path, target, fn)
	case err == nil:
		mode = st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := CheckDir(target); err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer removeTemp(tmp.Name()) // after the rename, a no-op (forgetTemp)
	if err := fn(tmp); err != nil {
		tmp.Close()
		return err
	}
	// Sync before the rename: after a crash the target is then either the
	// old file or the whole new one, never an empty new one.
	for _, step := range []func() error{func() error { return tmp.Chmod(mode) }, tmp.Sync, tmp.Close} {
		if err := step(); err != nil {
			tmp.Close()
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	forgetTemp(tmp.Name())
	if d, err := os.Open(dir); err == nil { // make the rename durable too
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeInPlace writes to a device, FIFO or socket as it is.
func writeInPlace(path, target string, fn func(w io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// resolve follows path's symbolic links to the file they name, which may
// not exist yet (a dangling link names the file to create).
func resolve(path string) (string, error) {
	for range 40 { // as the kernel's ELOOP limit
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// CheckDir returns an error naming path when its directory does not
// exist, so that commands can say so before doing the work.
func CheckDir(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	target, err := resolve(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", path)
	}
	dir := filepath.Dir(target)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	}
	return nil
}

// SameFile reports whether writing path would overwrite the file at
// input: the same file, whatever the names (links, ./, ../).
func SameFile(path, input string) bool {
	if path == "" || path == "-" || input == "" || input == "-" {
		return false
	}
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := os.Stat(input)
	return err == nil && os.SameFile(a, b)
}

// temps are the temporary files in existence, for RemoveTemps.
var temps struct {
	sync.Mutex
	names  map[string]bool
	closed bool // RemoveTemps ran: no new temporary file may be made
}

func createTemp(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, errors.New("interrupted")
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[f.Name()] = true
	return f, nil
}

func removeTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names[name] {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// forgetTemp unregisters a temporary file renamed over its target.
func forgetTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// RemoveTemps deletes the temporary files of the writes in progress and
// makes later writes fail: the process is about to exit.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
	}
	temps.names = nil
	temps.closed = true
}

// RemoveTempsOnSignal makes the process, on SIGINT or SIGTERM, delete the
// temporary files of the writes in progress and exit with 128 + the
// signal's number, as a shell reports a process killed by it. It returns
// a function that stops watching.
func RemoveTempsOnSignal() (stop func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-c:
			RemoveTemps()
			code := 1
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}
