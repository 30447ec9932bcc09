package webtest

import (
	"bytes"
	"compress/gzip"
	"net"
	"runtime"
	"testing"
)

// GzipBomb returns a gzip body of a few hundred KiB that inflates to n bytes of JSON whitespace.
func GzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for written := 0; written < n; written += len(chunk) {
		_, _ = zw.Write(chunk)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// AllocatedBy returns how many bytes the process allocated while f ran.
func AllocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Listen serves the app on a loopback port for the test's length and returns its base URL.
func Listen(t *testing.T, e *Env) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.App.Listener(ln) }()
	t.Cleanup(func() { _ = e.App.Shutdown() })
	return "http://" + ln.Addr().String()
}
