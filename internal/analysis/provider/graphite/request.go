package graphite

import (
	"errors"
	"net/url"
	"path"
	"strings"
	"unicode"
)

// renderURL is the render API URL of query under address, as upstream
// builds it: every whitespace character of the query is removed (templates
// spread a target over lines), the rest is read as URL query parameters
// ("target=...&from=-5min"), format=json is set, and the request goes to
// <address path>/render. A query that is not valid URL query syntax, or
// has no target, is an error here rather than a request Graphite refuses.
func renderURL(address, query string) (*url.URL, error) {
	if address == "" {
		return nil, errors.New("address is not set")
	}
	base, err := url.Parse(address)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, errors.New("address is not an http(s) URL")
	}
	compact := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, query)
	params, err := url.ParseQuery(compact)
	if err != nil {
		return nil, errors.New("query is not URL query parameters (target=...&from=...)")
	}
	if len(params["target"]) == 0 || params.Get("target") == "" {
		return nil, errors.New("query has no target= parameter")
	}
	params.Set("format", "json")
	u := *base
	u.Path, u.RawPath = path.Join("/", base.Path, "render"), ""
	u.RawQuery = params.Encode()
	u.Fragment, u.RawFragment = "", ""
	return &u, nil
}
