// Issue 3 data side over the wire: records, counts, FFQL, find and replace, bulk update,
// clear column and snapshots through the official client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, watchValidationWarnings, rejectsWith, raw } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, space;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  space = (await api.spaces.create({ name: "records" })).data;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

const contacts = {
  name: "Contacts",
  slug: "contacts",
  fields: [
    { key: "name", type: "string", label: "Full Name", constraints: [{ type: "required" }] },
    { key: "email", type: "string", constraints: [{ type: "unique" }] },
    { key: "age", type: "number" },
    { key: "tier", type: "enum", config: { options: [{ value: "gold", label: "Gold" }, { value: "silver" }] } },
    { key: "a.b", type: "string" },
  ],
};

async function newSheet(sheet = contacts) {
  const wb = (await api.workbooks.create({ name: "R", spaceId: space.id, sheets: [sheet] })).data;
  return wb.sheets[0].id;
}

const cell = (r, k) => r.values[k]?.value;

test("records: insert keeps order, validates, and reads back in Flatfile's shape", async () => {
  const sheetId = await newSheet();
  const ins = (
    await api.records.insert(sheetId, [
      { name: { value: "Ann" }, email: { value: "dup@x.io" }, age: { value: "41" }, tier: { value: "Gold" } },
      { name: { value: "Bob" }, email: { value: "dup@x.io" }, "a.b": { value: "dotted" } },
      { email: { value: "cy@x.io" }, age: { value: "old" } },
    ])
  ).data;
  assert.equal(ins.records.length, 3);
  assert.match(ins.records[0].id, /^us_rc_/);
  assert.match(ins.versionId, /^us_vr_/);
  assert.equal(cell(ins.records[0], "age"), 41);
  assert.equal(cell(ins.records[0], "tier"), "gold", "enum label becomes its value");

  const got = (await api.records.get(sheetId, { includeMessages: true })).data;
  assert.deepEqual(got.records.map((r) => r.id), ins.records.map((r) => r.id));
  assert.deepEqual(Object.keys(got.records[0]).sort(), ["config", "id", "metadata", "valid", "values"]);
  assert.ok(got.records[0].values.name.updatedAt instanceof Date);
  const [ann, bob, cy] = got.records;
  assert.equal(ann.valid, false);
  assert.equal(ann.values.email.messages[0].source, "unique-constraint", "duplicates are flagged on the first insert");
  assert.equal(bob.values.email.valid, false);
  assert.equal(cy.values.name.messages[0].source, "required-constraint");
  assert.equal(cy.values.age.valid, false);

  const counts = (await api.sheets.getRecordCounts(sheetId)).data.counts;
  assert.deepEqual([counts.total, counts.valid, counts.error], [3, 0, 3]);
  assert.equal(counts.errorsByField.email, 2);
});

test("records: filters, FFQL, search and ids", async () => {
  const sheetId = await newSheet();
  const ids = (
    await api.records.insert(sheetId, [
      { name: { value: "Ann Lee" }, email: { value: "ann@x.io" }, age: { value: 30 } },
      { name: { value: "Bob" }, email: { value: "bob@x.io" }, age: { value: 50 }, "a.b": { value: "x" } },
      { email: { value: "anon@x.io" } },
    ])
  ).data.records.map((r) => r.id);
  const idsOf = async (q) => (await api.records.get(sheetId, q)).data.records.map((r) => r.id);
  assert.deepEqual(await idsOf({ filter: "error" }), [ids[2]]);
  assert.deepEqual(await idsOf({ filter: "valid" }), [ids[0], ids[1]]);
  assert.deepEqual(await idsOf({ filter: "error", filterField: "name" }), [ids[2]]);
  assert.deepEqual(await idsOf({ q: 'age gt 40 or "Full Name" like "Ann%"' }), [ids[0], ids[1]]);
  assert.deepEqual(await idsOf({ q: "(age lt 40 or age gt 45) and a.b eq x" }), [ids[1]]);
  assert.deepEqual(await idsOf({ q: "name is error" }), [ids[2]]);
  assert.deepEqual(await idsOf({ q: "is valid" }), [ids[0], ids[1]]);
  assert.deepEqual(await idsOf({ searchValue: "AN" }), [ids[0], ids[2]], "partial and case-insensitive");
  assert.deepEqual(await idsOf({ searchValue: "null" }), [], "the word null is plain text");
  assert.deepEqual(await idsOf({ searchValue: '""', searchField: "name" }), [ids[2]]);
  assert.deepEqual(await idsOf({ ids: [ids[1], ids[2]] }), [ids[1], ids[2]]);
  assert.deepEqual(await idsOf({ filter: "all", ids: [ids[1]] }), [ids[0], ids[2]], "with a filter, ids exclude");
  assert.deepEqual(await idsOf({ sortField: "age", sortDirection: "desc", filter: "valid" }), [ids[1], ids[0]]);
  assert.deepEqual(await idsOf({ pageSize: 1, pageNumber: 2 }), [ids[1]]);
  const len = (await api.records.get(sheetId, { filter: "valid", includeLength: true, pageSize: 1 })).data;
  assert.equal(len.counts.total, 2);
  const err = await rejectsWith(api.records.get(sheetId, { q: 'name eq "unterminated' }, once), 400);
  assert.equal(err.body.errors[0].key, "q");
  assert.match(err.body.errors[0].message, /unterminated/);
  await rejectsWith(api.records.get(sheetId, { q: "nosuch eq 1" }, once), 400);
});

