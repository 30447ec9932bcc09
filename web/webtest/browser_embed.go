package webtest

import (
	"fmt"
	"net"
	"net/http"
	"testing"
)

// HostPage serves a customer's page on another origin (localhost, while Sluice listens on
// 127.0.0.1): it frames the importer and collects the events the frame relays.
func HostPage(t *testing.T, html string) string {
	return ServeHost(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
}

// ServeHost runs h on a free port and returns its origin as http://localhost:<port>.
func ServeHost(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://localhost:" + port
}
