package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// automationConfig sets the job timers and webhook retries.
type automationConfig struct {
	JobCheckEvery      time.Duration
	JobAckWindow       time.Duration
	ReadinessWait      time.Duration
	WebhookRetryBase   time.Duration
	WebhookMaxAttempts int
	RetentionEvery     time.Duration
	// Workers is how many built-in jobs run at once; JobBudget how long one may run.
	Workers   int
	JobBudget time.Duration
	// QueryTimeout bounds an API read, WriteTimeout an API write.
	QueryTimeout, WriteTimeout time.Duration
	// ClipLinkTTL is how long a public data clip's link lasts.
	ClipLinkTTL time.Duration
	// Limits are the caps on uploads and writes (columns, name and cell length, JSON depth).
	Limits limits.Caps
	// AllowPrivateWebhooks lets webhooks reach loopback and private addresses (development).
	AllowPrivateWebhooks bool
	// NodeID names this node among nodes sharing a PostgreSQL database; a node silent for
	// NodeTimeout is taken over by the others (its running jobs and extractions fail).
	NodeID      string
	NodeTimeout time.Duration
	// SearchIndexMin is the size of sheet that gets a search index; 0: none does.
	SearchIndexMin int64
	// PageReads is how many record pages this node reads at once.
	PageReads int
	// DBWriters are this node's connections for writes on PostgreSQL.
	DBWriters int
}

// automationFlags registers the settings on fs, with defaults from the environment.
func automationFlags(fs *flag.FlagSet, getenv func(string) string, c *automationConfig) error {
	dur := func(dst *time.Duration, name, key string, def time.Duration, usage string) error {
		if v := getenv(key); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%s must be a positive duration such as 90s or 5m, got %q", key, v)
			}
			def = d
		}
		fs.DurationVar(dst, name, def, usage+" ("+key+")")
		return nil
	}
	for _, d := range []struct {
		dst       *time.Duration
		name, key string
		def       time.Duration
		usage     string
	}{
		{&c.JobCheckEvery, "job-check-every", "SLUICE_JOB_CHECK_EVERY", 5 * time.Minute, "routine check of executing jobs"},
		{&c.JobAckWindow, "job-ack-window", "SLUICE_JOB_ACK_WINDOW", 5 * time.Minute, "executing jobs not acknowledged for this long fail"},
		{&c.ReadinessWait, "readiness-wait", "SLUICE_READINESS_WAIT", 120 * time.Second, "space:configure jobs not done by then are stopped"},
		{&c.WebhookRetryBase, "webhook-retry-base", "SLUICE_WEBHOOK_RETRY_BASE", time.Second, "first webhook retry delay, doubled per attempt"},
		{&c.RetentionEvery, "retention-every", "SLUICE_RETENTION_EVERY", time.Hour, "routine purge of spaces past their environment's retention period"},
		{&c.NodeTimeout, "node-timeout", "SLUICE_NODE_TIMEOUT", store.DefaultNodeTimeout, "with PostgreSQL: a node silent this long is taken to have stopped, and its running jobs fail"},
		{&c.JobBudget, "job-budget", "SLUICE_JOB_BUDGET", 2 * time.Hour, "a built-in job (extraction, mapping, export) running longer is stopped and fails, keeping none of its records"},
		{&c.QueryTimeout, "query-timeout", "SLUICE_QUERY_TIMEOUT", 10 * time.Second, "an API read (GET) running longer is stopped and answers 503"},
		{&c.WriteTimeout, "write-timeout", "SLUICE_WRITE_TIMEOUT", 2 * time.Minute, "an API write running longer is stopped, rolled back, and answers 503"},
		{&c.ClipLinkTTL, "clip-link-ttl", "SLUICE_CLIP_LINK_TTL", 30 * 24 * time.Hour, "how long a public data clip's link lasts (renewSharedLink makes a new one)"},
	} {
		if err := dur(d.dst, d.name, d.key, d.def, d.usage); err != nil {
			return err
		}
	}
	for _, n := range []struct {
		dst       *int
		name, key string
		def       int
		usage     string
	}{
		{&c.WebhookMaxAttempts, "webhook-max-attempts", "SLUICE_WEBHOOK_MAX_ATTEMPTS", 6, "webhook attempts before giving up"},
		{&c.Workers, "workers", "SLUICE_WORKERS", runtime.NumCPU(), "built-in jobs run at once, fairly across spaces"},
		{&c.PageReads, "page-reads", "SLUICE_PAGE_READS", sqldb.DefaultPageReads(), "record pages (GET …/records) this node reads at once; the others wait their turn, so that many readers leave the writes a share of the cores"},
		{&c.DBWriters, "db-writers", "SLUICE_DB_WRITERS", sqldb.DefaultWriterConns, "PostgreSQL connections this node writes on; more writes at once wait in the node"},
		{&c.Limits.Columns, "max-columns", "SLUICE_MAX_COLUMNS", limits.Default().Columns, "fields per sheet and columns per uploaded table"},
		{&c.Limits.NameLength, "max-name-length", "SLUICE_MAX_NAME_LENGTH", limits.Default().NameLength, "characters of a header, field key or label"},
		{&c.Limits.CellLength, "max-cell-length", "SLUICE_MAX_CELL_LENGTH", limits.Default().CellLength, "characters of one value"},
		{&c.Limits.JSONDepth, "json-max-depth", "SLUICE_JSON_MAX_DEPTH", limits.Default().JSONDepth, "how deeply a JSON upload's objects may nest"},
		{&c.Limits.Records, "max-records-per-request", "SLUICE_MAX_RECORDS_PER_REQUEST", limits.Default().Records, "records one API write may carry"},
		{&c.Limits.FFQLTerms, "max-ffql-terms", "SLUICE_MAX_FFQL_TERMS", limits.Default().FFQLTerms, "comparisons one FFQL filter may make"},
	} {
		if v := getenv(n.key); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 1 {
				return fmt.Errorf("%s must be a whole number of at least 1, got %q", n.key, v)
			}
			n.def = i
		}
		fs.IntVar(n.dst, n.name, n.def, n.usage+" ("+n.key+")")
	}
	c.SearchIndexMin = sqldb.DefaultSearchIndexMin
	if v := getenv("SLUICE_SEARCH_INDEX_MIN"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("SLUICE_SEARCH_INDEX_MIN must be a whole number of records (0: no search indexes), got %q", v)
		}
		c.SearchIndexMin = n
	}
	fs.Int64Var(&c.SearchIndexMin, "search-index-min", c.SearchIndexMin, "sheets of this many records or more get a search index, built in the background (0: none; searches scan) (SLUICE_SEARCH_INDEX_MIN)")
	fs.StringVar(&c.NodeID, "node-id", getenv("SLUICE_NODE_ID"), "with PostgreSQL: this node's name, unique among the nodes; a restarted node with the same name fails the jobs it was running (SLUICE_NODE_ID, default host:data directory)")
	allow, _ := strconv.ParseBool(getenv("SLUICE_ALLOW_PRIVATE_WEBHOOKS"))
	fs.BoolVar(&c.AllowPrivateWebhooks, "allow-private-webhooks", allow, "let webhook URLs reach loopback and private addresses (SLUICE_ALLOW_PRIVATE_WEBHOOKS)")
	return nil
}