test("records: update, agent messages, readonly and delete", async () => {
  const sheet = { ...contacts, fields: contacts.fields.map((f) => (f.key === "tier" ? { ...f, readonly: true } : f)) };
  const sheetId = await newSheet(sheet);
  const [a, b] = (
    await api.records.insert(sheetId, [
      { name: { value: "A" }, email: { value: "same@x.io" }, tier: { value: "gold" } },
      { name: { value: "B" }, email: { value: "same@x.io" } },
    ])
  ).data.records;
  const upd = (
    await api.records.update(sheetId, [
      { id: b.id, values: { email: { value: "b@x.io" }, name: { value: "B", messages: [{ type: "warn", message: "check me", source: "custom-logic" }] } }, metadata: { from: "hook" } },
    ])
  ).data;
  assert.match(upd.versionId, /^us_vr_/);
  const [ra, rb] = (await api.records.get(sheetId, { includeMessages: true })).data.records;
  assert.equal(ra.valid, true, "fixing the duplicate clears its twin");
  assert.equal(rb.values.name.messages[0].message, "check me");
  assert.equal(rb.metadata.from, "hook");
  const ro = await rejectsWith(api.records.update(sheetId, [{ id: a.id, values: { tier: { value: "silver" } } }], once), 400);
  assert.equal(ro.body.errors[0].key, "tier");
  await rejectsWith(api.records.insert(sheetId, [{ nope: { value: 1 } }], once), 400);
  await rejectsWith(api.records.update(sheetId, [{ id: "us_rc_AAAAAAAAAAA", values: {} }], once), 404);
  await api.records.delete(sheetId, { ids: [a.id] });
  assert.deepEqual((await api.records.get(sheetId)).data.records.map((r) => r.id), [b.id]);
  const counts = (await api.sheets.getRecordCounts(sheetId)).data.counts;
  assert.deepEqual([counts.total, counts.valid], [1, 1]);
});

test("records: find and replace, bulk update, clear column", async () => {
  const sheetId = await newSheet();
  await api.records.insert(sheetId, [
    { name: { value: "Ann" }, tier: { value: "gold" }, "a.b": { value: "x" } },
    { name: { value: "Joanna" }, tier: { value: "gold" }, "a.b": { value: "y" } },
    { name: { value: "Bob" } },
  ]);
  const fr = (await api.records.findAndReplace(sheetId, { fieldKey: "name", find: "ann", replace: "Anne" })).data;
  assert.match(fr.versionId, /^us_vr_/);
  const names = async () => (await api.records.get(sheetId)).data.records.map((r) => cell(r, "name") ?? null);
  assert.deepEqual(await names(), ["Anne", "JoAnnea", "Bob"]);
  await api.records.findAndReplace(sheetId, { fieldKey: "name", find: '"Bob"', replace: "" });
  assert.deepEqual(await names(), ["Anne", "JoAnnea", ""], "replacing with an empty string keeps an empty string");
  const bulk = (await api.records.bulkUpdate(sheetId, { filter: "all", fieldUpdates: { tier: { value: "silver" } } })).data;
  assert.match(bulk.versionId, /^us_vr_/);
  assert.ok((await api.records.get(sheetId)).data.records.every((r) => cell(r, "tier") === "silver"));
  const cleared = await raw(srv.baseURL, "POST", `/v1/sheets/${sheetId}/fields/${encodeURIComponent("a.b")}/clear`);
  assert.equal(cleared.status, 200);
  assert.ok((await api.records.get(sheetId)).data.records.every((r) => cell(r, "a.b") === undefined));
  const snaps = (await api.snapshots.listSnapshots({ sheetId })).data;
  assert.deepEqual(snaps.map((s) => s.label), ["a.b"], "a snapshot labelled with the column key is taken first");
});

