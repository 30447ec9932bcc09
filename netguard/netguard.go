// Package netguard keeps server-side requests (webhook deliveries) away from the machine
// Sluice runs on and its private network: loopback, private, link-local (cloud metadata),
// carrier-grade NAT and unspecified addresses are refused, both when a URL is saved and when
// it is dialled (so a name that resolves to a private address later is refused too).
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

var (
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")   // well-known NAT64: the IPv4 address in the last 32 bits
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48") // local-use NAT64: a private network's by definition
	sixToFour  = netip.MustParsePrefix("2002::/16")      // 6to4: the IPv4 address in bits 16 to 48
)

// Private reports whether ip is an address a webhook must not reach.
func Private(ip net.IP) bool {
	if ip == nil {
		return true
	}
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return true
	}
	a = a.Unmap()
	// Addresses that carry an IPv4 address reach that address through a translator.
	switch {
	case nat64Local.Contains(a):
		return true
	case nat64.Contains(a):
		b := a.As16()
		return Private(net.IP(b[12:16]))
	case sixToFour.Contains(a):
		b := a.As16()
		return Private(net.IP(b[2:6]))
	}
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || cgnat.Contains(a) || (a.Is4() && a.As4()[0] == 0)
}

// CheckURL refuses a URL whose host is a private address or a name that can only be local
// (localhost, *.localhost, *.local, *.internal). Names are resolved only when dialled.
func CheckURL(u *url.URL) error {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip := net.ParseIP(host); ip != nil {
		if Private(ip) {
			return fmt.Errorf("%s is a loopback, private or link-local address", host)
		}
		return nil
	}
	for _, suffix := range []string{"localhost", ".local", ".internal"} {
		if host == strings.TrimPrefix(suffix, ".") || strings.HasSuffix(host, suffix) {
			return fmt.Errorf("%s names this machine or its private network", host)
		}
	}
	return nil
}

// Client is an HTTP client that refuses to connect to private addresses (whatever a name
// resolves to) and does not follow redirects to them.
func Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		if Private(net.ParseIP(host)) {
			return fmt.Errorf("refused to connect to %s: a loopback, private or link-local address (set SLUICE_ALLOW_PRIVATE_WEBHOOKS to allow)", host)
		}
		return nil
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a proxy would dial for us, past the check
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		var dns *net.DNSError
		if errors.As(err, &dns) {
			// The resolver's own address (an internal one) stays out of agents' logs.
			host, _, _ := net.SplitHostPort(addr)
			return nil, fmt.Errorf("could not resolve %s", host)
		}
		return conn, err
	}
	return &http.Client{Timeout: timeout, Transport: tr}
}
