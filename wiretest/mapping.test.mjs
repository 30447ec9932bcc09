// Mapping programs and rules through the client: suggestions with confidence and reasons,
// rule edits, accepted rules as history, program events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith, raw } from "./lib.mjs";

const ctx = useServer();

const source = { name: "upload", fields: [{ key: "Vorname", type: "string" }, { key: "E-Mail Adresse", type: "string" }, { key: "PLZ", type: "string" }, { key: "zzz_internal", type: "string" }] };
const destination = { name: "Contacts", mappingConfidenceThreshold: 0.6, fields: [
  { key: "first_name", type: "string", label: "First name" }, { key: "email", type: "string", label: "Email" }, { key: "postal_code", type: "string", label: "Postal code" }] };

test("a program suggests assign rules with confidence and reasons", async () => {
  const prog = (await ctx.api.mapping.createMappingProgram({ body: { source, destination } })).data;
  assert.match(prog.id, /^us_mp_/);
  const pairs = Object.fromEntries(prog.rules.map((r) => [r.config.sourceField, r.config.destinationField]));
  assert.deepEqual(pairs, { Vorname: "first_name", "E-Mail Adresse": "email", PLZ: "postal_code" });
  for (const r of prog.rules) {
    assert.ok(r.confidence > 0 && r.confidence <= 0.99, `confidence ${r.confidence}`);
    assert.ok(r.metadata.reasons.length > 0);
    assert.match(r.id, /^us_mr_/);
  }
  assert.deepEqual(prog.sourceKeys, ["Vorname", "E-Mail Adresse", "PLZ", "zzz_internal"]);
  const listed = (await ctx.api.mapping.listMappingPrograms({})).data;
  assert.ok(listed.some((p) => p.id === prog.id));
  const topics = (await ctx.api.events.list({ domain: "program", includeAcknowledged: true })).data.map((e) => e.topic);
  assert.ok(topics.includes("program:created"), topics.join());
});

test("rules: create, list, get, update one and many, delete many, delete program", async () => {
  const prog = (await ctx.api.mapping.createMappingProgram({ body: { source, destination, rules: [] } })).data;
  const added = (await ctx.api.mapping.createRules(prog.id, [
    { name: "zip", type: "assign", config: { sourceField: "PLZ", destinationField: "postal_code" } },
    { name: "drop", type: "ignore", config: { sourceField: "zzz_internal" } },
    { name: "x".repeat(600), type: "constant", config: { destinationField: "email", value: "n/a" } },
  ])).data;
  assert.equal(added.length, 3);
  assert.equal(added[2].name.length, 600, "no 255-character limit on rule texts");
  assert.equal((await ctx.api.mapping.listRules(prog.id)).data.length, 3);
  assert.equal((await ctx.api.mapping.getRule(prog.id, added[0].id)).data.name, "zip");
  const one = (await ctx.api.mapping.updateRule(prog.id, added[0].id, { name: "postal", type: "assign", config: { sourceField: "PLZ", destinationField: "postal_code" }, acceptedAt: new Date() })).data;
  assert.equal(one.name, "postal");
  assert.ok(one.acceptedAt instanceof Date);
  const current = (await ctx.api.mapping.getRule(prog.id, added[1].id)).data;
  const many = (await ctx.api.mapping.updateRules(prog.id, [{ ...current, name: "skip" }])).data;
  assert.equal(many[0].name, "skip");
  await ctx.api.mapping.deleteMultipleRules(prog.id, { ruleIds: [added[1].id, added[2].id] });
  assert.deepEqual((await ctx.api.mapping.listRules(prog.id)).data.map((r) => r.name), ["postal"]);
  await rejectsWith(ctx.api.mapping.createRules(prog.id, [{ name: "bad", type: "teleport" }], { maxRetries: 0 }), 400);
  await ctx.api.mapping.deleteMappingProgram(prog.id);
  await rejectsWith(ctx.api.mapping.getMappingProgram(prog.id, { maxRetries: 0 }), 404);
});

