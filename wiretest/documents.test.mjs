// Documents through the official client: create, list (data is an array of Document), get,
// update, delete, with document:* events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith } from "./lib.mjs";

const ctx = useServer();

test("documents: create, list, get, update, delete", async () => {
  const space = (await ctx.api.spaces.create({ name: "docs" })).data;
  const doc = (await ctx.api.documents.create(space.id, { title: "Getting started", body: "# Welcome\nUpload a file.", treatments: ["ephemeral"] })).data;
  assert.match(doc.id, /^us_dc_/);
  assert.ok(doc.createdAt instanceof Date);
  const list = (await ctx.api.documents.list(space.id)).data;
  assert.ok(Array.isArray(list));
  assert.deepEqual(list.map((d) => d.title), ["Getting started"]);
  assert.equal((await ctx.api.documents.get(space.id, doc.id)).data.body, "# Welcome\nUpload a file.");
  const upd = (await ctx.api.documents.update(space.id, doc.id, { title: "Start here", body: "<p>Hi</p>" })).data;
  assert.equal(upd.title, "Start here");
  await ctx.api.documents.delete(space.id, doc.id);
  await rejectsWith(ctx.api.documents.get(space.id, doc.id, { maxRetries: 0 }), 404);
  const topics = (await ctx.api.events.list({ spaceId: space.id, domain: "document", includeAcknowledged: true })).data.map((e) => e.topic);
  assert.deepEqual(topics, ["document:created", "document:updated", "document:deleted"]);
});
