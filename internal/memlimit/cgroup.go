package memlimit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The files that hold a container's memory limit, under the cgroup mount.
const (
	v2File = "memory.max"
	v1File = "memory/memory.limit_in_bytes"
)

// noLimitV1 is where cgroup v1 values stop being limits: an unlimited
// group reports the largest page-aligned int64 (9223372036854771712).
const noLimitV1 = 1 << 62

// Limit reads the memory limit in bytes of the cgroup mounted at root
// (/sys/fs/cgroup in a container): 0 when there is none ("max", a v1 value
// meaning unlimited, or neither file present). A file present but
// unreadable or not a number is an error naming it.
func Limit(root string) (int64, error) {
	for _, name := range []string{v2File, v1File} {
		path := filepath.Join(root, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("memory limit: %w", err)
		}
		v := strings.TrimSpace(string(data))
		if v == "max" {
			return 0, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("memory limit: %s: %q is not a byte count", path, v)
		}
		if n >= noLimitV1 {
			return 0, nil
		}
		return n, nil
	}
	return 0, nil
}
