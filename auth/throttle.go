package auth

import (
	"context"
	"crypto/rand"
	"math"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/sluice/sluice/errs"
)

// ThrottleStore keeps failure counts (store.DB).
type ThrottleStore interface {
	ThrottleWait(ctx context.Context, keys ...string) (time.Duration, error)
	ThrottleFail(ctx context.Context, key string, free int, base, max, forget time.Duration) error
	ThrottleReset(ctx context.Context, key string) error
}

// Limiter throttles credential checks (dashboard login, /v1/auth, guest links) per account
// and per client address with exponential back-off: after 5 failures for one account (20 from
// one address) each further failure locks it for 1 s, 2 s, 4 s … up to 15 minutes; an hour
// without failures forgets them. A locked caller gets errs.TooMany with RetryAfter, whether
// or not the account exists.
type Limiter struct{ Store ThrottleStore }

// The limiter's policy.
const (
	AccountFree  = 5
	AddressFree  = 20
	throttleBase = time.Second
	throttleMax  = 15 * time.Minute
	forgetAfter  = time.Hour
)

func keys(addr, account string) []string {
	out := []string{"ip:" + addr}
	if account != "" {
		out = append(out, accountKey(account))
	}
	return out
}

func accountKey(account string) string { return "acct:" + strings.ToLower(strings.TrimSpace(account)) }

// Check refuses a caller that must still wait. Errors: too_many, with RetryAfter.
func (l *Limiter) Check(ctx context.Context, addr, account string) error {
	if l == nil || l.Store == nil {
		return nil
	}
	wait, err := l.Store.ThrottleWait(ctx, keys(addr, account)...)
	if err != nil || wait <= 0 {
		return err
	}
	secs := int(math.Ceil(wait.Seconds()))
	e := errs.E(errs.TooMany, "credentials", "Too many failed attempts: try again in %d seconds", secs).WithMsg("login.throttled", nil)
	e.RetryAfter = time.Duration(secs) * time.Second
	return e
}

// Failed counts a failed attempt against the address and the account.
func (l *Limiter) Failed(ctx context.Context, addr, account string) {
	if l == nil || l.Store == nil {
		return
	}
	ks := keys(addr, account)
	_ = l.Store.ThrottleFail(ctx, ks[0], AddressFree, throttleBase, throttleMax, forgetAfter)
	if len(ks) > 1 {
		_ = l.Store.ThrottleFail(ctx, ks[1], AccountFree, throttleBase, throttleMax, forgetAfter)
	}
}

// Succeeded forgets the account's failures (the address keeps its count).
func (l *Limiter) Succeeded(ctx context.Context, account string) {
	if l == nil || l.Store == nil || account == "" {
		return
	}
	_ = l.Store.ThrottleReset(ctx, accountKey(account))
}

// dummyHash is a real bcrypt hash of a random password, compared when an e-mail is unknown so
// that known and unknown e-mails cost the same (no user enumeration by timing).
var dummyHash = func() []byte {
	pw := make([]byte, 24)
	_, _ = rand.Read(pw)
	h, err := bcrypt.GenerateFromPassword(pw, bcrypt.DefaultCost)
	if err != nil {
		panic("bcrypt: " + err.Error())
	}
	return h
}()

// VerifyPassword checks pw against hash with the same work whether or not there is a hash
// (an unknown e-mail, an invited user who has not set a password).
func VerifyPassword(hash, pw string) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(pw))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}
