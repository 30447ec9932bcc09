// Secrets through the client: upsert (names with spaces), list by scope, delete.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer } from "./lib.mjs";

const ctx = useServer();

test("secrets: upsert, list with space precedence, delete", async () => {
  const api = ctx.api;
  const envId = (await api.environments.list()).data[0].id;
  const space = (await api.spaces.create({ name: "sec" })).data;
  await api.secrets.upsert({ name: "CRM api key", value: "env-wide", environmentId: envId });
  const afterSpace = (await api.secrets.upsert({ name: "CRM api key", value: "for this space", environmentId: envId, spaceId: space.id })).data;
  assert.deepEqual(afterSpace.map((s) => s.value), ["env-wide", "for this space"]);
  assert.match(afterSpace[0].id, /^us_sec_/);
  const listed = (await api.secrets.list({ environmentId: envId, spaceId: space.id })).data;
  const byName = new Map(listed.map((s) => [s.name, s.value]));
  assert.equal(byName.get("CRM api key"), "for this space", "the space's secret wins, as event.secrets() reads it");
  const left = (await api.secrets.delete(afterSpace[1].id)).data;
  assert.deepEqual(left.map((s) => s.value), ["env-wide"]);
});
