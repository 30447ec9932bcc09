// Issue 3 schema side over the wire: workbooks, sheets, fields and commits through the
// official client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, watchValidationWarnings, rejectsWith, SECRET } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, space;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  space = (await api.spaces.create({ name: "wb" })).data;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

const contacts = {
  name: "Contacts",
  slug: "contacts",
  mappingConfidenceThreshold: 0.7,
  allowAdditionalFields: true,
  fields: [
    { key: "email", type: "string", label: "Email", constraints: [{ type: "unique" }], description: "**Work** e-mail" },
    { key: "age", type: "number" },
    { key: "status", type: "enum", config: { options: [{ value: "active", label: "Active" }, { value: "gone" }], sortBy: "value" } },
  ],
};

test("workbooks: create with sheets, get, list filters, update, rebuild, delete", async () => {
  const wb = (await api.workbooks.create({ name: "CRM", spaceId: space.id, environmentId: space.environmentId, labels: ["primary"], sheets: [contacts], settings: { trackChanges: false } })).data;
  assert.match(wb.id, /^us_wb_/);
  assert.ok(wb.createdAt instanceof Date);
  const sheet = wb.sheets[0];
  assert.match(sheet.id, /^us_sh_/);
  assert.equal(sheet.config.mappingConfidenceThreshold, 0.7);
  assert.equal(sheet.config.fields[2].config.options[1].value, "gone");
  const file = (await api.workbooks.create({ name: "[file] a.csv", spaceId: space.id, labels: ["file"], treatments: ["EXTRACTED_FROM_SOURCE"] })).data;
  assert.equal((await api.workbooks.get(wb.id)).data.name, "CRM");
  const names = async (q) => (await api.workbooks.list({ spaceId: space.id, ...q })).data.map((w) => w.name).sort();
  assert.deepEqual(await names({}), ["CRM", "[file] a.csv"]);
  assert.deepEqual(await names({ label: "file" }), ["[file] a.csv"]);
  assert.deepEqual(await names({ label: "-file" }), ["CRM"]);
  assert.deepEqual(await names({ name: "CRM" }), ["CRM"]);
  assert.deepEqual(await names({ treatment: "EXTRACTED_FROM_SOURCE" }), ["[file] a.csv"]);
  const noSheets = (await api.workbooks.list({ spaceId: space.id, includeSheets: false })).data;
  assert.ok(noSheets.every((w) => !w.sheets || w.sheets.length === 0));

  const upd = (await api.workbooks.update(wb.id, { actions: [{ operation: "submit", label: "Submit", mode: "foreground", primary: true }] })).data;
  assert.equal(upd.actions[0].operation, "submit");
  assert.equal(upd.sheets[0].config.fields.length, 3, "actions change without sending fields");
  await api.workbooks.rebuildWorkbook(wb.id);
  const commits = (await api.workbooks.getWorkbookCommits(wb.id)).data;
  assert.ok(Array.isArray(commits));
  await api.workbooks.delete(file.id);
  await rejectsWith(api.workbooks.get(file.id, once), 404);
  const topics = (await api.events.list({ spaceId: space.id, domain: "workbook", includeAcknowledged: true, pageSize: 100 })).data.map((e) => e.topic);
  assert.deepEqual(topics.filter((t) => t === "workbook:created").length, 2);
  assert.ok(topics.includes("workbook:updated") && topics.includes("workbook:deleted"), topics.join());
});

test("workbooks: bad schemas are rejected with the field named", async () => {
  const bad = [
    [{ name: "A", fields: [{ key: "Email", type: "string" }, { key: "email", type: "string" }] }, "sheets[0].fields[1].key"],
    [{ name: "A", mappingConfidenceThreshold: 0, fields: [] }, "sheets[0].mappingConfidenceThreshold"],
    [{ name: "A", mappingConfidenceThreshold: 1.5, fields: [] }, "sheets[0].mappingConfidenceThreshold"],
  ];
  for (const [sheet, key] of bad) {
    const err = await rejectsWith(api.workbooks.create({ name: "bad", spaceId: space.id, sheets: [sheet] }, once), 400);
    assert.equal(err.body.errors[0].key, key);
  }
});

test("sheets: get, list, update, lock, fields, counts, delete", async () => {
  const wb = (await api.workbooks.create({ name: "S", spaceId: space.id, sheets: [contacts, { name: "Other", fields: [] }] })).data;
  const id = wb.sheets[0].id;
  const list = (await api.sheets.list({ workbookId: wb.id })).data;
  assert.deepEqual(list.map((s) => s.slug), ["contacts", "other"]);
  const got = (await api.sheets.get(id)).data;
  assert.equal(got.recordCounts.total, 0);
  const upd = (await api.sheets.updateSheet(id, { name: "People", slug: "people", metadata: { rowHeaders: [1] } })).data;
  assert.equal(upd.slug, "people");
  await api.sheets.lockSheet(id);
  assert.ok((await api.sheets.get(id)).data.lockedAt instanceof Date);
  await rejectsWith(api.records.insert(id, [{ email: { value: "a@b.c" } }], once), 403);
  await api.sheets.unlockSheet(id);
  await api.records.insert(id, [{ email: { value: "a@b.c" } }]);
  const field = (await api.sheets.addField(id, { body: { key: "phone", type: "string", label: "Phone" }, insertAtIndex: 1 })).data;
  assert.equal(field.key, "phone");
  assert.equal((await api.sheets.get(id)).data.config.fields[1].key, "phone");
  await api.sheets.removeField(id, "phone");
  assert.equal((await api.sheets.get(id)).data.config.fields.length, 3);
  const counts = (await api.sheets.getRecordCounts(id)).data.counts;
  assert.equal(counts.total, 1);
  await api.sheets.delete(wb.sheets[1].id);
  await rejectsWith(api.sheets.get(wb.sheets[1].id, once), 404);
});

test("commits: a write opens one, complete finishes it with commit:completed", async () => {
  const wb = (await api.workbooks.create({ name: "C", spaceId: space.id, settings: { trackChanges: true }, sheets: [{ name: "T", slug: "t", fields: [{ key: "a", type: "string" }] }] })).data;
  const sheetId = wb.sheets[0].id;
  // A plain HTTP write without X-Disable-Hooks runs hooks: its commit stays pending.
  const res = await fetch(`${srv.baseURL}/v1/sheets/${sheetId}/records`, {
    method: "POST",
    headers: { Authorization: `Bearer ${SECRET}`, "Content-Type": "application/json" },
    body: JSON.stringify([{ a: { value: "x" } }]),
  });
  assert.equal(res.status, 200);
  const pending = (await api.sheets.getSheetCommits(sheetId, { completed: false })).data;
  assert.equal(pending.length, 1, "the hooked write left one pending commit");
  const created = (await api.events.list({ spaceId: space.id, topic: "commit:created", includeAcknowledged: true, pageSize: 100 })).data.find((e) => e.context.commitId === pending[0].id);
  assert.ok(created, "commit:created was emitted");
  assert.equal(created.context.sheetSlug, "t");
  assert.match(created.dataUrl, /^v1\/sheets\/us_sh_\w+\/records\?commitId=us_vr_\w+$/);
  await api.commits.complete(pending[0].id);
  const done = (await api.commits.get(pending[0].id)).data;
  assert.ok(done.completedAt instanceof Date);
  const completed = (await api.events.list({ spaceId: space.id, topic: "commit:completed", includeAcknowledged: true, pageSize: 100 })).data;
  assert.ok(completed.some((e) => e.payload.commitId === pending[0].id));
});
