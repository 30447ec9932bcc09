// Issue 4 part 5: the real @flatfile/listener with @flatfile/plugin-record-hook, run by
// Sluice's listener runner (agents/runner.mjs), flags records written to Sluice.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, startRunner } from "./lib.mjs";

let srv, api, runner;

before(async () => {
  srv = await startServer();
  api = srv.client();
  runner = await startRunner(srv, "agents/examples/email-hook.mjs");
});
after(async () => {
  runner.stop();
  await srv.stop();
});

test("a recordHook flags a record within 2 s of the insert, without a hook loop", async () => {
  const space = (await api.spaces.create({ name: "hooks" })).data;
  const wb = (await api.workbooks.create({ name: "W", spaceId: space.id, sheets: [{ name: "Contacts", slug: "contacts", fields: [{ key: "email", type: "string" }, { key: "name", type: "string" }] }] })).data;
  const sheetId = wb.sheets[0].id;
  // The SDK sends X-Disable-Hooks: true; X-Force-Hooks asks for hooks anyway, as Flatfile's extractor does.
  const inserted = Date.now();
  const ids = (
    await api.records.insert(sheetId, [{ email: { value: "no-at-sign" }, name: { value: "A" } }, { email: { value: "MIXED@Case.COM" } }, { email: { value: "ok@x.io" }, name: { value: "Ok" } }], {
      headers: { "X-Force-Hooks": "true" },
    })
  ).data.records.map((r) => r.id);
  let recs;
  for (;;) {
    recs = (await api.records.get(sheetId, { includeMessages: true })).data.records;
    if (recs[0].values.email.messages?.length) break;
    if (Date.now() - inserted > 2000) assert.fail(`no hook message after 2 s; runner log:\n${runner.log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(recs[0].values.email.messages[0].message, "Email must contain @");
  assert.equal(recs[0].valid, false);
  assert.equal(recs[1].values.email.value, "mixed@case.com", "the hook's set() was written back");
  assert.equal(recs[1].values.name.value, "mixed", "set() on a blank field works: every field is in the record, empty ones too");
  for (const r of recs) for (const [k, c] of Object.entries(r.values)) assert.ok(Array.isArray(c.messages), `${k} has messages`);
  const updated = (await api.events.list({ spaceId: space.id, topic: "records:updated", includeAcknowledged: true, pageSize: 100 })).data;
  assert.ok(updated.length > 0, "the hook wrote back");
  for (const e of updated) assert.ok(!e.payload.recordIds.includes(ids[2]), "a record the hook did not change is not written back");
  await new Promise((r) => setTimeout(r, 600));
  const created = (await api.events.list({ spaceId: space.id, topic: "commit:created", includeAcknowledged: true, pageSize: 100 })).data;
  assert.equal(created.length, 1, "the hook's write-back (X-Disable-Hooks) must not raise another commit:created");
});

test("writes with the SDK's default X-Disable-Hooks run no hooks", async () => {
  const space = (await api.spaces.create({ name: "quiet" })).data;
  const wb = (await api.workbooks.create({ name: "W", spaceId: space.id, sheets: [{ name: "Contacts", slug: "contacts", fields: [{ key: "email", type: "string" }] }] })).data;
  await api.records.insert(wb.sheets[0].id, [{ email: { value: "no-at-sign" } }]);
  await new Promise((r) => setTimeout(r, 800));
  const rec = (await api.records.get(wb.sheets[0].id, { includeMessages: true })).data.records[0];
  assert.deepEqual(rec.values.email.messages ?? [], []);
});
