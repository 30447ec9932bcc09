package auth_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sluice/sluice/auth"
)

// The README's permission table is the policy the server enforces: regenerate it with
// `SLUICE_UPDATE_README=1 go test ./auth -run TestReadmePermissionTable` after changing auth.Policy.
func TestReadmePermissionTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	const start, end = "<!-- permissions -->\n", "<!-- /permissions -->"
	i, j := strings.Index(readme, start), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatal("README.md has no <!-- permissions --> … <!-- /permissions --> block")
	}
	want := auth.PolicyMarkdown()
	if got := readme[i+len(start) : j]; got != want {
		if os.Getenv("SLUICE_UPDATE_README") == "1" {
			if err := os.WriteFile("../README.md", []byte(readme[:i+len(start)]+want+readme[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("README.md's permission table differs from auth.Policy; want:\n%s", want)
	}
}

// Every area has a row and every class a column; the publishable key and guests reach only
// what the issue allows them.
func TestPolicyShape(t *testing.T) {
	for _, a := range auth.Areas {
		if _, ok := auth.Policy[a]; !ok {
			t.Errorf("area %s has no row", a)
		}
	}
	if len(auth.Areas) != len(auth.Policy) {
		t.Errorf("%d areas listed, %d in the policy", len(auth.Areas), len(auth.Policy))
	}
	for _, a := range auth.Areas {
		if a != auth.AreaSpaceCreate && auth.Allows(a, auth.ClassPublishable) {
			t.Errorf("a publishable key may enter %s", a)
		}
		if a != auth.AreaSpaceData && auth.Allows(a, auth.ClassGuest) {
			t.Errorf("a guest may enter %s", a)
		}
		if a != auth.AreaSpaceData && a != auth.AreaDataClips && auth.Allows(a, auth.ClassSpace) {
			t.Errorf("a space token may enter %s", a)
		}
	}
}