// automation is the background work of jobs and events: the shared event notifier (live
// streams), the job timers, webhook deliveries and the built-in job worker.
type automation struct {
	Notifier  *events.Notifier
	scheduler *jobs.Scheduler
	webhooks  *events.Webhooks
	worker    *jobs.Worker
	stopPurge context.CancelFunc
	purged    chan struct{}
	stopNode  func() // nil without PostgreSQL
	// Jobs and Ingest are the services the workers run on; the web app gets the same ones.
	Jobs   *jobs.Service
	Ingest *ingest.Service
	// Process is this run of the node, whose heartbeat tells the other nodes that the
	// Idempotency-Keys it has in flight are still running.
	Process store.Process
}

// startAutomation starts the background work on db.
func startAutomation(ctx context.Context, db *store.DB, c automationConfig, filesDir string, log *slog.Logger) (*automation, error) {
	a := &automation{Notifier: events.NewNotifier(db, 200*time.Millisecond, log), Process: store.NewProcess(c.NodeID)}
	if err := a.Notifier.Start(ctx); err != nil {
		return nil, err
	}
	svc := jobs.New(db, db)
	a.scheduler = jobs.NewScheduler(svc, jobs.Timers{CheckEvery: c.JobCheckEvery, AckWindow: c.JobAckWindow, ReadinessWait: c.ReadinessWait}, log)
	a.scheduler.Start()
	a.webhooks = &events.Webhooks{DB: db, Encode: api.EventBody, Log: log, RetryBase: c.WebhookRetryBase, MaxAttempts: c.WebhookMaxAttempts,
		AllowPrivate: c.AllowPrivateWebhooks, Node: c.NodeID}
	// Deliveries this node claimed and never attempted (it stopped during their attempts) are
	// due now rather than when their claims run out.
	if n, err := db.ReleaseDeliveryClaims(ctx, c.NodeID); err != nil {
		return nil, err
	} else if n > 0 {
		log.Warn("webhook deliveries interrupted by the last stop are due again", "deliveries", n)
	}
	a.webhooks.Start()
	a.worker = jobs.NewWorker(svc, 200*time.Millisecond, log) // a cheap indexed query; uploads start extracting within 0.2 s
	a.worker.Size, a.worker.Budget = c.Workers, c.JobBudget
	db.Configure(sqldb.Settings{SearchIndexMin: c.SearchIndexMin, Caps: c.Limits, PageReads: c.PageReads, WriterConns: c.DBWriters})
	a.worker.Handle(jobs.OpDeleteRecords, jobs.DeleteRecords(db))
	var live []string // other nodes' extractions go on
	if db.Postgres() {
		a.worker.Runner = c.NodeID
		if err := db.Heartbeat(ctx, c.NodeID, a.Process.Run); err != nil {
			return nil, err
		}
		nodes, err := db.Nodes(ctx, db.Now().Add(-c.NodeTimeout), true)
		if err != nil {
			return nil, err
		}
		live = slices.DeleteFunc(nodes, func(id string) bool { return id == c.NodeID })
	}
	if n, err := db.FailInterruptedFiles(ctx, store.InterruptedByRestart, live...); err != nil {
		return nil, err
	} else if n > 0 {
		log.Warn("extractions interrupted by the last stop were marked failed", "files", n)
	}
	bytes := blobs.For(db, filesDir)
	if n, err := removeOrphanUploads(ctx, db, filesDir); err != nil {
		return nil, err
	} else if n > 0 {
		log.Warn("uploads interrupted by the last stop were removed", "files", n)
	}
	// Jobs this node was running when it stopped fail now, and take back what they added.
	if n, err := a.worker.Recover(ctx); err != nil {
		return nil, err
	} else if n > 0 {
		log.Warn("jobs interrupted by the last stop were failed", "jobs", n)
	}
	files := &ingest.Service{DB: db, Jobs: svc, Blobs: bytes}
	a.Jobs, a.Ingest = svc, files
	a.worker.Handle("file:"+ingest.Operation, files.Handle)
	a.worker.HandleOutcome("sheet:"+ingest.ExportOperation, files.Export)
	a.worker.HandleOutcome("workbook:"+ingest.ExportOperation, files.Export)
	a.worker.HandleOutcome("workbook:"+ingest.MapOperation, files.Map)
	a.worker.HandleOutcome("workbook:transform", files.Map) // the spec's transform job: a map job driven by input.programId
	submit := &ingest.Submitter{Files: files}
	if c.AllowPrivateWebhooks {
		submit.Client = &http.Client{Timeout: time.Minute}
	}
	a.worker.HandleOutcome("workbook:"+ingest.SubmitOperation, submit.Submit)
	a.worker.Start()
	a.startRetention(db, c.RetentionEvery, bytes, log)
	if db.Postgres() {
		a.startNode(db, c.NodeID, c.NodeTimeout, log)
	}
	return a, nil
}

