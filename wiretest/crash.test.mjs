// Issue 4's "killing the server mid-job loses no event and no job": a webhook agent whose
// receiver is down while events pile up, a job executing, then the server is killed with
// SIGKILL and started again on the same data. Every queued event still reaches the agent,
// the job is still executing, and the events are all listed.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startServer, watchValidationWarnings, until } from "./lib.mjs";


test("a SIGKILL mid-job loses no event, no delivery and no job", async () => {
  const warnings = watchValidationWarnings();
  let up = false;
  const delivered = new Map(); // space id → deliveries
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (!up) return res.writeHead(503).end();
      const ev = JSON.parse(body);
      delivered.set(ev.context.spaceId, (delivered.get(ev.context.spaceId) ?? 0) + 1);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const env = { SLUICE_WEBHOOK_RETRY_BASE: "300ms", SLUICE_WEBHOOK_MAX_ATTEMPTS: "20" };
  let srv = await startServer({ env });
  try {
    let api = srv.client();
    const started = Date.now();
    const envId = (await api.environments.list()).data[0].id;
    await api.agents.create({ environmentId: envId, body: { slug: "crash-hook", topics: ["space:created"], options: { webhookUrl: `http://127.0.0.1:${receiver.address().port}/hook` } } });
    const host = (await api.spaces.create({ name: "Host", environmentId: envId })).data;
    const job = (await api.jobs.create({ type: "space", operation: "long-export", source: host.id, trigger: "immediate" })).data;
    await api.jobs.ack(job.id, { info: "halfway", progress: 50 });
    const spaces = [host.id];
    for (const name of ["One", "Two", "Three"]) spaces.push((await api.spaces.create({ name, environmentId: envId })).data.id);

    await srv.kill(); // no shutdown: deliveries were failing and queued, the job executing
    srv = await startServer({ env, dataDir: srv.dataDir });
    api = srv.client();
    up = true;

    // Each failed attempt doubles the wait, so the next attempt can be as far away as the time
    // the first server ran (a slow, busy machine runs it longer): wait for that on top.
    await until(() => spaces.every((id) => delivered.has(id)), 15000 + 3 * (Date.now() - started));
    const after = (await api.jobs.get(job.id)).data;
    assert.equal(after.status, "executing", "the executing job survives the crash");
    assert.equal(after.info, "halfway");
    const { data } = await api.events.list({ environmentId: envId, topic: "space:created", includeAcknowledged: true, pageSize: 100 });
    for (const id of spaces) assert.ok(data.some((e) => e.context.spaceId === id), `space:created of ${id} is listed`);
    assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
  } finally {
    warnings.restore();
    receiver.close();
    await srv.stop();
  }
});
