package web_test

import (
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// TestBrowserBusinessUser plays a business user from the login to a downloaded, fully valid
// file without one API call, in English and in German: a sheet made from a file, the sheet's
// e-mail made required, a second file imported through the Review step (the required field
// caught), the import undone once and redone, errors fixed with typing, Delete and paste,
// Submit and the download. Every step is photographed at 1,366 px and at 390 px
// (SLUICE_SCREENSHOTS; docs/screens/walk keeps a set), and no page shows a raw i18n key or an
// internal job name.
func TestBrowserBusinessUser(t *testing.T) {
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			webtest.BusinessWalk(t, lang)
		})
	}
}
