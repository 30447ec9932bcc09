// Shared helpers for the wire-format suite: start a real Sluice binary on a free port with a
// fresh data directory and hand back an @flatfile/api client pointed at it.
import { spawn, execFileSync } from "node:child_process";
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
export const { FlatfileClient, Flatfile } = require("@flatfile/api");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SECRET = "sk_wiretest_secret_0001";
export const PUBLISHABLE = "pk_wiretest_public_0001";
export const EMAIL = "admin@example.com";
export const PASSWORD = "wire-test-pass-1";

let builtBinary;
function binary() {
  if (process.env.SLUICE_BIN) return process.env.SLUICE_BIN;
  if (!builtBinary) {
    builtBinary = path.join(mkdtempSync(path.join(os.tmpdir(), "sluice-bin-")), "sluice");
    execFileSync("go", ["build", "-o", builtBinary, "./cmd/sluice"], { cwd: root, stdio: "inherit" });
  }
  return builtBinary;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

// With SLUICE_TEST_DATABASE_URL (postgres://…) each server gets a fresh PostgreSQL database,
// kept with its data directory across restarts and dropped by stop().
const pgBase = process.env.SLUICE_TEST_DATABASE_URL ?? "";
const databases = new Map(); // data directory → database URL
let dbCount = 0;

function psql(sql) {
  execFileSync("psql", [pgBase, "-v", "ON_ERROR_STOP=1", "-qc", sql], { stdio: ["ignore", "ignore", "inherit"] });
}

/** postgresURL is the PostgreSQL test server's URL, "" when the suite runs on SQLite. */
export const postgresURL = pgBase.startsWith("postgres") ? pgBase : "";

function databaseFor(dataDir, share) {
  if (!postgresURL) return {};
  if (share) databases.set(dataDir, { ...databases.get(share.dataDir), shared: true });
  if (!databases.has(dataDir)) {
    const name = `sluice_w${process.pid}_${++dbCount}`;
    psql(`CREATE DATABASE ${name}`);
    const u = new URL(pgBase);
    u.pathname = "/" + name;
    databases.set(dataDir, { name, url: u.toString() });
  }
  return { SLUICE_DATABASE_URL: databases.get(dataDir).url, SLUICE_MASTER_KEY: "wiretest-master-key-0123456789abcdef" };
}

function dropDatabase(dataDir) {
  const db = databases.get(dataDir);
  if (!db) return;
  databases.delete(dataDir);
  if (db.shared) return; // the first node's, dropped with it
  try {
    psql(`DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`);
  } catch (e) {
    console.warn(`could not drop the test database ${db.name}: ${e.message}`); // cleanup only
  }
}

/** startServer starts Sluice and resolves once /healthz answers. Call stop() in after().
 * opts.dataDir reuses a data directory (a restart); opts.env adds settings. kill() ends the
 * process with SIGKILL, as a crash would, and leaves the data directory for a restart.
 * opts.shareDatabaseOf (another server) starts a second node on that server's PostgreSQL
 * database, with a data directory of its own. */
export async function startServer(opts = {}) {
  const port = await freePort();
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "sluice-wire-"));
  const child = spawn(binary(), [], {
    env: {
      ...process.env,
      ...databaseFor(dataDir, opts.shareDatabaseOf),
      ...(opts.env ?? {}),
      SLUICE_ADDR: `127.0.0.1:${port}`,
      SLUICE_DATA_DIR: dataDir,
      SLUICE_ALLOW_PRIVATE_WEBHOOKS: "1", // the tests' webhook receivers listen on 127.0.0.1
      SLUICE_ADMIN_EMAIL: EMAIL,
      SLUICE_ADMIN_PASSWORD: PASSWORD,
      SLUICE_SECRET_KEY: SECRET,
      SLUICE_PUBLISHABLE_KEY: PUBLISHABLE,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20000;
  for (;;) {
    try {
      const r = await fetch(`${baseURL}/healthz`);
      if (r.ok) break;
    } catch {}
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sluice did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
    dropDatabase(dataDir);
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
  };
  return { port, baseURL, dataDir, database: databases.get(dataDir)?.url, stop, kill, output: () => output, client: (token = SECRET) => new FlatfileClient({ token, apiUrl: baseURL }) };
}

/** failOnValidationWarnings makes a test fail when the client could not deserialize a response. */
export function watchValidationWarnings() {
  const seen = [];
  const orig = console.warn;
  console.warn = (...args) => {
    const msg = args.map(String).join(" ");
    if (msg.includes("Failed to validate")) seen.push(msg);
    orig(...args);
  };
  return { seen, restore: () => (console.warn = orig) };
}

/** raw sends a request with fetch and returns {status, body}. */
export async function raw(baseURL, method, p, { token = SECRET, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined && !h["Content-Type"]) h["Content-Type"] = "application/json";
  const res = await fetch(baseURL + p, { method, headers: h, body: typeof body === "string" || body instanceof Uint8Array ? body : body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** adminToken signs the bootstrap admin in (userCredentials) and returns the access token:
 * the outbox, account settings and personal access tokens are for account users, not keys. */
export async function adminToken(baseURL) {
  const res = await raw(baseURL, "POST", "/v1/auth", { token: "", body: { type: "userCredentials", email: EMAIL, password: PASSWORD } });
  if (res.status !== 200) throw new Error(`admin sign-in: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.accessToken;
}

/** rejects asserts that promise fails with the given HTTP status and an errors body. */
export async function rejectsWith(promise, status, pattern) {
  try {
    await promise;
  } catch (err) {
    if (err.statusCode !== status) throw new Error(`got status ${err.statusCode} (${err.message}), want ${status}`);
    const errors = err.body?.errors;
    if (!Array.isArray(errors) || !errors[0]?.message) throw new Error(`got body ${JSON.stringify(err.body)}, want {errors:[{message}]}`);
    const text = errors.map((e) => e.message).join(" | ");
    if (pattern && !pattern.test(text)) throw new Error(`got messages "${text}", want ${pattern}`);
    return err;
  }
  throw new Error(`call succeeded, want HTTP ${status}`);
}

/**
 * useServer registers before/after hooks that start a server with a client for the test file
 * and, at the end, stop it and fail on any deserialization warning the client logged. Read
 * ctx.srv and ctx.api inside tests.
 */
export function useServer() {
  const ctx = {};
  before(async () => {
    ctx.srv = await startServer();
    ctx.api = ctx.srv.client();
    ctx.warnings = watchValidationWarnings();
  });
  after(async () => {
    ctx.warnings.restore();
    await ctx.srv.stop();
    assert.deepEqual(ctx.warnings.seen, [], "the client logged deserialization warnings");
  });
  return ctx;
}

/** until polls cond (which may be async) every 25 ms until it holds, for at most ms. */
export async function until(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * startRunner runs agents/runner.mjs with a listener module against srv and resolves once it
 * listens. log() is what it printed so far (for failure messages); stop() ends it.
 */
export async function startRunner(srv, module) {
  const runner = spawn(process.execPath, ["agents/runner.mjs", "--url", srv.baseURL, "--token", SECRET, module], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  runner.stdout.on("data", (d) => (log += d));
  runner.stderr.on("data", (d) => (log += d));
  const deadline = Date.now() + 10000;
  while (!log.includes("listening")) {
    if (Date.now() > deadline || runner.exitCode !== null) throw new Error(`runner did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { log: () => log, stop: () => runner.kill("SIGTERM") };
}