test("accepted rules become history for the next suggestion", async () => {
  const src = { name: "s", fields: [{ key: "Kd-Nr", type: "string" }] };
  const dst = { name: "d", fields: [{ key: "customer_ref", type: "string" }, { key: "note", type: "string" }] };
  const first = (await ctx.api.mapping.createMappingProgram({ body: { source: src, destination: dst } })).data;
  assert.equal(first.rules.length, 0, "nothing links Kd-Nr to customer_ref at first");
  const prog = (await ctx.api.mapping.createMappingProgram({ body: { source: src, destination: dst, rules: [{ name: "ref", type: "assign", config: { sourceField: "Kd-Nr", destinationField: "customer_ref" }, acceptedAt: new Date() }] } })).data;
  assert.equal(prog.rules.length, 1);
  const again = (await ctx.api.mapping.createMappingProgram({ body: { source: src, destination: dst } })).data;
  assert.equal(again.rules[0]?.config.destinationField, "customer_ref");
  assert.match(again.rules[0].metadata.reasons.join(" "), /before/);
  await ctx.api.mapping.deleteAllHistoryForUser({});
  const forgotten = (await ctx.api.mapping.createMappingProgram({ body: { source: src, destination: dst } })).data;
  assert.equal(forgotten.rules.length, 0);
});

