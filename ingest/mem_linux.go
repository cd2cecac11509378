package ingest

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// systemMemAvailable returns the bytes of memory this process can still take,
// or 0 when unknown: the kernel's MemAvailable estimate, lowered to what
// the process's memory cgroup (v2, or v1) leaves below its limit.
func systemMemAvailable() int64 {
	avail := int64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemAvailable:")); ok {
				kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
				if err == nil {
					avail = kb << 10
				}
				break
			}
		}
		f.Close()
	}
	for _, c := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, ok1 := readInt(c[0])
		used, ok2 := readInt(c[1])
		if ok1 && ok2 && limit < 1<<60 { // "max", or v1's page-rounded 2⁶³
			if left := max(0, limit-used); avail == 0 || left < avail {
				avail = left
			}
			break
		}
	}
	return avail
}

func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return v, err == nil
}
