# Sluice: `make run` to start a local server, `make test` for everything CI checks.
GO      ?= go
BIN     := bin/sluice
STAMP   := node_modules/.installed
# The SQLite driver with FTS5 (a sheet's search index, store/search_index.go). Without the tag
# Sluice still builds and runs; searches then always scan.
export GOFLAGS := -tags=sqlite_fts5 $(GOFLAGS)
UPSTREAM_STAMP := e2e-upstream/node_modules/.installed

.PHONY: run build generate lint test test-go test-pg test-wire test-upstream test-fuzz check bench bench-records bench-files bench-pg bench-load clean

run: build
	./$(BIN)

build: generate
	$(GO) build -o $(BIN) ./cmd/sluice

# npm packages: tailwindcss, htmx and the @flatfile/api client used by the wire tests.
$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $(STAMP)

# templ output (committed) plus the CSS and htmx bundle (build output, embedded in the binary).
generate: $(STAMP)
	$(GO) tool templ generate
	npx tailwindcss -c tailwind.config.js -i static/css/input.css -o static/css/app.css --minify
	cp node_modules/htmx.org/dist/htmx.min.js static/js/htmx.min.js

# golangci-lint with the linters .golangci.yml names and why, installed at a pinned version
# through the Go module proxy into bin/ on first use.
GOLANGCI_VERSION := v2.15.0
GOLANGCI := bin/golangci-lint-$(GOLANGCI_VERSION)
$(GOLANGCI):
	GOBIN=$(CURDIR)/bin/.golangci $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv bin/.golangci/golangci-lint $(GOLANGCI) && rmdir bin/.golangci

lint: generate $(GOLANGCI)
	$(GOLANGCI) run ./...

# Formatting, vet, the linters, generated code that matches its source, and a tidy go.mod.
check: generate lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	@git diff --exit-code --stat -- '*_templ.go' || (echo "templ output is stale: run make generate and commit"; exit 1)
	$(GO) mod tidy
	@git diff --exit-code --stat -- go.mod go.sum || (echo "go.mod is not tidy: run go mod tidy and commit"; exit 1)

# On SQLite, whatever SLUICE_TEST_DATABASE_URL says (test-pg runs them on PostgreSQL).
# The browser test runs on its own, after the rest, so chromium does not compete with the
# other packages' tests for this machine's two cores.
test-go: generate
	SLUICE_REQUIRE_FTS5=1 SLUICE_TEST_DATABASE_URL= $(GO) test -count=1 -skip '^TestBrowser' ./...
	SLUICE_TEST_DATABASE_URL= $(GO) test -count=1 -run '^TestBrowser' ./web/

# The same tests on PostgreSQL: the store's, jobs', events', the web app's (but the browser
# test) and the @flatfile/api wire suite. Needs SLUICE_TEST_DATABASE_URL=postgres://… of a
# role that may create databases (each test and each server gets its own); .ci/postgres
# installs and starts Debian's PostgreSQL and prints one. Without it they are skipped, loudly
# (SLUICE_REQUIRE_POSTGRES=1 makes that a failure, as in CI).
PG_PACKAGES := ./store/... ./blobs/ ./jobs/ ./events/ ./handlers/... ./web/ ./cmd/sluice/
test-pg: build $(UPSTREAM_STAMP)
	@if [ -z "$(SLUICE_TEST_DATABASE_URL)" ]; then \
	  echo "*** PostgreSQL tests skipped: set SLUICE_TEST_DATABASE_URL (SLUICE_TEST_DATABASE_URL=\$$(.ci/postgres) make test-pg)"; \
	  test -z "$(SLUICE_REQUIRE_POSTGRES)"; \
	else \
	  $(GO) test -count=1 -skip '^TestBrowser' $(PG_PACKAGES) && \
	  SLUICE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run '^TestKilledExtractionLeavesNoRows$$' ./bench/ && \
	  SLUICE_BIN=$(CURDIR)/$(BIN) node --test --test-concurrency=2 wiretest/ && \
	  SLUICE_BIN=$(CURDIR)/$(BIN) node e2e-upstream/run.mjs; \
	fi