test("a map job plans with certainties, then moves an upload into the destination sheet", async () => {
  const space = (await ctx.api.spaces.create({ name: "map" })).data;
  const dest = (await ctx.api.workbooks.create({ name: "CRM", spaceId: space.id, labels: ["primary"], sheets: [{ name: "Contacts", slug: "contacts", fields: [
    { key: "first_name", type: "string", label: "First name" }, { key: "email", type: "string", label: "Email", constraints: [{ type: "unique" }] },
    { key: "active", type: "enum", label: "Active", config: { options: [{ value: "yes", label: "Yes" }, { value: "no", label: "No" }] } }] }] })).data;
  const src = (await ctx.api.workbooks.create({ name: "[file] a.csv", spaceId: space.id, labels: ["file"], sheets: [{ name: "a", slug: "a", fields: [
    { key: "Vorname", type: "string" }, { key: "E-Mail", type: "string" }, { key: "Aktiv", type: "string" }] }] })).data;
  await ctx.api.records.insert(src.sheets[0].id, [
    { Vorname: { value: "Ada" }, "E-Mail": { value: "ada@x.io" }, Aktiv: { value: "Ja" } },
    { Vorname: { value: "Bo" }, "E-Mail": { value: "ada@x.io" }, Aktiv: { value: "nein" } },
  ]);
  const job = (await ctx.api.jobs.create({ type: "workbook", operation: "map", source: src.id, destination: dest.id, trigger: "manual",
    config: { sourceSheetId: src.sheets[0].id, destinationSheetId: dest.sheets[0].id } })).data;
  const { plan } = (await ctx.api.jobs.getExecutionPlan(job.id)).data;
  const edges = Object.fromEntries(plan.fieldMapping.map((e) => [e.sourceField.key, [e.destinationField.key, e.metadata.certainty]]));
  assert.equal(edges.Vorname[0], "first_name");
  assert.equal(edges["E-Mail"][0], "email");
  assert.ok(["absolute", "strong"].includes(edges.Vorname[1]), JSON.stringify(edges));
  await ctx.api.jobs.execute(job.id);
  let j;
  for (let i = 0; i < 100; i++) {
    j = (await ctx.api.jobs.get(job.id)).data;
    if (j.status === "complete" || j.status === "failed") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(j.status, "complete", JSON.stringify(j.outcome));
  assert.equal(j.outcome.next.id, dest.sheets[0].id);
  const recs = (await ctx.api.records.get(dest.sheets[0].id)).data.records;
  assert.equal(recs.length, 2);
  assert.equal(recs[0].values.first_name.value, "Ada");
  assert.equal(recs[0].values.active?.value, "yes", "Ja became the option yes");
  assert.equal(recs[1].valid, false, "the duplicate e-mail is flagged after mapping");
});

test("unmapped columns become custom fields when the destination allows additional fields", async () => {
  const space = (await ctx.api.spaces.create({ name: "extra" })).data;
  const dest = (await ctx.api.workbooks.create({ name: "D", spaceId: space.id, sheets: [{ name: "People", slug: "people", allowAdditionalFields: true, fields: [{ key: "email", type: "string" }] }] })).data;
  const src = (await ctx.api.workbooks.create({ name: "S", spaceId: space.id, sheets: [{ name: "s", slug: "s", fields: [{ key: "Email", type: "string" }, { key: "Shoe size", type: "string" }] }] })).data;
  await ctx.api.records.insert(src.sheets[0].id, [{ Email: { value: "a@b.co" }, "Shoe size": { value: "42" } }]);
  const job = (await ctx.api.jobs.create({ type: "workbook", operation: "map", source: src.id, destination: dest.id, trigger: "immediate" })).data;
  let j;
  for (let i = 0; i < 100; i++) {
    j = (await ctx.api.jobs.get(job.id)).data;
    if (j.status === "complete" || j.status === "failed") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(j.status, "complete", JSON.stringify(j.outcome));
  const sheet = (await ctx.api.sheets.get(dest.sheets[0].id)).data;
  const extra = sheet.config.fields.find((f) => f.key === "Shoe size");
  assert.ok(extra, "the unmapped column was added");
  assert.deepEqual(extra.treatments, ["additional"]);
  assert.equal(extra.label, "Shoe size");
  const rec = (await ctx.api.records.get(dest.sheets[0].id)).data.records[0];
  assert.equal(rec.values["Shoe size"].value, "42");
});

test("a transform job applies a program: assign, concatenate, split, constant, trim, case, enum", async () => {
  const space = (await ctx.api.spaces.create({ name: "transform" })).data;
  const dest = (await ctx.api.workbooks.create({ name: "D", spaceId: space.id, sheets: [{ name: "People", slug: "people", fields: [
    { key: "full_name", type: "string" }, { key: "city", type: "string" }, { key: "zip", type: "string" }, { key: "source", type: "string" },
    { key: "code", type: "string" }, { key: "tier", type: "enum", config: { options: [{ value: "gold" }, { value: "silver" }] } }] }] })).data;
  const src = (await ctx.api.workbooks.create({ name: "S", spaceId: space.id, sheets: [{ name: "s", slug: "s", fields: [
    { key: "first", type: "string" }, { key: "last", type: "string" }, { key: "place", type: "string" }, { key: "ref", type: "string" }, { key: "level", type: "string" }] }] })).data;
  await ctx.api.records.insert(src.sheets[0].id, [{ first: { value: "Ada" }, last: { value: "King" }, place: { value: "10115, Berlin" }, ref: { value: "  ab-1 " }, level: { value: "G" } }]);
  const s = src.sheets[0], d = dest.sheets[0];
  const prog = (await ctx.api.mapping.createMappingProgram({ body: { source: { name: "s", fields: s.config.fields }, destination: { name: "d", fields: d.config.fields }, rules: [
    { name: "name", type: "concatenate", config: { sourceFields: ["first", "last"], destinationField: "full_name" } },
    { name: "place", type: "split", config: { sourceField: "place", destinationFields: ["zip", "city"], separator: "," } },
    { name: "src", type: "constant", config: { destinationField: "source", value: "import 2026" } },
    { name: "ref", type: "assign", config: { sourceField: "ref", destinationField: "code" } },
    { name: "trim ref", type: "trim", config: { field: "code" } },
    { name: "upper ref", type: "case", config: { field: "code", case: "upper" } },
    { name: "level", type: "assign", config: { sourceField: "level", destinationField: "tier" } },
    { name: "tiers", type: "enum", config: { destinationField: "tier", mapping: { G: "gold", S: "silver" } } },
  ] } })).data;
  const job = (await ctx.api.jobs.create({ type: "workbook", operation: "transform", source: src.id, destination: dest.id, trigger: "immediate",
    config: { sourceSheetId: s.id, destinationSheetId: d.id }, input: { programId: prog.id, version: "1", keepRecordIds: false } })).data;
  let j;
  for (let i = 0; i < 100; i++) {
    j = (await ctx.api.jobs.get(job.id)).data;
    if (j.status === "complete" || j.status === "failed") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(j.status, "complete", JSON.stringify(j.outcome));
  const v = (await ctx.api.records.get(d.id)).data.records[0].values;
  assert.deepEqual(Object.fromEntries(Object.entries(v).map(([k, c]) => [k, c.value])),
    { full_name: "Ada King", zip: "10115", city: "Berlin", source: "import 2026", code: "AB-1", tier: "gold" });
});

async function finished(id) {
  let j;
  for (let i = 0; i < 100; i++) {
    j = (await ctx.api.jobs.get(id)).data;
    if (j.status === "complete" || j.status === "failed") return j;
    await new Promise((r) => setTimeout(r, 100));
  }
  return j;
}

test("a transform job runs the program version it names; keepRecordIds rewrites records in place", async () => {
  const space = (await ctx.api.spaces.create({ name: "versions" })).data;
  const wb = (await ctx.api.workbooks.create({ name: "W", spaceId: space.id, sheets: [{ name: "p", slug: "p", fields: [
    { key: "first", type: "string" }, { key: "last", type: "string" }, { key: "full", type: "string" }] }] })).data;
  const sh = wb.sheets[0];
  const ids = (await ctx.api.records.insert(sh.id, [{ first: { value: "ada" }, last: { value: "King" } }, { first: { value: "bo" }, last: { value: "Li" } }])).data.records.map((r) => r.id);
  const prog = (await ctx.api.mapping.createMappingProgram({ body: { source: { name: "p", fields: sh.config.fields }, destination: { name: "p", fields: sh.config.fields }, rules: [
    { name: "join", type: "concatenate", config: { sourceFields: ["first", "last"], destinationField: "full" } }] } })).data;
  // Version 2 upper-cases the result as well.
  await ctx.api.mapping.createRules(prog.id, [{ name: "up", type: "case", config: { field: "full", case: "upper" } }]);
  const versions = await raw(ctx.srv.baseURL, "GET", `/v1/mapping/${prog.id}/versions`);
  assert.deepEqual(versions.body.data.map((v) => [v.version, v.ruleCount]), [["2", 2], ["1", 1]]);

  const run = async (input) => finished((await ctx.api.jobs.create({ type: "workbook", operation: "transform", source: wb.id, destination: wb.id, trigger: "immediate",
    config: { sourceSheetId: sh.id, destinationSheetId: sh.id }, input: { programId: prog.id, ...input } })).data.id);
  let j = await run({ version: "1", keepRecordIds: true });
  assert.equal(j.status, "complete", JSON.stringify(j.outcome));
  let recs = (await ctx.api.records.get(sh.id)).data.records;
  assert.deepEqual(recs.map((r) => [r.id, r.values.full.value]), [[ids[0], "ada King"], [ids[1], "bo Li"]]);

  j = await run({ keepRecordIds: true }); // no version: the rules as they are now
  recs = (await ctx.api.records.get(sh.id)).data.records;
  assert.deepEqual(recs.map((r) => [r.id, r.values.full.value]), [[ids[0], "ADA KING"], [ids[1], "BO LI"]]);

  j = await run({ version: "9" });
  assert.equal(j.status, "failed");
  assert.match(j.outcome.message, /no version 9 \(its latest is 2\)/);

  const other = (await ctx.api.workbooks.create({ name: "O", spaceId: space.id, sheets: [{ name: "o", slug: "o", fields: sh.config.fields }] })).data;
  const k = await finished((await ctx.api.jobs.create({ type: "workbook", operation: "transform", source: wb.id, destination: other.id, trigger: "immediate",
    config: { sourceSheetId: sh.id, destinationSheetId: other.sheets[0].id }, input: { programId: prog.id, keepRecordIds: true } })).data.id);
  assert.equal(k.status, "failed");
  assert.match(k.outcome.message, /same sheet/);
});

test("a new destination recomputes a program's suggestions, with program events", async () => {
  const prog = (await ctx.api.mapping.createMappingProgram({ body: { source, destination } })).data;
  const wider = { ...destination, fields: [...destination.fields, { key: "internal", type: "string", label: "zzz internal" }] };
  const again = (await ctx.api.mapping.updateMappingProgram(prog.id, { source, destination: wider })).data;
  assert.ok(again.rules.some((r) => r.config.destinationField === "internal"), JSON.stringify(again.rules.map((r) => r.config)));
  const topics = (await ctx.api.events.list({ domain: "program", includeAcknowledged: true, pageSize: 100 })).data.map((e) => e.topic);
  assert.ok(topics.includes("program:recomputing") && topics.includes("program:recomputed"), topics.join());
});
