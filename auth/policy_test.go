package auth_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sluice/sluice/auth"
)

// The permission tables in docs/operations.md are the policy the server enforces: regenerate
// them with `SLUICE_UPDATE_DOCS=1 go test ./auth -run TestDocs` after changing auth.Policy or
// auth.ResourcePolicy.
func TestDocsPermissionTable(t *testing.T) {
	docsBlock(t, "permissions", auth.PolicyMarkdown())
}

func TestDocsResourceTable(t *testing.T) {
	docsBlock(t, "resources", auth.ResourcePolicyMarkdown())
}

const docsFile = "../docs/operations.md"

func docsBlock(t *testing.T, name, want string) {
	t.Helper()
	b, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start, end := "<!-- "+name+" -->\n", "<!-- /"+name+" -->"
	i, j := strings.Index(readme, start), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf(docsFile+" has no <!-- %s --> … <!-- /%s --> block", name, name)
	}
	if got := readme[i+len(start) : j]; got != want {
		if os.Getenv("SLUICE_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(docsFile, []byte(readme[:i+len(start)]+want+readme[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("%s's %s table differs from the code; want:\n%s", docsFile, name, want)
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
