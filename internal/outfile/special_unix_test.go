//go:build unix

package outfile

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputToFIFO: -o onto a named pipe writes into the pipe, which a
// reader receives, and leaves the pipe a pipe (it was replaced by a
// regular file, and the reader blocked forever).
func TestOutputToFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := Write(path, nil, writeString("schedule")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "schedule" {
			t.Errorf("the reader got %q, want %q", s, "schedule")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader of the FIFO got nothing")
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: mode %v, %v", st.Mode(), err)
	}
}

// TestOutputToDevice: -o onto a character device (a null device made for
// the test, as /dev/null is) writes to it and leaves it a device; as
// root, -o /dev/null had replaced the system's /dev/null.
func TestOutputToDevice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "null")
	// Major 1, minor 3 is the null device on Linux.
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skip("mknod needs root:", err)
	}
	if err := Write(path, nil, writeString("into the void")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device was replaced: mode %v, %v", st.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
}

// TestSignalRemovesTemps: a process killed by SIGTERM or SIGINT while writing
// leaves no temporary file behind and exits with 128 + the signal.
func TestSignalRemovesTemps(t *testing.T) {
	if os.Getenv("OUTFILE_SIGNAL_CHILD") != "" {
		RemoveTempsOnSignal()
		Write(os.Getenv("OUTFILE_SIGNAL_CHILD"), nil, func(w io.Writer) error {
			io.WriteString(w, strings.Repeat("x", 1<<20))
			os.Stdout.WriteString(w.(*os.File).Name() + "\n")
			select {} // killed here
		})
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesTemps$")
		cmd.Env = append(os.Environ(), "OUTFILE_SIGNAL_CHILD="+filepath.Join(dir, "x.ts"))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tmp, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		tmp = strings.TrimSpace(tmp)
		if _, err := os.Stat(tmp); err != nil {
			t.Fatalf("temporary file: %v", err)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Errorf("%v: exit code %d (%v), want %d", sig, code, err, 128+int(sig))
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%v: files left: %v", sig, ents)
		}
	}
}
