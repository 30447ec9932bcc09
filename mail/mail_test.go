package mail

import (
	"context"
	"errors"
	"net/smtp"
	"strings"
	"testing"

	"github.com/sluice/sluice/store"
)

type memOutbox struct {
	mails  []*store.Mail
	marked map[string]error
}

func (o *memOutbox) QueueMail(_ context.Context, m *store.Mail) error {
	m.ID = "m" + string(rune('0'+len(o.mails)))
	o.mails = append(o.mails, m)
	return nil
}

func (o *memOutbox) MarkMail(_ context.Context, id string, err error) error {
	o.marked[id] = err
	return nil
}

func TestSendKeepsMailAndUsesSMTP(t *testing.T) {
	o := &memOutbox{marked: map[string]error{}}
	s, err := New(o, SMTP{Host: "smtp.example.com", Port: "2525", User: "u", Password: "p", From: "sluice@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var gotAddr, gotMsg string
	s.send = func(addr string, _ smtp.Auth, from string, to []string, msg []byte) error {
		gotAddr, gotMsg = addr, string(msg)
		return nil
	}
	th := ThemeOf([]byte(`{"theme":{"email":{"buttonBgColor":"#123456","textColor":"expression(x)","logo":"javascript:alert(1)"}}}`), true)
	if th.ButtonBgColor != "#123456" || th.TextColor != Default.TextColor || th.Logo != "" {
		t.Fatalf("theme: %+v", th)
	}
	m, err := s.Send(context.Background(), Invitation{AccountID: "a", To: "x@example.com", Subject: "Hi", Title: "T <b>", Body: "B", Button: "Go", Link: "https://s/x?token=1", Theme: th})
	if err != nil {
		t.Fatal(err)
	}
	if gotAddr != "smtp.example.com:2525" || !strings.Contains(gotMsg, "Subject: Hi") || !strings.Contains(m.HTML, "#123456") || !strings.Contains(m.HTML, "T &lt;b&gt;") {
		t.Errorf("sent %q to %q; html %s", gotMsg, gotAddr, m.HTML)
	}
	if err, ok := o.marked[m.ID]; !ok || err != nil {
		t.Errorf("not marked sent: %v %v", ok, err)
	}
	// A failing server: the mail stays in the outbox with its error.
	s.send = func(string, smtp.Auth, string, []string, []byte) error { return errors.New("connection refused") }
	m2, err := s.Send(context.Background(), Invitation{To: "y@example.com", Subject: "S", Theme: Default})
	if err == nil || o.marked[m2.ID] == nil || len(o.mails) != 2 {
		t.Errorf("failure not recorded: %v", err)
	}
	// Theming switched off by the environment: the default look.
	if ThemeOf([]byte(`{"theme":{"email":{"buttonBgColor":"#123456"}}}`), false) != Default {
		t.Error("disabled theming still themed")
	}
}
