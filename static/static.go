// Package static embeds the stylesheet, scripts and images served under /static. app.css and
// htmx.min.js are build output of `make generate`; the committed input.css and app.js keep the
// embedded folders non-empty on a fresh clone.
package static

import (
	"embed"
	"net/http"
)

// FS holds css/, js/ and img/.
//
//go:embed all:css all:js img
var FS embed.FS

// HTTP serves FS as an http.FileSystem rooted at its top.
func HTTP() http.FileSystem { return http.FS(FS) }
