// Package webtest is the harness of Sluice's HTTP tests: NewAPI starts the app on a fresh
// database (SQLite, or PostgreSQL when SLUICE_TEST_DATABASE_URL names one) with a
// bootstrapped account and its keys (Secret, Public), and Env's methods call the API and the
// pages the way a client does (MustCall, Upload, MustCreateSpace…). The API tests sit beside
// their handlers in handlers/api, the page tests in handlers/ui; the browser, security and
// idempotency suites stay in web.
package webtest
