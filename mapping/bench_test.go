package mapping_test

import (
	"fmt"
	"testing"

	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
)

// wide builds a 300-column file against a 300-field sheet: realistic headers repeated with
// suffixes, so every pair is scored the way a real wide export would be.
func wide(n int) ([]mapping.Column, model.SheetConfig) {
	base := []string{"First Name", "Last Name", "E-mail", "Telefon", "PLZ", "Ort", "Land", "Firma", "qty", "Unit Price",
		"Order Date", "Bestellnummer", "Código postal", "Prénom", "SKU", "Total", "Currency", "IBAN", "Notes", "Status"}
	samples := [][]string{{"Anna"}, {"Keller"}, {"a@b.co"}, {"+49 30 123456"}, {"10117"}, {"Berlin"}, {"DE"}, {"ACME"}, {"3"}, {"9.99"},
		{"2024-03-01"}, {"SW-1"}, {"28013"}, {"Élodie"}, {"X-1"}, {"19.99"}, {"EUR"}, {"DE89370400440532013000"}, {"call"}, {"active"}}
	cols := make([]mapping.Column, n)
	dst := model.SheetConfig{Name: "Wide"}
	for i := 0; i < n; i++ {
		cols[i] = mapping.Column{Header: fmt.Sprintf("%s %d", base[i%len(base)], i/len(base)), Samples: samples[i%len(base)]}
		dst.Fields = append(dst.Fields, model.Field{Key: fmt.Sprintf("field_%d", i), Label: fmt.Sprintf("%s %d", base[(i+7)%len(base)], i/len(base)), Type: model.FieldString})
	}
	return cols, dst
}

// BenchmarkSuggest300x300 maps 300 columns onto 300 fields; the target is well under 100 ms.
func BenchmarkSuggest300x300(b *testing.B) {
	cols, dst := wide(300)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mapping.Suggest(cols, dst, mapping.History{}, mapping.Options{})
	}
}

// BenchmarkSuggest1000 maps a 1,000-column file with headers in the world corpus's
// languages onto a 100-field sheet (issue 18: under 100 ms), and reports the milliseconds.
func BenchmarkSuggest1000(b *testing.B) {
	cols, _ := wide(1000)
	world := []string{"注文番号", "商品名", "주문번호", "상품명", "订单编号", "收货地址", "หมายเลขคำสั่งซื้อ", "Mã đơn hàng", "Nama Produk", "Sipariş Tarihi", "Numer zamówienia", "Förnamn"}
	for i := range cols {
		if i%3 == 0 {
			cols[i].Header = fmt.Sprintf("%s %d", world[i%len(world)], i)
		}
	}
	_, dst := wide(100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mapping.Suggest(cols, dst, mapping.History{}, mapping.Options{})
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/1000-columns")
}

// BenchmarkSuggestEnumWide maps 5,000 distinct values onto 5,000 options through the simple
// assignment; the target is under 50 ms.
func BenchmarkSuggestEnumWide(b *testing.B) {
	f := wideField(5000)
	vals := make([]string, 5000)
	for i := range vals {
		vals[i] = fmt.Sprintf("ITEM %d", i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mapping.SuggestEnum(vals, f, mapping.History{})
	}
}

// BenchmarkAccuracy runs the corpus and reports its figures (make bench prints them with
// every wrong mapping): top-1 accuracy, the share of correct suggestions above 0.9, and
// wrong mappings above 0.9; then the same for the held-out corpus.
func BenchmarkAccuracy(b *testing.B) {
	cases := loadCorpus(b)
	var a accuracy
	for i := 0; i < b.N; i++ {
		a = measure(cases)
	}
	b.ReportMetric(100*a.top1(), "top1_%")
	b.ReportMetric(100*ratio(a.correctConfident, a.expectedMapped), "correct>0.9_%")
	b.ReportMetric(float64(a.wrongConfident), "wrong>0.9")
	b.ReportMetric(float64(a.columns), "columns")
	b.ReportMetric(100*ratio(a.enumCorrect, a.enums), "enum_%")
	printf := func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	a.report(printf, "mapping accuracy, corpus (mapping/testdata/cases)")
	measure(loadHeldOut(b)).report(printf, "mapping accuracy, held-out corpus (mapping/testdata/cases.json)")
}

// BenchmarkSuggestWideWithEnums is the 300 × 300 case where a third of the fields are enums
// and every column has samples to compare with their options.
func BenchmarkSuggestWideWithEnums(b *testing.B) {
	cols, dst := wide(300)
	for i := range dst.Fields {
		if i%3 == 0 {
			dst.Fields[i].Type = model.FieldEnum
			dst.Fields[i].Config = &model.FieldConfig{Options: opts("active", "Active", "inactive", "Inactive", "pending", "Pending review",
				"DE", "Germany", "FR", "France", "full_time", "Full-time", "part_time", "Part-time", "other", "Other")}
		}
	}
	for i := range cols {
		cols[i].Samples = append(cols[i].Samples, "Aktiv", "some text", "Frankreich", "42", "ja")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mapping.Suggest(cols, dst, mapping.History{}, mapping.Options{})
	}
}
