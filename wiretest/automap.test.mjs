// Flatfile's real @flatfile/plugin-automap, run by Sluice's listener runner: an uploaded CSV
// is extracted, planned and mapped into the primary workbook's Contacts sheet with no code
// change to the plugin.
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
  runner = await startRunner(srv, "agents/examples/automap.mjs");
});
after(async () => {
  runner.stop();
  await srv.stop();
});

test("an upload lands in the target sheet through automap", async () => {
  const space = (await api.spaces.create({ name: "automap" })).data;
  const target = (await api.workbooks.create({ name: "CRM", spaceId: space.id, labels: ["primary"], sheets: [{ name: "Contacts", slug: "contacts", fields: [
    { key: "first_name", type: "string", label: "First name" }, { key: "last_name", type: "string", label: "Last name" }, { key: "email", type: "string", label: "Email" }] }] })).data;
  const p = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "automap-")), "people.csv");
  fs.writeFileSync(p, "First Name,Last Name,Email\nAda,Lovelace,ada@example.com\nAlan,Turing,alan@example.com\n");
  await api.files.upload(fs.createReadStream(p), { spaceId: space.id, environmentId: space.environmentId });
  const deadline = Date.now() + 15000;
  let recs = [];
  while (recs.length < 2) {
    if (Date.now() > deadline) assert.fail(`automap did not map the file in 15 s; runner log:\n${runner.log()}`);
    await new Promise((r) => setTimeout(r, 200));
    recs = (await api.records.get(target.sheets[0].id)).data.records;
  }
  assert.equal(recs[0].values.first_name.value, "Ada");
  assert.equal(recs[1].values.email.value, "alan@example.com");
  const mapJobs = (await api.jobs.list({ spaceId: space.id })).data.filter((j) => j.operation === "map");
  assert.equal(mapJobs.length, 1);
  assert.equal(mapJobs[0].input.isAutomap, true);
});
