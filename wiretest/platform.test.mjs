// Issue 20: what Flatfile's published plugins and their e2e harness call before their work —
// entitlements, the event subscription, data retention policies — and the record and
// constraint shapes they rely on, through the official client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FlatfileClient } from "@flatfile/api";
import { startServer, watchValidationWarnings, rejectsWith, raw } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, space, env;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  space = (await api.spaces.create({ name: "platform" })).data;
  env = space.environmentId;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

test("entitlements: an empty list for a space, as the extractor plugins expect", async () => {
  assert.deepEqual((await api.entitlements.list({ resourceId: space.id })).data, []);
  await rejectsWith(api.entitlements.list({}, once), 400);
});

test("subscription: a token for the scope and where to read its events with it", async () => {
  const sub = (await api.events.getEventToken({ scope: env })).data;
  assert.match(sub.accountId, /^us_acc_/);
  assert.ok(sub.token && sub.ttl > 0);
  const raw = await (await fetch(`${srv.baseURL}/v1/subscription?scope=${env}`, { headers: { Authorization: `Bearer ${sub.token}` } })).json();
  assert.match(raw.data.streamUrl, /^\/v1\/events\/stream\?environmentId=us_env_/);
  // The token reads the scope's events.
  const withToken = new FlatfileClient({ token: sub.token, environment: `${srv.baseURL}/v1` });
  const events = (await withToken.events.list({ environmentId: env, includeAcknowledged: true })).data;
  assert.ok(events.some((e) => e.topic === "space:created"));
  await rejectsWith(api.events.getEventToken({ scope: "us_env_nope0000" }, once), 404);
  await rejectsWith(api.events.getEventToken({ scope: "bogus" }, once), 400);
});

test("data retention policies: the environment's policy, from metadata.retentionDays", async () => {
  let list = (await api.dataRetentionPolicies.list({ environmentId: env })).data;
  assert.equal(list.length, 1);
  assert.equal(list[0].type, "lastActivity");
  assert.equal(list[0].period, 365);
  await api.environments.update(env, { metadata: { retentionDays: 30 } });
  list = (await api.dataRetentionPolicies.list({ environmentId: env })).data;
  assert.equal(list[0].period, 30);
});

test("records carry every field of the sheet and messages on every cell", async () => {
  const wb = (
    await api.workbooks.create({
      name: "W",
      spaceId: space.id,
      sheets: [{ name: "People", slug: "people", fields: [{ key: "name", type: "string" }, { key: "email", type: "string" }, { key: "age", type: "number" }] }],
    })
  ).data;
  const sheetId = wb.sheets[0].id;
  await api.records.insert(sheetId, [{ name: { value: "Ada" } }]);
  const [rec] = (await api.records.get(sheetId)).data.records;
  assert.deepEqual(Object.keys(rec.values).sort(), ["age", "email", "name"], "empty fields are in the record");
  for (const c of Object.values(rec.values)) assert.deepEqual(c.messages, []);
  assert.equal(rec.values.email.value, undefined);
  const only = (await api.records.get(sheetId, { fields: ["name"] })).data.records[0];
  assert.deepEqual(Object.keys(only.values), ["name"], "fields= still narrows the cells");
});

test("a field's external constraint keeps its validator and config", async () => {
  const field = { key: "email", type: "string", constraints: [{ type: "external", validator: "isEmail", config: { strict: true } }] };
  const wb = (await api.workbooks.create({ name: "C", spaceId: space.id, sheets: [{ name: "S", slug: "s", fields: [field] }] })).data;
  const got = (await api.sheets.get(wb.sheets[0].id)).data.config.fields[0].constraints[0];
  assert.deepEqual(got, { type: "external", validator: "isEmail", config: { strict: true } });
  // The client refuses to send one without a validator; sent raw, Sluice says why.
  const res = await raw(srv.baseURL, "POST", "/v1/workbooks", {
    body: { name: "C", spaceId: space.id, sheets: [{ name: "S", slug: "s2", fields: [{ key: "x", type: "string", constraints: [{ type: "external" }] }] }] },
  });
  assert.equal(res.status, 400);
  assert.match(res.body.errors[0].message, /needs a validator/);
});

test("an environment can leave a file type to an extractor plugin: Sluice does not extract it too", async () => {
  const sp = (await api.spaces.create({ name: "agent extracts" })).data;
  await api.environments.update(sp.environmentId, { metadata: { retentionDays: 30, agentExtractors: ["xlsx"] } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-ext-"));
  const put = async (name, content) => {
    fs.writeFileSync(path.join(dir, name), content);
    return (await api.files.upload(fs.createReadStream(path.join(dir, name)), { spaceId: sp.id, environmentId: sp.environmentId })).data;
  };
  const xlsx = await put("book.xlsx", Buffer.from("PK\x03\x04not really a workbook"));
  const csv = await put("people.csv", "name\nAda\n");
  for (let i = 0; i < 100 && (await api.files.get(csv.id)).data.status !== "complete"; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal((await api.files.get(csv.id)).data.status, "complete", "other types are still extracted");
  const left = (await api.files.get(xlsx.id)).data;
  assert.equal(left.status, "partial", "the xlsx waits for the plugin");
  assert.equal(left.workbookId, undefined);
  const jobs = (await api.jobs.list({ spaceId: sp.id })).data;
  assert.ok(!jobs.some((j) => j.source === xlsx.id), "no extraction job of Sluice's for the xlsx");
  const created = (await api.events.list({ spaceId: sp.id, topic: "file:created", includeAcknowledged: true })).data;
  assert.ok(created.some((e) => e.context.fileId === xlsx.id), "file:created reaches the plugin");
  const bad = await raw(srv.baseURL, "PATCH", `/v1/environments/${sp.environmentId}`, { body: { metadata: { agentExtractors: "xlsx" } } });
  assert.equal(bad.status, 400);
});

test("the stream driver hands a FlatfileListener the scope's events as they happen", async () => {
  const { FlatfileListener } = await import("@flatfile/listener");
  const { PubSubDriver } = await import("../agents/sluice-driver.mjs");
  const driver = new PubSubDriver(env, { apiUrl: srv.baseURL, token: (await import("./lib.mjs")).SECRET });
  const seen = [];
  const listener = FlatfileListener.create((l) => l.on("space:created", (e) => seen.push(e.context.spaceId)));
  await driver.start();
  listener.mount(driver);
  const created = Date.now();
  const sp = (await api.spaces.create({ name: "streamed" })).data;
  while (!seen.includes(sp.id)) {
    if (Date.now() - created > 2000) assert.fail(`the listener did not see space:created within 2 s (saw ${seen})`);
    await new Promise((r) => setTimeout(r, 20));
  }
  driver.shutdown();
});
