// Issue 4 over the wire: actions through the official @flatfile/api 1.23.0 client — create,
// bulk create and list (bare arrays), get, update, delete, running one (input form checked,
// context.actionId on the job's events).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, watchValidationWarnings, raw, rejectsWith } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, envId, spaceId;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  envId = (await api.environments.list()).data[0].id;
  spaceId = (await api.spaces.create({ name: "Actions", environmentId: envId })).data.id;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

const form = {
  type: "simple",
  fields: [
    { key: "note", label: "Note", type: "textarea", defaultValue: "hello", description: "Why" },
    { key: "dest", label: "Destination", type: "enum", defaultValue: "crm", config: { options: [{ value: "crm", label: "CRM" }, { value: "erp" }] },
      constraints: [{ type: "required" }] },
    { key: "count", label: "Count", type: "number" },
    { key: "notify", label: "Notify", type: "boolean" },
  ],
};

test("create, get, update, delete, with events", async () => {
  const body = { label: "Submit", targetId: spaceId, operation: "submitAction", mode: "foreground", description: "Send", primary: true,
    constraints: [{ type: "hasData" }, { type: "hasAllValid", ignoreSelection: true }, { type: "hasSelection" }, { type: "hasColumnEnabled" }],
    requireAllValid: true, guide: { content: "**Guide**" }, guardrail: { content: "Sure?" }, inputForm: form,
    messages: [{ type: "error", content: "Fix first" }, { type: "info", content: "Ready" }], mount: { type: "workbook", slugs: ["a"] } };
  const a = (await api.actions.create({ spaceId, body })).data;
  assert.match(a.id, /^us_act_/);
  assert.equal(a.targetId, spaceId);
  assert.ok(a.createdAt instanceof Date && a.updatedAt instanceof Date);
  for (const k of ["label", "operation", "mode", "description", "primary", "constraints", "requireAllValid", "guide", "guardrail", "inputForm", "messages", "mount"]) {
    assert.deepEqual(a[k], body[k], k);
  }
  assert.deepEqual((await api.actions.get(a.id)).data.inputForm, form);
  const u = (await api.actions.update(a.id, { description: "Changed" })).data;
  assert.equal(u.description, "Changed");
  assert.equal(u.label, "Submit");
  assert.deepEqual((await api.actions.delete(a.id)).data, { success: true });
  await rejectsWith(api.actions.get(a.id, once), 404);
  const { data } = await api.events.list({ environmentId: envId, domain: "action", includeAcknowledged: true, pageSize: 100 });
  const mine = data.filter((e) => e.context.actionId === a.id);
  assert.deepEqual(mine.map((e) => e.topic), ["action:created", "action:updated", "action:deleted"]);
  assert.equal(mine[0].context.spaceId, spaceId);
});

test("bulk create and list answer bare arrays", async () => {
  const s = (await api.spaces.create({ name: "Bulk", environmentId: envId })).data.id;
  const made = await api.actions.bulkCreate({ spaceId: s, body: [{ label: "One", targetId: s, operation: "one" }, { label: "Two", targetId: s, operation: "two" }] });
  assert.ok(Array.isArray(made));
  assert.deepEqual(made.map((a) => a.label), ["One", "Two"]);
  const all = await api.actions.getAll({ spaceId: s });
  assert.ok(Array.isArray(all));
  assert.equal(all.length, 2);
  const r = await raw(srv.baseURL, "GET", `/v1/actions?spaceId=${s}`);
  assert.ok(Array.isArray(r.body), "GET /v1/actions answers a bare array");
});

test("requireAllValidTotal is kept (sent raw: the typed client strips it)", async () => {
  const r = await raw(srv.baseURL, "POST", `/v1/actions?spaceId=${spaceId}`, { body: { label: "Total", targetId: spaceId, requireAllValidTotal: true } });
  assert.equal(r.status, 200);
  assert.equal(r.body.data.requireAllValidTotal, true);
  assert.equal((await api.actions.get(r.body.data.id)).data.requireAllValidTotal, true);
});

test("bad definitions are refused", async () => {
  const bad = async (body, key) => {
    const err = await rejectsWith(api.actions.create({ spaceId, body: { targetId: spaceId, ...body } }, once), 400);
    assert.equal(err.body.errors[0].key, key);
  };
  await bad({ label: "A", inputForm: { type: "simple", fields: [{ key: "n", label: "N", type: "number", defaultValue: 1 }] } }, "inputForm.fields[0].defaultValue");
  await bad({ label: "A", inputForm: { type: "simple", fields: [{ key: "e", label: "E", type: "enum", defaultValue: "x", config: { options: [{ value: "y" }] } }] } }, "inputForm.fields[0].defaultValue");
  await bad({ label: "A", inputForm: { type: "simple", fields: [{ key: "d", label: "D", type: "date" }] } }, "inputForm.fields[0].type");
  await rejectsWith(api.actions.create({ spaceId: "us_sp_missing", body: { label: "A", targetId: spaceId } }, once), 404);
});

