package ffql_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/limits"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		q    string
		want string
	}{
		{"simple", `name eq Bender`, `"name" eq "Bender"`},
		{"quoted value", `name eq "Bender Rodriguez"`, `"name" eq "Bender Rodriguez"`},
		{"single quotes", `'First Name' eq 'Bender'`, `"First Name" eq "Bender"`},
		{"escapes", `name eq "say \"hi\" \\ it\'s"`, `"name" eq "say \"hi\" \\ it's"`},
		{"other backslash stays", `name eq "hello \ world"`, `"name" eq "hello \\ world"`},
		{"no field", `eq "Planet Express"`, `eq "Planet Express"`},
		{"empty value", `first_name eq ""`, `"first_name" eq ""`},
		{"operators are case-insensitive", `age GTE 5`, `"age" gte "5"`},
		{"is on field", `email is error`, `"email" is error`},
		{"is on record", `is valid`, `is valid`},
		{"warn alias", `is warn`, `is warning`},
		{"and binds tighter", `a eq 1 or b eq 2 and c eq 3`, `("a" eq "1" or ("b" eq "2" and "c" eq "3"))`},
		{"parentheses", `(a eq 1 or b eq 2) and c eq 3`, `(("a" eq "1" or "b" eq "2") and "c" eq "3")`},
		{"dotted key", `a.b eq x`, `"a.b" eq "x"`},
		{"like", `email like "%@gmail.com"`, `"email" like "%@gmail.com"`},
		{"quoted operator word as field", `"eq" eq x`, `"eq" eq "x"`},
		{"doc example", `(email like "%@gmail.com" and ("Subscription Status" eq "On-Hold" or "Subscription Status" eq "Pending") and login_attempts gte 5) or is warning`,
			`((("email" like "%@gmail.com" and ("Subscription Status" eq "On-Hold" or "Subscription Status" eq "Pending")) and "login_attempts" gte "5") or is warning)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := ffql.Parse(tt.q, limits.Default().FFQLTerms)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.q, err)
			}
			if got := ffql.String(e); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, q, want string
	}{
		{"empty", ``, "query is empty"},
		{"no operator", `name Bender`, `expected an operator`},
		{"unknown operator", `name equals Bender`, `expected an operator`},
		{"missing value", `name eq`, `expected a value after "eq"`},
		{"unterminated", `name eq "Bender`, "unterminated quoted string"},
		{"unclosed paren", `(name eq a`, `expected ")"`},
		{"extra paren", `name eq a)`, `unbalanced ")"`},
		{"dangling and", `name eq a and`, "expected a condition, got end of query"},
		{"bad status", `name is broken`, `unknown status "broken"`},
		{"two conditions without and", `a eq 1 b eq 2`, "expected and, or or end of query"},
		{"starts with and", `and a eq 1`, "expected a condition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ffql.Parse(tt.q, limits.Default().FFQLTerms)
			var fe *ffql.Error
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q): got %v, want an *ffql.Error", tt.q, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err.Error(), tt.want)
			}
		})
	}
}

func TestLikeToGlob(t *testing.T) {
	for in, want := range map[string]string{"%@gmail.com": "*@gmail.com", "a_c": "a?c", "5*[x]?": "5[*][[]x][?]"} {
		if got := ffql.LikeToGlob(in); got != want {
			t.Errorf("LikeToGlob(%q): got %q, want %q", in, got, want)
		}
	}
}
