// Command sluice runs the Sluice data-import server.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/mail"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
	"github.com/sluice/sluice/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sluice:", err)
		os.Exit(1)
	}
}

// config is the server configuration from flags and the environment.
type config struct {
	Addr           string
	DataDir        string
	DatabaseURL    string
	BaseURL        string
	AdminEmail     string
	AdminPassword  string
	SecretKey      string
	PublishableKey string
	Automation     automationConfig
}

func parseConfig(args []string, getenv func(string) string) (config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var c config
	fs := flag.NewFlagSet("sluice", flag.ContinueOnError)
	fs.StringVar(&c.Addr, "addr", env("SLUICE_ADDR", "127.0.0.1:8080"), "listen address (SLUICE_ADDR)")
	fs.StringVar(&c.DataDir, "data-dir", env("SLUICE_DATA_DIR", "./data"), "data directory (SLUICE_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", env("SLUICE_DATABASE_URL", ""), "postgres://… to share one PostgreSQL database between nodes; unset: SQLite in the data directory (SLUICE_DATABASE_URL)")
	fs.StringVar(&c.BaseURL, "base-url", env("SLUICE_BASE_URL", ""), "public base URL for links (SLUICE_BASE_URL)")
	fs.StringVar(&c.AdminEmail, "admin-email", env("SLUICE_ADMIN_EMAIL", "admin@localhost"), "first admin's e-mail (SLUICE_ADMIN_EMAIL)")
	fs.StringVar(&c.AdminPassword, "admin-password", env("SLUICE_ADMIN_PASSWORD", ""), "first admin's password (SLUICE_ADMIN_PASSWORD)")
	fs.StringVar(&c.SecretKey, "secret-key", env("SLUICE_SECRET_KEY", ""), "default environment's secret key (SLUICE_SECRET_KEY)")
	fs.StringVar(&c.PublishableKey, "publishable-key", env("SLUICE_PUBLISHABLE_KEY", ""), "default environment's publishable key (SLUICE_PUBLISHABLE_KEY)")
	if err := automationFlags(fs, getenv, &c.Automation); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.Automation.NodeID == "" {
		host, _ := os.Hostname()
		dir, _ := filepath.Abs(c.DataDir)
		c.Automation.NodeID = host + ":" + dir
	}
	if c.DatabaseURL != "" && !sqldb.IsPostgresURL(c.DatabaseURL) {
		return c, errors.New("SLUICE_DATABASE_URL must be a postgres:// or postgresql:// URL")
	}
	if c.DatabaseURL != "" && getenv("SLUICE_MASTER_KEY") == "" {
		// Each node would make its own key file: secrets sealed on one node, sessions and
		// tokens signed there would be unreadable on the others.
		return c, errors.New("SLUICE_DATABASE_URL needs SLUICE_MASTER_KEY, the same on every node (at least 32 characters)")
	}
	if c.SecretKey != "" && !strings.HasPrefix(c.SecretKey, "sk_") {
		return c, errors.New("SLUICE_SECRET_KEY must start with sk_")
	}
	if c.PublishableKey != "" && !strings.HasPrefix(c.PublishableKey, "pk_") {
		return c, errors.New("SLUICE_PUBLISHABLE_KEY must start with pk_")
	}
	if c.AdminPassword != "" && auth.PasswordProblem(c.AdminPassword, c.AdminEmail) != "" {
		return c, fmt.Errorf("SLUICE_ADMIN_PASSWORD must have at least %d characters and not be a common password", auth.MinPassword)
	}
	return c, nil
}

// openDatabase opens PostgreSQL when a database URL is given, else SQLite in the data
// directory.
func openDatabase(cfg config) (*store.DB, error) {
	if cfg.DatabaseURL != "" {
		db, err := store.OpenPostgres(cfg.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("SLUICE_DATABASE_URL: %w", err)
		}
		return db, nil
	}
	return store.Open(filepath.Join(cfg.DataDir, "sluice.db"))
}

// memoryLimit is the Go heap Sluice keeps itself under, collecting more often as it nears
// it (a soft limit: a bigger live heap is still allowed).
const memoryLimit = 240 << 20

