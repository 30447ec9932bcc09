// Issue 8: apps and their constraints through the official client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith, raw } from "./lib.mjs";

const ctx = useServer();

test("apps: create, list, get, update, delete; spaces filter by appId", async () => {
  const app = (await ctx.api.apps.create({ name: "Vendor portal", namespace: "vendors", type: "PORTAL", metadata: { team: "ops" } })).data;
  assert.match(app.id, /^us_app_/);
  assert.equal(app.entity, "Record");
  assert.equal(app.entityPlural, "Records");
  assert.ok(app.createdAt instanceof Date);
  await rejectsWith(ctx.api.apps.create({ name: "Again", namespace: "vendors", type: "PORTAL" }), 409, /namespace "vendors"/);
  const bad = await raw(ctx.srv.baseURL, "POST", "/v1/apps", { body: { name: "Bad", namespace: "bad", type: "NOPE" } }); // the client refuses it itself
  assert.equal(bad.status, 400);
  assert.match(bad.body.errors[0].message, /type must be one of/);
  const up = (await ctx.api.apps.update(app.id, { name: "Vendor onboarding", entity: "Vendor", activatedAt: new Date("2026-11-01T00:00:00Z") })).data;
  assert.equal(up.name, "Vendor onboarding");
  assert.equal(up.entity, "Vendor");
  assert.equal(up.activatedAt.toISOString(), "2026-11-01T00:00:00.000Z");
  assert.deepEqual((await ctx.api.apps.list()).data.map((a) => a.id), [app.id]);
  assert.equal((await ctx.api.apps.get(app.id)).data.namespace, "vendors");

  const tmpl = (await ctx.api.spaces.create({ name: "Vendor template", appId: app.id, isAppTemplate: true })).data;
  await ctx.api.spaces.create({ name: "Vendor A", appId: app.id });
  const templates = (await ctx.api.spaces.list({ appId: app.id, isAppTemplate: true })).data;
  assert.deepEqual(templates.map((s) => s.id), [tmpl.id]);

  assert.equal((await ctx.api.apps.delete(app.id)).success, true);
  await rejectsWith(ctx.api.apps.get(app.id), 404, /App not found/);
});

test("app constraints: create, list with builtins, get, versions, update, delete", async () => {
  const app = (await ctx.api.apps.create({ name: "CRM", namespace: "crm", type: "WORKBOOKS" })).data;
  const k = (await ctx.api.apps.createConstraint(app.id, { label: "Valid VAT id", description: "EU VAT format", function: "return /^[A-Z]{2}/.test(value)", options: { strict: true } })).data;
  assert.equal(k.validator, "valid_vat_id");
  assert.equal(k.appId, app.id);
  const unnamed = (await ctx.api.apps.createConstraint(app.id, {})).data;
  assert.equal(unnamed.validator, "constraint_2");
  await rejectsWith(ctx.api.apps.createConstraint(app.id, { validator: "valid_vat_id" }), 409, /already has a constraint/);

  const mine = (await ctx.api.apps.getConstraints(app.id)).data;
  assert.deepEqual(mine.map((c) => c.id), [k.id, unnamed.id]);
  const all = (await ctx.api.apps.getConstraints(app.id, { includeBuiltins: true })).data;
  assert.ok(all.some((c) => c.validator === "required") && all.length === mine.length + 5);

  const changed = (await ctx.api.apps.updateConstraint(app.id, k.id, { description: "EU VAT id, two-letter country prefix" })).data;
  assert.equal(changed.description, "EU VAT id, two-letter country prefix");
  const versions = (await ctx.api.apps.getConstraintVersions(app.id, k.id)).data;
  assert.deepEqual(versions.map((v) => [v.version, v.description]), [[1, "EU VAT format"], [2, "EU VAT id, two-letter country prefix"]]);
  assert.equal((await ctx.api.apps.getConstraintVersion(app.id, k.id, 1)).data.description, "EU VAT format");
  await rejectsWith(ctx.api.apps.getConstraintVersion(app.id, k.id, 9), 404, /no version 9/);
  assert.equal((await ctx.api.apps.getConstraintById(app.id, k.id)).data.options.strict, true);
  assert.equal((await ctx.api.apps.deleteConstraint(app.id, k.id)).success, true);
  await rejectsWith(ctx.api.apps.getConstraintById(app.id, k.id), 404, /Constraint not found/);
});
