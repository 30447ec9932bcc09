// Issue 20: Flatfile's published @flatfile/plugin-json-extractor, run by Sluice's listener
// runner, extracts a .json upload its environment leaves to it (metadata.agentExtractors):
// it checks entitlements, creates the file's workbook, writes the records and completes the
// file — once, since Sluice does not extract the file as well.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer, startRunner } from "./lib.mjs";

let srv, api, runner;

before(async () => {
  srv = await startServer();
  api = srv.client();
  runner = await startRunner(srv, "agents/examples/json-extractor.mjs");
});
after(async () => {
  runner.stop();
  await srv.stop();
});

test("the published JSON extractor extracts a .json upload the environment leaves to it, once", async () => {
  const space = (await api.spaces.create({ name: "json" })).data;
  await api.environments.update(space.environmentId, { metadata: { agentExtractors: ["json"] } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-json-"));
  const file = path.join(dir, "people.json");
  fs.writeFileSync(file, JSON.stringify([{ name: "Ada", email: "ada@x.io" }, { name: "Bob", email: "bob@x.io" }]));
  const up = (await api.files.upload(fs.createReadStream(file), { spaceId: space.id, environmentId: space.environmentId })).data;
  let f;
  for (const started = Date.now(); ; ) {
    f = (await api.files.get(up.id)).data;
    if (f.status === "complete" || f.status === "failed") break;
    if (Date.now() - started > 15000) assert.fail(`the plugin did not extract the file in 15 s (status ${f.status}); runner log:\n${runner.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(f.status, "complete", `runner log:\n${runner.log()}`);
  const wbs = (await api.workbooks.list({ spaceId: space.id, includeSheets: true })).data;
  assert.equal(wbs.length, 1, "one [file] workbook: Sluice did not extract the file as well");
  const sheetId = wbs[0].sheets[0].id;
  const recs = (await api.records.get(sheetId)).data.records;
  assert.deepEqual(recs.map((r) => r.values.name.value), ["Ada", "Bob"]);
});