// run starts Sluice and blocks until ctx is cancelled, then shuts down gracefully.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := parseConfig(args, getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if getenv("GOGC") == "" {
		// An import allocates a few short-lived values per cell: collecting at twice the live
		// heap instead of once cut a 1,000,000-row import by 5-9% (peak RSS 175 → 210 MiB,
		// within the 300 MiB budget; issue 17), at three times (with the SQLite writer's
		// page cache halved to make room) by 8% more (peak RSS 210-245 MiB). On PostgreSQL an
		// import holds batches four times as big and peaked at 352 MiB with 300: twice it
		// stays (266-283 MiB). GOGC set in the environment wins.
		pct := 300
		if cfg.DatabaseURL != "" {
			pct = 200
		}
		debug.SetGCPercent(pct)
	}
	if getenv("GOMEMLIMIT") == "" {
		// ... and collects sooner as the heap nears memoryLimit: an import of long rows on
		// PostgreSQL (20,000 rows a batch, a few batches in flight, GOGC 200) peaked at
		// 413-472 MiB. GOMEMLIMIT set in the environment wins.
		debug.SetMemoryLimit(memoryLimit)
	}
	if path := getenv("SLUICE_CPU_PROFILE"); path != "" {
		stop, err := cpuProfile(path)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	db, err := openDatabase(cfg)
	if err != nil {
		return err
	}
	defer db.Close()

	master, err := masterKey(cfg.DataDir, getenv("SLUICE_MASTER_KEY"), log)
	if err != nil {
		return err
	}
	signing, err := db.Setting(ctx, "jwt_signing_key", func() string { return sqldb.RandomString(48) })
	if err != nil {
		return err
	}
	// Everything that protects data at rest or signs credentials mixes in the master key,
	// which lives outside the database: a copied sluice.db alone opens no secret and forges
	// no token or session.
	derive := func(purpose string) []byte {
		k := sha256.Sum256([]byte(purpose + ":" + master + ":" + signing))
		return k[:]
	}
	sealer, err := auth.NewSealer(derive("secrets"))
	if err != nil {
		return err
	}
	db.Sealer = sealer
	if err := sealAtRest(ctx, db, signing, log); err != nil {
		return err
	}
	if err := bootstrap(ctx, db, cfg, stdout); err != nil {
		return err
	}
	sessionKey := derive("session")
	tokens := &auth.Tokens{Key: derive("jwt"), TTL: 24 * time.Hour, Now: db.Now}
	filesDir := filepath.Join(cfg.DataDir, "files")
	if err := os.MkdirAll(filesDir, 0o700); err != nil {
		return fmt.Errorf("files dir: %w", err)
	}
	auto, err := startAutomation(ctx, db, cfg.Automation, filesDir, log)
	if err != nil {
		return err
	}
	defer auto.Stop()
	app := web.New(web.Deps{
		Store: db, Auth: &auth.Authenticator{Keys: db, Tokens: tokens, PATs: db, Guests: db, Live: db}, Tokens: tokens, Log: log,
		BaseURL: cfg.BaseURL, SessionSecret: sessionKey, Events: auto.Notifier, FilesDir: filesDir, Sealer: sealer,
		AllowPrivateWebhooks: cfg.Automation.AllowPrivateWebhooks, QueryTimeout: cfg.Automation.QueryTimeout, WriteTimeout: cfg.Automation.WriteTimeout,
		ClipLinkTTL: cfg.Automation.ClipLinkTTL, Jobs: auto.Jobs, Ingest: auto.Ingest,
		Process: auto.Process, NodeTimeout: cfg.Automation.NodeTimeout,
		SMTP: mail.SMTP{Host: getenv("SLUICE_SMTP_HOST"), Port: getenv("SLUICE_SMTP_PORT"), User: getenv("SLUICE_SMTP_USER"),
			Password: getenv("SLUICE_SMTP_PASSWORD"), From: firstNonEmptyEnv(getenv("SLUICE_SMTP_FROM"), "sluice@localhost")},
	})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	base := cfg.BaseURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	log.Info("sluice listening", "addr", ln.Addr().String(), "url", base, "data", cfg.DataDir)
	fmt.Fprintf(stdout, "Sluice is running. Log in at %s/login\n", base)

	serveErr := make(chan error, 1)
	go func() { serveErr <- app.Listener(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; finishing in-flight requests")
	auto.StopStreams() // open event streams would otherwise hold the server up
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return app.ShutdownWithContext(shutdownCtx)
}

// bootstrap creates the account, environment, admin and keys on an empty database and prints
// the values it generated, once.
func bootstrap(ctx context.Context, db *store.DB, cfg config, stdout io.Writer) error {
	password := cfg.AdminPassword
	generated := password == ""
	if generated {
		password = sqldb.RandomString(16)
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	// Keys are stored as hashes: the generated ones are made here so they can be printed.
	secret, publishable := cfg.SecretKey, cfg.PublishableKey
	if secret == "" {
		secret = "sk_" + sqldb.RandomString(32)
	}
	if publishable == "" {
		publishable = "pk_" + sqldb.RandomString(32)
	}
	res, err := db.EnsureBootstrap(ctx, store.Bootstrap{AccountName: "Sluice", AdminEmail: cfg.AdminEmail, PasswordHash: hash,
		SecretKey: secret, PublishableKey: publishable})
	if err != nil {
		return err
	}
	if !res.Created {
		return nil
	}
	fmt.Fprintf(stdout, "First start: created account %s and environment %s (%s).\n", res.Account.ID, res.Environment.Name, res.Environment.ID)
	fmt.Fprintf(stdout, "  admin e-mail:    %s\n", cfg.AdminEmail)
	if generated {
		fmt.Fprintf(stdout, "  admin password:  %s   (generated; shown only now)\n", password)
	}
	if cfg.SecretKey == "" {
		fmt.Fprintf(stdout, "  %-16s %s   (generated; shown only now)\n", "secret key:", secret)
	}
	if cfg.PublishableKey == "" {
		fmt.Fprintf(stdout, "  %-16s %s   (generated; shown only now)\n", "publishable key:", publishable)
	}
	return nil
}

// firstNonEmptyEnv is the first non-empty of vals.
func firstNonEmptyEnv(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// cpuProfile writes a CPU profile of the whole run to path (SLUICE_CPU_PROFILE, for the
// benchmarks' profiles: go tool pprof -top bin/sluice path). The returned func ends it.
func cpuProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("SLUICE_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("SLUICE_CPU_PROFILE: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
