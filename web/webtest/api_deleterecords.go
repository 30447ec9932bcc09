package webtest

import (
	"github.com/sluice/sluice/model"
)

func PageOf(n int) model.Page { return model.Page{Size: n, Number: 1} }
