#!/usr/bin/env node
// Sluice listener runner: follows a Sluice server's events and hands each one to a real
// @flatfile/listener FlatfileListener, so listeners and plugins written for Flatfile (record
// hooks, job handlers, space configure) run against Sluice unchanged.
//
//   node agents/runner.mjs --url http://127.0.0.1:8080 --token sk_… --environment us_env_… ./my-listener.js
//
// The module's default export is a listener function `(listener) => { … }` or a FlatfileListener.
// Options may also come from SLUICE_URL, SLUICE_TOKEN and SLUICE_ENVIRONMENT_ID.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string", default: process.env.SLUICE_URL ?? "http://127.0.0.1:8080" },
    token: { type: "string", default: process.env.SLUICE_TOKEN },
    environment: { type: "string", default: process.env.SLUICE_ENVIRONMENT_ID },
    interval: { type: "string", default: "200" },
    since: { type: "string" },
  },
});
if (positionals.length !== 1 || !opts.token) {
  console.error("usage: runner.mjs --url <sluice url> --token <sk_… or access token> [--environment us_env_…] <listener module>");
  process.exit(2);
}
const base = opts.url.replace(/\/+$/, "").replace(/\/v1$/, "");

// Plugins build their API clients when they are imported, so the variables must be set first.
process.env.AGENT_INTERNAL_URL = base;
process.env.FLATFILE_API_URL = base;
process.env.FLATFILE_BEARER_TOKEN = opts.token;
process.env.FLATFILE_API_KEY = opts.token;

const { FlatfileListener, EventDriver } = await import("@flatfile/listener");

/** SluiceDriver polls GET /v1/events in creation order and dispatches each event once. */
export class SluiceDriver extends EventDriver {
  constructor({ base, token, environmentId, intervalMs, since }) {
    super();
    Object.assign(this, { base, token, environmentId, intervalMs });
    this.cursor = since ?? new Date();
    this.seen = new Map(); // event id -> createdAt ms, pruned behind the cursor
    this.stopped = false;
  }

  start() {
    this.loop = this.run();
    return this;
  }

  async stop() {
    this.stopped = true;
    await this.loop;
  }

  async run() {
    while (!this.stopped) {
      try {
        await this.tick();
      } catch (err) {
        console.error(`[sluice-runner] polling failed: ${err.message}`);
      }
      await new Promise((r) => setTimeout(r, this.intervalMs));
    }
  }

  async page(number) {
    const q = new URLSearchParams({ since: this.cursor.toISOString(), includeAcknowledged: "true", pageSize: "100", pageNumber: String(number) });
    if (this.environmentId) q.set("environmentId", this.environmentId);
    const res = await fetch(`${this.base}/v1/events?${q}`, { headers: { Authorization: `Bearer ${this.token}` } });
    if (!res.ok) throw new Error(`GET /v1/events answered ${res.status}: ${await res.text()}`);
    return (await res.json()).data ?? [];
  }

  async tick() {
    for (let n = 1; ; n++) {
      const events = await this.page(n);
      for (const e of events) {
        if (this.seen.has(e.id)) continue;
        const at = new Date(e.createdAt);
        this.seen.set(e.id, at.getTime());
        if (at > this.cursor) this.cursor = at;
        // Serial, like the platform: a listener sees one event at a time. (EventDriver's own
        // dispatchEvent does not return the listener's promise, so call the handler directly.)
        await this.handler.dispatchEvent(e);
      }
      if (events.length < 100) break;
    }
    for (const [id, at] of this.seen) if (at < this.cursor.getTime()) this.seen.delete(id);
  }
}

const mod = await import(pathToFileURL(path.resolve(positionals[0])).href);
let entry = mod.default ?? mod;
if (entry && typeof entry === "object" && "default" in entry) entry = entry.default;
const listener = entry instanceof FlatfileListener ? entry : FlatfileListener.create(entry);
// The listener joins its base and relative paths such as "v1/…" without a separator.
listener.setVariables?.({ accessToken: opts.token, apiUrl: base + "/" });
const driver = new SluiceDriver({
  base,
  token: opts.token,
  environmentId: opts.environment,
  intervalMs: Number(opts.interval),
  since: opts.since ? new Date(opts.since) : undefined,
});
listener.mount(driver);
driver.start();
console.log(`[sluice-runner] listening to ${base} for ${positionals[0]}`);

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    await driver.stop();
    process.exit(0);
  });
}
