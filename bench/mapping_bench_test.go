package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// BenchmarkMapping maps SLUICE_BENCH_ROWS records (default 1,000,000) from a source sheet into
// a destination sheet with the built-in map job, beside the store's raw insert of the same
// rows measured in the same run. Target: mapping at ≥ 50% of the insert rate.
func BenchmarkMapping(b *testing.B) {
	rows := envInt("SLUICE_BENCH_ROWS", 1_000_000)
	ctx := context.Background()
	db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	res, err := db.EnsureBootstrap(ctx, store.Bootstrap{AccountName: "bench", AdminEmail: "bench@example.com"})
	if err != nil {
		b.Fatal(err)
	}
	sp := &model.Space{AccountID: res.Account.ID, EnvironmentID: res.Environment.ID, Name: "bench"}
	if err := db.CreateSpace(ctx, sp, "bench"); err != nil {
		b.Fatal(err)
	}
	srcKeys := []string{"Vorname", "Nachname", "E-Mail", "Telefon", "Firma", "Stadt", "Land", "PLZ"}
	dstKeys := []string{"first_name", "last_name", "email", "phone", "company", "city", "country", "postal_code"}
	sheet := func(name string, keys []string) *model.Sheet {
		cfg := model.SheetConfig{Name: name, Slug: name}
		for _, k := range keys {
			cfg.Fields = append(cfg.Fields, model.Field{Key: k, Type: model.FieldString})
		}
		return &model.Sheet{Config: cfg}
	}
	src := &model.Workbook{AccountID: sp.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Name: "src", Sheets: []*model.Sheet{sheet("src", srcKeys)}}
	dst := &model.Workbook{AccountID: sp.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Name: "dst", Sheets: []*model.Sheet{sheet("dst", dstKeys)}}
	for _, w := range []*model.Workbook{src, dst} {
		if err := db.CreateWorkbook(ctx, w, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	gen := func() ([]json.RawMessage, error) {
		if n == rows {
			return nil, io.EOF
		}
		n++
		out := make([]json.RawMessage, 8)
		for i := range out {
			out[i] = json.RawMessage(fmt.Sprintf(`"v%d-%d"`, i, n))
		}
		return out, nil
	}
	start := time.Now()
	if _, err := db.InsertStream(ctx, src.Sheets[0].ID, srcKeys, gen, 10000, recordset.WriteOptions{Actor: "bench", DisableHooks: true}); err != nil {
		b.Fatal(err)
	}
	insert := time.Since(start)

	svc := jobs.New(db, db)
	cfg, _ := json.Marshal(map[string]string{"sourceSheetId": src.Sheets[0].ID, "destinationSheetId": dst.Sheets[0].ID})
	j := &model.Job{AccountID: sp.AccountID, EnvironmentID: sp.EnvironmentID, Type: "workbook", Operation: ingest.MapOperation, Source: src.ID, Destination: dst.ID, Config: cfg, Trigger: "immediate"}
	if err := svc.Prepare(ctx, j); err != nil {
		b.Fatal(err)
	}
	if err := svc.Create(ctx, j, "bench"); err != nil {
		b.Fatal(err)
	}
	m := &ingest.Service{DB: db, Jobs: svc, Blobs: blobs.Disk{Dir: b.TempDir()}}
	b.ResetTimer()
	start = time.Now()
	out, err := m.Map(ctx, j)
	took := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	counts, err := db.GetRecordCounts(ctx, sp.AccountID, dst.Sheets[0].ID)
	if err != nil || counts.Total != int64(rows) {
		b.Fatalf("destination holds %v records (%v), want %d; outcome %q", counts, err, rows, out.Message)
	}
	ratio := insert.Seconds() / took.Seconds()
	b.ReportMetric(float64(rows)/took.Seconds(), "mapped-rows/s")
	b.ReportMetric(100*ratio, "pct-of-insert-rate")
	fmt.Printf("mapping: %d records in %.1fs (%.0f rows/s); raw store insert %.1fs (%.0f rows/s); mapping at %.0f%% of the insert rate (target >= 50%%)\n",
		rows, took.Seconds(), float64(rows)/took.Seconds(), insert.Seconds(), float64(rows)/insert.Seconds(), 100*ratio)
}
