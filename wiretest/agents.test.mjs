// Issue 4 over the wire: agents through the official @flatfile/api 1.23.0 client (create,
// replace by slug, versions with agent_id, revert, list, get, delete, logs and executions),
// signed webhook deliveries to a local receiver, and the Server-Sent Events stream.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import crypto from "node:crypto";
import { startServer, watchValidationWarnings, rejectsWith, until, SECRET } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, envId;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  envId = (await api.environments.list()).data[0].id;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});


test("deploy, redeploy by slug, versions, revert, list, delete", async () => {
  const v1 = (await api.agents.create({ environmentId: envId, body: { topics: ["job:ready", "commit:created"], compiler: "js", source: "module.exports = 1", sourceMap: "{}", slug: "wire-agent" } })).data;
  assert.match(v1.id, /^us_ag_/);
  assert.equal(v1.environmentId, envId);
  assert.ok(v1.accountId && v1.createdAt instanceof Date);
  assert.deepEqual(v1.topics, ["job:ready", "commit:created"]);
  const v2 = (await api.agents.create({ environmentId: envId, body: { topics: ["job:ready"], compiler: "js", source: "module.exports = 2", slug: "wire-agent" } })).data;
  assert.equal(v2.id, v1.id);
  assert.equal(v2.source, "module.exports = 2");

  const versions = (await api.agents.listVersions(v1.id)).data;
  assert.deepEqual(versions.map((v) => v.version), [1, 2]);
  assert.equal(versions[0].agentId, v1.id, "agent_id on the wire maps to agentId");
  assert.match(versions[0].id, /^us_agv_/);
  assert.ok(versions[0].createdAt instanceof Date);
  const reverted = (await api.agents.revert(v1.id, versions[0].id)).data;
  assert.equal(reverted.version, 3);
  assert.equal(reverted.origin, 1);
  assert.equal((await api.agents.get(v1.id, { environmentId: envId })).data.source, "module.exports = 1");

  await api.agents.create({ environmentId: envId, body: { slug: "other", topics: ["space:created"] } });
  const all = await api.agents.list({ environmentId: envId });
  assert.equal(all.data.length, 2);
  assert.equal(all.pagination.totalCount, 2);
  assert.equal((await api.agents.list({ environmentId: envId, search: "wire" })).data.length, 1);
  assert.equal((await api.agents.list({ environmentId: envId, search: v1.id })).data[0].id, v1.id);
  assert.equal((await api.agents.list({ environmentId: envId, pageSize: 1, pageNumber: 2 })).data.length, 1);

  assert.deepEqual((await api.agents.delete(v1.id, { environmentId: envId })).data, { success: true });
  await rejectsWith(api.agents.get(v1.id, {}, once), 404);
  const { data } = await api.events.list({ environmentId: envId, includeAcknowledged: true, pageSize: 100 });
  const topics = data.filter((e) => e.payload.agentId === v1.id).map((e) => e.topic);
  assert.deepEqual(topics, ["agent:created", "agent:updated", "agent:updated", "agent:deleted"]);
});

test("webhook agents get signed POSTs, retried, with logs and executions", async () => {
  const got = [];
  let failFirst = true;
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      if (failFirst) {
        failFirst = false;
        res.writeHead(500).end();
        return;
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${receiver.address().port}/hook`;
  try {
    // options.webhookUrl: the typed client strips unknown top-level keys such as url.
    const agent = (await api.agents.create({ environmentId: envId, body: { slug: "hook", topics: ["space:created"], options: { webhookUrl: url } } })).data;
    assert.equal(agent.url, url);
    const space = (await api.spaces.create({ name: "Hooked", environmentId: envId })).data;
    await until(() => got.length >= 2); // the first attempt fails, the retry a second later succeeds

    for (const g of got) {
      const [t, v1] = g.headers["x-sluice-signature"].split(",").map((p) => p.split("=")[1]);
      const want = crypto.createHmac("sha256", SECRET).update(`${t}.${g.body}`).digest("hex");
      assert.equal(v1, want, "signature is HMAC-SHA256 of t.body with the environment's secret key");
      assert.ok(Math.abs(Date.now() / 1000 - Number(t)) < 300);
    }
    const ev = JSON.parse(got[1].body);
    assert.equal(ev.topic, "space:created");
    assert.equal(ev.context.spaceId, space.id);
    assert.equal(got[1].headers["x-sluice-event-id"], ev.id);
    assert.deepEqual([got[0].headers["x-sluice-attempt"], got[1].headers["x-sluice-attempt"]], ["1", "2"]);

    await until(async () => (await api.agents.getAgentLogs(agent.id, { environmentId: envId })).data[0]?.success === true);
    const logs = await api.agents.getAgentLogs(agent.id, { environmentId: envId });
    assert.equal(logs.data.length, 1);
    assert.equal(logs.data[0].eventId, ev.id);
    assert.match(logs.data[0].log, /after 2 attempts/);
    // AgentLog's times are typed as strings by the client (not Dates).
    assert.ok(!Number.isNaN(Date.parse(logs.data[0].createdAt)) && !Number.isNaN(Date.parse(logs.data[0].completedAt)));
    const env = await api.agents.getEnvironmentAgentLogs({ environmentId: envId, spaceId: space.id, success: true });
    assert.equal(env.data[0].topic, "space:created");
    assert.equal(env.data[0].context.spaceId, space.id);
    const ex = await api.agents.getEnvironmentAgentExecutions({ environmentId: envId, agentId: agent.id });
    assert.equal(ex.data.length, 1);
    assert.equal(ex.data[0].success, true);
    assert.equal(typeof ex.data[0].duration, "number");
    const one = await api.agents.getAgentLog(ev.id, { environmentId: envId });
    assert.equal(one.data.eventId, ev.id);
    await api.agents.delete(agent.id, { environmentId: envId });
  } finally {
    receiver.close();
  }
});

test("the event stream sends new events as Server-Sent Events", async () => {
  const ctrl = new AbortController();
  const res = await fetch(`${srv.baseURL}/v1/events/stream?topic=space:created`, { headers: { Authorization: `Bearer ${SECRET}` }, signal: ctrl.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^text\/event-stream/);
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  const space = (await api.spaces.create({ name: "Streamed", environmentId: envId })).data;
  let text = "";
  await until(async () => {
    const { value } = await reader.read();
    text += dec.decode(value);
    return text.includes(space.id);
  });
  ctrl.abort();
  const msg = text.split("\n\n").find((m) => m.includes(space.id));
  const id = msg.match(/^id: (.+)$/m)[1];
  const data = JSON.parse(msg.match(/^data: (.+)$/m)[1]);
  assert.equal(data.id, id);
  assert.equal(data.topic, "space:created");
  assert.equal((await api.events.get(id)).data.topic, "space:created");
});
