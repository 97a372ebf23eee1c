package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// MaxBinaryBytes bounds a plugin binary, copied or downloaded.
const MaxBinaryBytes = 512 << 20

// splitLocation is the scheme and the path (file) or URL (http, https) of
// a plugin location. Its errors show the location as shown does.
func splitLocation(loc string) (scheme, target string, err error) {
	u, err := url.Parse(loc)
	if err != nil {
		return "", "", errors.New("is not a URL")
	}
	switch u.Scheme {
	case "file":
		p := u.Host + u.Path // file://./relative and file:///absolute, as upstream
		if p == "" {
			return "", "", fmt.Errorf("%q names no file", loc)
		}
		return "file", p, nil
	case "http", "https":
		if u.Host == "" {
			return "", "", fmt.Errorf("%q has no host", shown(loc))
		}
		return u.Scheme, u.String(), nil
	}
	return "", "", fmt.Errorf("%q: the scheme must be file, http or https", shown(loc))
}

// shown is a location as errors and logs may show it: without the user
// information and query of a URL, where download credentials and signed
// tokens go (https://user:token@host/p?X-Amz-Signature=...), and nothing of
// a text that does not parse as a URL.
func shown(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return "(not a URL)"
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery, u.ForceQuery = "redacted", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// Install puts item's binary at <dir>/<namespace>/<name> (mode 0700),
// copied from a file:// location or downloaded with client from an
// http(s) one, and checks its SHA-256 when the item gives one: a mismatch
// removes the file and is an error. It returns the installed path.
func Install(ctx context.Context, item Item, dir string, client *http.Client) (string, error) {
	m := nameRE.FindStringSubmatch(item.Name)
	if m == nil {
		return "", fmt.Errorf("plugin name %q is not <namespace>/<name>", item.Name)
	}
	scheme, target, err := splitLocation(item.Location)
	if err != nil {
		return "", fmt.Errorf("plugin %s: location %w", item.Name, err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, m[1]))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("plugin %s: %w", item.Name, err)
	}
	dst := filepath.Join(abs, m[2])
	var src io.ReadCloser
	if scheme == "file" {
		src, err = openFile(target)
	} else {
		src, err = download(ctx, client, target)
	}
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", item.Name, err)
	}
	defer func() { _ = src.Close() }()
	sum, err := writeBinary(dst, src)
	if err == nil && item.Sha256 != "" && !strings.EqualFold(sum, item.Sha256) {
		err = fmt.Errorf("sha256 of %s is %s, the configuration says %s", shown(item.Location), sum, strings.ToLower(item.Sha256))
	}
	if err != nil {
		_ = os.Remove(dst)
		return "", fmt.Errorf("plugin %s: %w", item.Name, err)
	}
	return dst, nil
}

func openFile(path string) (io.ReadCloser, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s is not a regular file", abs)
	}
	return f, nil
}

func download(ctx context.Context, client *http.Client, u string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("downloading %s: %w", shown(u), err)
	}
	if resp.StatusCode/100 != 2 {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("downloading %s: %s", shown(u), resp.Status)
	}
	return resp.Body, nil
}

// writeBinary writes src to dst (replacing it, mode 0700) and returns its
// SHA-256 in hex; more than MaxBinaryBytes is an error.
func writeBinary(dst string, src io.Reader) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".install-*")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, MaxBinaryBytes+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return "", err
	case n > MaxBinaryBytes:
		return "", fmt.Errorf("binary larger than %d MiB", MaxBinaryBytes>>20)
	}
	if err := os.Chmod(tmp.Name(), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