test-wire: build
	SLUICE_TEST_DATABASE_URL= SLUICE_BIN=$(CURDIR)/$(BIN) node --test --test-concurrency=2 wiretest/

# Flatfile's own e2e specs as published inside their plugin packages on npm (issue 20),
# unchanged, run by jest against a Sluice server (e2e-upstream/: record-hook, space-configure,
# automap). SQLite here; test-pg runs them on PostgreSQL too.
$(UPSTREAM_STAMP): e2e-upstream/package.json e2e-upstream/package-lock.json
	cd e2e-upstream && npm ci --no-audit --no-fund --loglevel=error
	@touch $(UPSTREAM_STAMP)

test-upstream: build $(UPSTREAM_STAMP)
	SLUICE_TEST_DATABASE_URL= SLUICE_BIN=$(CURDIR)/$(BIN) node e2e-upstream/run.mjs

# Fuzzing (issue 19): each target for FUZZTIME (a new crash is written to the package's
# testdata/fuzz/ and fails the run; commit it as a regression case). Go's fuzzer sometimes
# ends with "context deadline exceeded" when an input is still running at the deadline; with
# no failing input written that is reported, not failed. The corpus in testdata/
# also runs as plain tests in test-go.
FUZZTIME ?= 10s
FUZZ_TARGETS := handlers/api:FuzzDetectHeaderRequest extract:FuzzDelimited extract:FuzzJSON extract:FuzzXLSX extract:FuzzDetectHeader ffql:FuzzFFQL records:FuzzCanonicalString
test-fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; echo "fuzz $$pkg $$fn for $(FUZZTIME)"; \
	  if ! $(GO) test ./$$pkg/ -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -parallel 2 >/tmp/sluice-fuzz.log 2>&1; then \
	    if grep -q "Failing input written" /tmp/sluice-fuzz.log; then cat /tmp/sluice-fuzz.log; exit 1; fi; \
	    echo "  (the fuzzer stopped without a failing input: $$(tail -n 3 /tmp/sluice-fuzz.log | tr '\n' ' '))"; \
	  fi; done

test: check test-go test-wire test-upstream test-pg test-fuzz

# The records benchmark (store/recordset/records_bench_test.go): SLUICE_BENCH_ROWS records (default
# 1,000,000), each phase SLUICE_BENCH_REPEAT times (default 3), medians printed as a table.
bench-records:
	$(GO) test -run '^$$' -bench '^BenchmarkRecords$$' -benchtime 1x -timeout 30m ./store/recordset/

# The upload benchmark (bench/): a generated SLUICE_BENCH_ROWS-row CSV (default 1,000,000)
# uploaded over HTTP to the built server, beside the sqlite3 shell's .import of the same file.
bench-files: build
	SLUICE_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkFileImport$$' -benchtime 1x -timeout 30m ./bench/

# The upload benchmark on PostgreSQL (issue 15): the same file uploaded to a server on a fresh
# database of SLUICE_TEST_DATABASE_URL beside psql's \copy, then record pages and the Errors tab.
bench-pg: build
	@test -n "$(SLUICE_TEST_DATABASE_URL)" || (echo "set SLUICE_TEST_DATABASE_URL (SLUICE_TEST_DATABASE_URL=\$$(.ci/postgres) make bench-pg)"; exit 1)
	SLUICE_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkFileImportPostgres$$' -benchtime 1x -timeout 60m ./bench/

# The load benchmark (bench/load_bench_test.go): 20 writers of 10-record batches with
# Idempotency-Keys and 20 readers for SLUICE_LOAD_SECONDS (default 20) per kind of load, against
# one SQLite node and, with SLUICE_TEST_DATABASE_URL, one and two PostgreSQL nodes; records/s,
# p50/p99, acknowledged, lost and duplicated records.
bench-load: build
	SLUICE_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkLoad$$' -benchtime 1x -timeout 60m ./bench/

bench: build bench-records bench-files
	$(GO) test -run '^$$' -skip '^Benchmark(Records|FileImport|FileImportPostgres|Load)$$' -bench . -benchtime 1x ./...

clean:
	rm -rf bin static/css/app.css static/js/htmx.min.js
