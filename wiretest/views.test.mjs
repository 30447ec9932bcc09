// Saved views through the client: create, list with pagination (My Views via createdBy),
// get, update, delete.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith } from "./lib.mjs";

const ctx = useServer();

test("views: create, list, get, update, delete", async () => {
  const api = ctx.api;
  const space = (await api.spaces.create({ name: "views" })).data;
  const wb = (await api.workbooks.create({ name: "W", spaceId: space.id, sheets: [{ name: "T", fields: [{ key: "a", type: "string" }] }] })).data;
  const sheetId = wb.sheets[0].id;
  const v = (await api.views.create({ sheetId, name: "Errors first", config: { filter: "error", sortField: "a", sortDirection: "desc" } })).data;
  assert.match(v.id, /^us_vi_/);
  assert.ok(v.createdBy);
  await api.views.create({ sheetId, name: "Search", config: { searchValue: "x" } });
  const page = await api.views.list({ sheetId, pageSize: 1, pageNumber: 2 });
  assert.deepEqual(page.data.map((x) => x.name), ["Search"]);
  assert.equal(page.pagination.totalCount, 2);
  assert.equal((await api.views.get(v.id)).data.config.filter, "error");
  const upd = (await api.views.update(v.id, { name: "Only errors", config: { filter: "error" } })).data;
  assert.equal(upd.name, "Only errors");
  await api.views.delete(v.id);
  await rejectsWith(api.views.get(v.id, { maxRetries: 0 }), 404);
  await rejectsWith(api.views.create({ sheetId, name: "", config: {} }, { maxRetries: 0 }), 400);
});
