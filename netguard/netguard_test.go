package netguard_test

import (
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/netguard"
)

func TestPrivate(t *testing.T) {
	for _, tt := range []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"10.1.2.3", true}, {"169.254.169.254", true}, {"100.64.0.1", true}, {"::1", true}, {"fe80::1", true},
		{"64:ff9b::7f00:1", true},    // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 of the cloud metadata address
		{"64:ff9b:1::808:808", true}, // local-use NAT64
		{"2002:7f00:1::", true},      // 6to4 of 127.0.0.1
		{"2002:a00:1::1", true},      // 6to4 of 10.0.0.1
		{"64:ff9b::808:808", false},  // NAT64 of 8.8.8.8
		{"2002:808:808::1", false},   // 6to4 of 8.8.8.8
		{"8.8.8.8", false}, {"2606:4700::1111", false},
	} {
		if got := netguard.Private(net.ParseIP(tt.ip)); got != tt.want {
			t.Errorf("Private(%s) = %v, want %v", tt.ip, got, tt.want)
		}
	}
	if err := netguard.CheckURL(&url.URL{Scheme: "http", Host: "[64:ff9b::a9fe:a9fe]"}); err == nil {
		t.Error("a NAT64 address of the metadata service was accepted")
	}
}

// A name that does not resolve is reported without the resolver's address.
func TestDNSErrorsNameNoResolver(t *testing.T) {
	_, err := netguard.Client(2 * time.Second).Get("http://no-such-host.invalid/")
	if err == nil {
		t.Skip("the name resolved")
	}
	if !strings.Contains(err.Error(), "could not resolve no-such-host.invalid") || strings.Contains(err.Error(), ":53") {
		t.Fatalf("got %v", err)
	}
}