test("snapshots: create, summary, changed records, restore, delete", async () => {
  const sheetId = await newSheet();
  const ids = (await api.records.insert(sheetId, [{ name: { value: "A" } }, { name: { value: "B" } }])).data.records.map((r) => r.id);
  const snap = (await api.snapshots.createSnapshot({ sheetId, label: "before" })).data;
  assert.match(snap.id, /^us_ss_/);
  assert.ok(snap.createdAt instanceof Date);
  await api.records.update(sheetId, [{ id: ids[0], values: { name: { value: "AA" } } }]);
  await api.records.delete(sheetId, { ids: [ids[1]] });
  await api.records.insert(sheetId, [{ name: { value: "C" } }]);
  const sum = (await api.snapshots.getSnapshot(snap.id, { includeSummary: true })).data.summary;
  assert.deepEqual([sum.createdSince.total, sum.updatedSince.total, sum.deletedSince.total], [1, 1, 1]);
  assert.equal(sum.updatedSince.byField.name, 1);
  assert.equal(sum.schemaDiff.name, "unchanged");
  const changed = (await api.snapshots.getSnapshotRecords(snap.id, { changeType: "updatedSince" })).data;
  assert.equal(changed[0].values.name.value, "AA");
  assert.equal(changed[0].values.name.snapshotValue, "A");
  await api.snapshots.restoreSnapshot(snap.id);
  const back = (await api.records.get(sheetId)).data.records;
  assert.deepEqual(back.map((r) => r.id), ids);
  assert.deepEqual(back.map((r) => cell(r, "name")), ["A", "B"]);
  assert.equal((await api.snapshots.listSnapshots({ sheetId })).data.length, 1);
  await api.snapshots.deleteSnapshot(snap.id);
  await rejectsWith(api.snapshots.getSnapshot(snap.id, { includeSummary: false }, once), 404);
});

test("records: a cell written in a layer reads back with it, and layer:created is listed", async () => {
  const sheetId = await newSheet();
  const ins = (await api.records.insert(sheetId, [{ name: { value: "Ann" }, email: { value: "ann@x.io", layer: "enrichment" } }])).data;
  assert.equal(ins.records[0].values.email.layer, "enrichment");
  assert.equal(ins.records[0].values.name.layer, undefined);
  const got = (await api.records.get(sheetId)).data.records[0];
  assert.equal(got.values.email.layer, "enrichment");
  const evs = (await api.events.list({ spaceId: space.id, topic: "layer:created", pageSize: 100 })).data;
  const mine = evs.filter((e) => e.context.sheetId === sheetId);
  assert.equal(mine.length, 1);
  assert.equal(mine[0].domain, "workbook");
  assert.equal(mine[0].payload.layer, "enrichment");
});

test("cells: distinct values of a field with their counts, exact, sorted and paged", async () => {
  const sheetId = await newSheet();
  await api.records.insert(sheetId, [
    { name: { value: "Ann" }, email: { value: "a@x.io" }, tier: { value: "gold" }, age: { value: 30 } },
    { name: { value: "Bob" }, email: { value: "b@x.io" }, tier: { value: "gold" }, age: { value: 5 } },
    { email: { value: "c@x.io" }, tier: { value: "silver" }, age: { value: 30 } },
    { name: { value: "Dee" }, email: { value: "d@x.io" } },
  ]);
  const cells = async (q) => (await api.sheets.getCellValues(sheetId, { distinct: true, ...q })).data;
  const tiers = (await cells({ fieldKey: "tier", includeCounts: true })).tier;
  assert.deepEqual(
    tiers.map((c) => [c.value, c.counts.total, c.counts.valid, c.counts.error, c.valid]),
    [["gold", 2, 2, 0, true], ["silver", 1, 0, 1, false]],
    "most frequent first; the record without a name has an error",
  );
  const ages = (await cells({ fieldKey: "age", sortField: "age", sortDirection: "desc" })).age;
  assert.deepEqual(ages.map((c) => c.value), [30, 5], "sorted by value, numbers as numbers");
  assert.equal(ages[0].counts, undefined, "counts only with includeCounts");
  assert.deepEqual((await cells({ fieldKey: "tier", filter: "valid" })).tier.map((c) => c.value), ["gold"]);
  assert.deepEqual((await cells({ fieldKey: "age", pageSize: 1, pageNumber: 2 })).age.map((c) => c.value), [5]);
  const all = await cells({});
  assert.deepEqual(Object.keys(all).sort(), ["a.b", "age", "email", "name", "tier"], "every field without fieldKey");
  // Kept in step with writes: an edit moves a record from one value to another, a delete
  // takes its values away; narrowed by a search, the values are counted over the matches.
  const recs = (await api.records.get(sheetId)).data.records;
  const ann = recs.find((r) => r.values.name.value === "Ann");
  const dee = recs.find((r) => r.values.name.value === "Dee");
  await api.records.update(sheetId, [{ id: ann.id, values: { tier: { value: "silver" } } }]);
  await api.records.delete(sheetId, { ids: [dee.id] });
  const after = (await cells({ fieldKey: "tier", includeCounts: true })).tier;
  assert.deepEqual(after.map((c) => [c.value, c.counts.total, c.counts.valid]), [["silver", 2, 1], ["gold", 1, 1]]);
  assert.deepEqual((await cells({ fieldKey: "name" })).name.map((c) => c.value).sort(), ["Ann", "Bob"], "Dee is gone");
  assert.deepEqual((await cells({ fieldKey: "tier", searchValue: "bob" })).tier.map((c) => c.value), ["gold"]);
  await rejectsWith(api.sheets.getCellValues(sheetId, { distinct: false, fieldKey: "tier" }, once), 400);
  await rejectsWith(api.sheets.getCellValues(sheetId, { distinct: true, fieldKey: "nope" }, once), 400);
});