// startNode keeps this node's heartbeat and takes over the work of nodes that stopped
// sending theirs: their executing jobs fail (taking back what they added) and their
// extractions fail, once, by whichever node removes the silent one from the list.
func (a *automation) startNode(db *store.DB, id string, timeout time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	done, heard, counted := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a.stopNode = func() { cancel(); <-done; <-heard; <-counted }
	go func() {
		// Tables that grow fast get their statistics counted again within a second or so,
		// not at autovacuum's next look (KeepStatistics).
		defer close(counted)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, err := db.KeepStatistics(ctx); err != nil && ctx.Err() == nil {
				log.Warn("counting table statistics failed", "err", err)
			}
		}
	}()
	go func() {
		// Events committed on any node wake this node's streams at once (LISTEN/NOTIFY); the
		// notifier's poll stays as the fallback.
		defer close(heard)
		db.ListenEvents(ctx, a.Notifier.Wake, log)
	}()
	go func() {
		defer close(done)
		t := time.NewTicker(beatEvery(timeout))
		defer t.Stop()
		for {
			if err := a.nodeStep(ctx, db, id, timeout, log); err != nil && ctx.Err() == nil {
				log.Error("node heartbeat failed", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// beatEvery is how often a node beats: six times within the timeout after which the others
// take it for stopped.
func beatEvery(timeout time.Duration) time.Duration { return max(timeout/6, 100*time.Millisecond) }

func (a *automation) nodeStep(ctx context.Context, db *store.DB, id string, timeout time.Duration, log *slog.Logger) error {
	if err := db.Heartbeat(ctx, id, a.Process.Run); err != nil {
		return err
	}
	// Events a stopped node committed but did not number wait in the inbox for a run. The
	// beat waits for it no longer than a beat, so a slow run never makes this node look
	// silent, and goes on to the takeover whatever it found: a run that fails says so
	// itself and the next beat's runs again.
	sctx, cancel := context.WithTimeout(ctx, beatEvery(timeout))
	_ = db.SequenceEvents(sctx)
	cancel()
	cutoff := db.Now().Add(-timeout)
	silent, err := db.Nodes(ctx, cutoff, false)
	if err != nil || len(silent) == 0 {
		return err
	}
	live, err := db.Nodes(ctx, cutoff, true)
	if err != nil {
		return err
	}
	for _, node := range silent {
		mine, err := db.ForgetNode(ctx, node, cutoff)
		if err != nil || !mine {
			return err
		}
		jobs, err := a.worker.TakeOver(ctx, node, "Interrupted: the Sluice node running it ("+node+") stopped; run it again")
		if err != nil {
			return err
		}
		files, err := db.FailInterruptedFiles(ctx, store.InterruptedByNode, live...)
		if err != nil {
			return err
		}
		deliveries, err := db.ReleaseDeliveryClaims(ctx, node)
		if err != nil {
			return err
		}
		log.Warn("took over the work of a stopped node", "node", node, "jobsFailed", jobs, "filesFailed", files, "deliveriesReleased", deliveries)
	}
	return nil
}

// startRetention runs the retention purge at start and then every period: spaces whose last
// activity is older than their environment's metadata.retentionDays (default 365) lose their
// data, and their files' bytes are removed; events stay. With PostgreSQL it also removes
// bytes an upload stored without its file being recorded (a node stopped between the two)
// and local copies of uploads an hour old (another node extracted them). After the first
// purge it fills in the kinds of records written before they were kept (FillRecordKinds);
// after each, on PostgreSQL, the tally packs of blocks that have none (FillTallyPacks:
// sheets from before them, blocks whose packs edits dropped).
func (a *automation) startRetention(db *store.DB, every time.Duration, bytes blobs.Store, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	a.stopPurge, a.purged = cancel, make(chan struct{})
	go func() {
		defer close(a.purged)
		t := time.NewTicker(every)
		defer t.Stop()
		filled := false
		for {
			res, err := db.PurgeExpired(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Error("retention purge failed", "err", err)
			case res != nil && len(res.Spaces) > 0:
				for _, id := range res.Files {
					_ = bytes.Remove(ctx, id)
				}
				log.Info("retention purged expired spaces", "spaces", len(res.Spaces), "files", len(res.Files))
			}
			if !filled {
				filled = true
				if n, err := db.FillRecordKinds(ctx); err != nil && ctx.Err() == nil {
					log.Error("filling in record kinds failed", "err", err)
				} else if n > 0 {
					log.Info("filled in the kinds of records written before they were kept", "records", n)
				}
			}
			if n, err := db.FillTallyPacks(ctx); err != nil && ctx.Err() == nil {
				log.Error("packing values for distinct-value counts failed", "err", err)
			} else if n > 0 {
				log.Info("packed values for distinct-value counts", "blocks", n)
			}
			if db.Postgres() {
				if n, err := db.RemoveOrphanFileBytes(ctx, db.Now().Add(-time.Hour).UnixMilli()); err != nil && ctx.Err() == nil {
					log.Error("removing orphan file bytes failed", "err", err)
				} else if n > 0 {
					log.Warn("removed the bytes of uploads never recorded", "chunks", n)
				}
				blobs.RemoveCopies(bytes.Staging(), db.Now().Add(-time.Hour))
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// StopStreams ends open event streams; call it before shutting the HTTP server down.
func (a *automation) StopStreams() { a.Notifier.Stop() }

// Stop ends the background work, letting the step in progress finish.
func (a *automation) Stop() {
	a.Notifier.Stop()
	a.scheduler.Stop()
	a.webhooks.Stop()
	a.worker.Stop()
	a.stopPurge()
	<-a.purged
	if a.stopNode != nil {
		a.stopNode()
	}
}

// removeOrphanUploads deletes what uploads interrupted by a stop left in the files folder:
// parts still being received (<id>.part), local copies of database-held bytes (<id>.copy)
// and bytes whose file was never recorded.
func removeOrphanUploads(ctx context.Context, db *store.DB, dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		orphan := strings.HasSuffix(name, ".part") || strings.HasSuffix(name, blobs.CopySuffix)
		if !orphan && strings.HasPrefix(name, sqldb.PrefixFile) {
			known, err := db.FileKnown(ctx, name)
			if err != nil {
				return n, err
			}
			orphan = !known
		}
		if orphan {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
