package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// The web page, built from web/ by hack/web.sh (make build) into assets/.
// The bundle is not committed: a binary built without it (go build alone,
// no npm) serves placeholder.html instead.
var (
	//go:embed all:assets
	assets embed.FS
	//go:embed placeholder.html
	placeholder []byte
)

// builtAssets is the web page's files, nil when the bundle was not built.
func builtAssets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(sub, "index.html"); err != nil {
		return nil
	}
	return sub
}

// staticHandler serves the page's files from files, or without them the
// placeholder page at / (and 404 elsewhere); nothing is fetched at run time.
func staticHandler(files fs.FS) http.Handler {
	if files != nil {
		return http.FileServerFS(files)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/index.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(placeholder) // the client left: nobody to tell
	})
}

// securityHeaders sets the headers every response carries: scripts, styles
// and connections only from this origin, never framed, no referrer, no
// content sniffing, and API answers never cached.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if strings.HasPrefix(r.URL.Path, "/api/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}
