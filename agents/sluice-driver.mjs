// SluiceStreamDriver: an event driver for @flatfile/listener that follows a Sluice server's
// events as they happen. It asks GET /v1/subscription (Flatfile's events.getEventToken) for a
// token and the scope's Server-Sent Events stream, reads it, resumes after a dropped
// connection from the last event it saw (Last-Event-ID), and hands each event once, in
// order, to the listener — what @flatfile/listener-driver-pubsub does with PubNub on
// Flatfile's cloud. It is also exported as PubSubDriver, so code written for that package
// (Flatfile's own test harness, @flatfile/utils-testing) runs against Sluice when the
// package name is aliased to this module.
//
//   import { SluiceStreamDriver } from "./agents/sluice-driver.mjs";
//   const driver = new SluiceStreamDriver("us_env_…", { apiUrl: "http://127.0.0.1:8080", token: "sk_…" });
//   await driver.start();
//   listener.mount(driver);
//
// apiUrl and token default to FLATFILE_API_URL and FLATFILE_BEARER_TOKEN / FLATFILE_API_KEY,
// as the plugins read them.
import { EventDriver } from "@flatfile/listener";

export class SluiceStreamDriver extends EventDriver {
  /**
   * @param {string} scope an environment (us_env_…) or space (us_sp_…) id
   * @param {{apiUrl?: string, token?: string, retryMs?: number}} [opts]
   */
  constructor(scope, opts = {}) {
    super();
    this.scope = scope;
    this.base = (opts.apiUrl ?? process.env.FLATFILE_API_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "").replace(/\/v1$/, "");
    this.token = opts.token ?? process.env.FLATFILE_BEARER_TOKEN ?? process.env.FLATFILE_API_KEY;
    this.retryMs = opts.retryMs ?? 500;
    this.lastId = undefined;
    this.seen = new Set();
    this.queue = Promise.resolve();
  }

  /** start subscribes and resolves once the stream is open. */
  async start() {
    this.stopped = false;
    const res = await fetch(`${this.base}/v1/subscription?scope=${encodeURIComponent(this.scope)}`, { headers: { Authorization: `Bearer ${this.token}` } });
    if (!res.ok) throw new Error(`GET /v1/subscription answered ${res.status}: ${await res.text()}`);
    const sub = (await res.json()).data;
    this.streamToken = sub.token;
    this.streamUrl = this.base + sub.streamUrl;
    await new Promise((opened, failed) => {
      this.loop = this.follow(opened, failed);
    });
    return this;
  }

  /** shutdown closes the stream; events already received are still handed on. */
  shutdown() {
    this.stopped = true;
    this.abort?.abort();
  }

  async follow(opened, failed) {
    let first = true;
    while (!this.stopped) {
      this.abort = new AbortController();
      try {
        const headers = { Authorization: `Bearer ${this.streamToken}`, Accept: "text/event-stream" };
        if (this.lastId) headers["Last-Event-ID"] = this.lastId;
        const res = await fetch(this.streamUrl, { headers, signal: this.abort.signal });
        if (!res.ok) throw new Error(`GET ${this.streamUrl} answered ${res.status}`);
        if (first) {
          first = false;
          opened();
        }
        await this.read(res.body);
      } catch (err) {
        if (this.stopped) break;
        if (first) {
          failed(err);
          return;
        }
        console.error(`[sluice-driver] stream: ${err.message}; reconnecting`);
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, this.retryMs));
    }
  }

  // read parses Server-Sent Events: `id:` and `data:` lines, a blank line ends a message.
  async read(body) {
    const decoder = new TextDecoder();
    let buf = "";
    let id, data;
    for await (const chunk of body) {
      buf += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
        if (line === "") {
          if (data !== undefined) this.deliver(id, data);
          id = data = undefined;
        } else if (line.startsWith("id:")) {
          id = line.slice(3).trim();
        } else if (line.startsWith("data:")) {
          data = (data === undefined ? "" : data + "\n") + line.slice(5).trimStart();
        }
      }
    }
  }

  deliver(id, data) {
    if (id) {
      if (this.seen.has(id)) return;
      this.seen.add(id);
      this.lastId = id;
      if (this.seen.size > 10000) this.seen = new Set([...this.seen].slice(-5000));
    }
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    // One event at a time, in order, as the platform delivers them.
    this.queue = this.queue.then(() => this.handler?.dispatchEvent(event)).catch((err) => console.error(`[sluice-driver] listener: ${err.message}`));
  }
}

export { SluiceStreamDriver as PubSubDriver };
