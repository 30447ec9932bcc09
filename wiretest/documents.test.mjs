// Documents through the official client: create, list (data is an array of Document), get,
// update, delete, with document:* events.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, watchValidationWarnings, rejectsWith } from "./lib.mjs";

let srv, api, warnings;
before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

test("documents: create, list, get, update, delete", async () => {
  const space = (await api.spaces.create({ name: "docs" })).data;
  const doc = (await api.documents.create(space.id, { title: "Getting started", body: "# Welcome\nUpload a file.", treatments: ["ephemeral"] })).data;
  assert.match(doc.id, /^us_dc_/);
  assert.ok(doc.createdAt instanceof Date);
  const list = (await api.documents.list(space.id)).data;
  assert.ok(Array.isArray(list));
  assert.deepEqual(list.map((d) => d.title), ["Getting started"]);
  assert.equal((await api.documents.get(space.id, doc.id)).data.body, "# Welcome\nUpload a file.");
  const upd = (await api.documents.update(space.id, doc.id, { title: "Start here", body: "<p>Hi</p>" })).data;
  assert.equal(upd.title, "Start here");
  await api.documents.delete(space.id, doc.id);
  await rejectsWith(api.documents.get(space.id, doc.id, { maxRetries: 0 }), 404);
  const topics = (await api.events.list({ spaceId: space.id, domain: "document", includeAcknowledged: true })).data.map((e) => e.topic);
  assert.deepEqual(topics, ["document:created", "document:updated", "document:deleted"]);
});
