package auth_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sluice/sluice/auth"
)

// The README's permission tables are the policy the server enforces: regenerate them with
// `SLUICE_UPDATE_README=1 go test ./auth -run TestReadme` after changing auth.Policy or
// auth.ResourcePolicy.
func TestReadmePermissionTable(t *testing.T) {
	readmeBlock(t, "permissions", auth.PolicyMarkdown())
}

func TestReadmeResourceTable(t *testing.T) {
	readmeBlock(t, "resources", auth.ResourcePolicyMarkdown())
}

func readmeBlock(t *testing.T, name, want string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start, end := "<!-- "+name+" -->\n", "<!-- /"+name+" -->"
	i, j := strings.Index(readme, start), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no <!-- %s --> … <!-- /%s --> block", name, name)
	}
	if got := readme[i+len(start) : j]; got != want {
		if os.Getenv("SLUICE_UPDATE_README") == "1" {
			if err := os.WriteFile("../README.md", []byte(readme[:i+len(start)]+want+readme[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("README.md's %s table differs from the code; want:\n%s", name, want)
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