test("running an action creates its job with checked input and context.actionId", async () => {
  const a = (await api.actions.create({ spaceId, body: { label: "Send", targetId: spaceId, operation: "send", mode: "background", inputForm: form } })).data;
  const wrong = await raw(srv.baseURL, "POST", `/v1/actions/${a.id}/run`, { body: { input: { dest: "mars" } } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.errors[0].key, "input.dest");
  const run = await raw(srv.baseURL, "POST", `/v1/actions/${a.id}/run`, { body: { input: { count: 3, notify: true } } });
  assert.equal(run.status, 200, JSON.stringify(run.body));
  const job = (await api.jobs.get(run.body.data.id)).data;
  assert.equal(job.type, "space");
  assert.equal(job.operation, "send");
  assert.equal(job.status, "ready");
  assert.equal(job.mode, "background");
  assert.deepEqual(job.input, { count: 3, notify: true, note: "hello", dest: "crm" });
  // The way Flatfile's UI runs it — creating the job — gets the same checks.
  await rejectsWith(api.jobs.create({ type: "space", operation: "send", source: spaceId, input: { count: "three" } }, once), 400);
  const { data } = await api.events.list({ environmentId: envId, topic: "job:ready", includeAcknowledged: true, pageSize: 100 });
  const ready = data.find((e) => e.context.jobId === job.id);
  assert.equal(ready.context.actionId, a.id);
  assert.equal(ready.payload.job, "space:send");
  assert.deepEqual(ready.payload.input, job.input);
});

test("constraints and toolbarBlocking on a real workbook", async () => {
  const wb = (await api.workbooks.create({ name: "Import", spaceId, environmentId: envId, sheets: [
    { name: "Contacts", slug: "contacts", fields: [{ key: "email", type: "string", label: "Email", constraints: [{ type: "required" }] }] },
  ] })).data;
  const sheetId = wb.sheets[0].id;
  const mk = async (label, targetId, extra = {}) => (await api.actions.create({ spaceId, body: { label, operation: label.toLowerCase(), targetId, ...extra } })).data;
  const hasData = await mk("Check", sheetId, { constraints: [{ type: "hasData" }] });
  const allValid = await mk("Submit", sheetId, { constraints: [{ type: "hasAllValid" }] });
  const blocking = await mk("Sync", wb.id, { mode: "toolbarBlocking" });
  const other = await mk("Export", wb.id);

  let err = await rejectsWith(api.jobs.create({ type: "sheet", operation: "check", source: sheetId, trigger: "immediate" }, once), 409);
  assert.match(err.body.errors[0].message, /no records/);
  await api.records.insert(sheetId, [{ email: { value: "a@example.com" } }, { email: { value: "" } }]);
  const checked = (await api.jobs.create({ type: "sheet", operation: "check", source: sheetId, trigger: "immediate" })).data;
  err = await rejectsWith(api.jobs.create({ type: "sheet", operation: "submit", source: sheetId, trigger: "immediate" }, once), 409);
  assert.match(err.body.errors[0].message, /1 of 2 records have errors/);

  const { data } = await api.events.list({ environmentId: envId, topic: "job:ready", includeAcknowledged: true, pageSize: 100 });
  const ctx = data.find((e) => e.context.jobId === checked.id).context;
  assert.equal(ctx.actionId, hasData.id);
  assert.equal(ctx.sheetId, sheetId);
  assert.equal(ctx.sheetSlug, "contacts");
  assert.equal(ctx.workbookId, wb.id);

  const sync = (await api.jobs.create({ type: "workbook", operation: "sync", source: wb.id, trigger: "immediate" })).data;
  assert.equal(sync.mode, "toolbarBlocking");
  err = await rejectsWith(api.jobs.create({ type: "workbook", operation: "export", source: wb.id, trigger: "immediate" }, once), 409);
  assert.match(err.body.errors[0].message, new RegExp(sync.id));
  await api.jobs.ack(sync.id);
  await api.jobs.complete(sync.id);
  await api.jobs.create({ type: "workbook", operation: "export", source: wb.id, trigger: "immediate" });
  assert.ok(blocking.id && other.id && allValid.id);
});
