// Issue 20: Flatfile's published extractor plugins — JSON, Excel and delimiter — run by
// Sluice's listener runner, extract the uploads their environment leaves to them
// (metadata.agentExtractors): each checks entitlements, creates the file's workbook, writes
// the records and completes the file — once, since Sluice does not extract the file as well.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { startServer, startRunner } from "./lib.mjs";

const XLSX = createRequire(import.meta.url)("xlsx");

let srv, api, runners, dir;

before(async () => {
  srv = await startServer();
  api = srv.client();
  runners = await Promise.all(
    ["json-extractor", "xlsx-extractor", "delimiter-extractor"].map((m) => startRunner(srv, `agents/examples/${m}.mjs`)),
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-extractors-"));
});
after(async () => {
  for (const r of runners) r.stop();
  await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const logs = () => runners.map((r) => r.log()).join("\n---\n");

// extractedBy uploads name (written by write) into a new space whose environment leaves
// extensions to the plugins, waits for the file to complete and returns its one workbook.
async function extractedBy(name, write) {
  const space = (await api.spaces.create({ name })).data;
  await api.environments.update(space.environmentId, { metadata: { agentExtractors: ["json", "xlsx", "psv"] } });
  const file = path.join(dir, name);
  write(file);
  const up = (await api.files.upload(fs.createReadStream(file), { spaceId: space.id, environmentId: space.environmentId })).data;
  let f;
  for (const started = Date.now(); ; ) {
    f = (await api.files.get(up.id)).data;
    if (f.status === "complete" || f.status === "failed") break;
    if (Date.now() - started > 15000) assert.fail(`no plugin extracted ${name} in 15 s (status ${f.status}); runner logs:\n${logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(f.status, "complete", `runner logs:\n${logs()}`);
  const wbs = (await api.workbooks.list({ spaceId: space.id, includeSheets: true })).data;
  assert.equal(wbs.length, 1, "one [file] workbook: Sluice did not extract the file as well");
  return wbs[0];
}

async function names(sheet) {
  return (await api.records.get(sheet.id)).data.records.map((r) => r.values.name?.value);
}

test("the published JSON extractor extracts a .json upload the environment leaves to it, once", async () => {
  const wb = await extractedBy("people.json", (f) => fs.writeFileSync(f, JSON.stringify([{ name: "Ada", email: "ada@x.io" }, { name: "Bob", email: "bob@x.io" }])));
  assert.deepEqual(await names(wb.sheets[0]), ["Ada", "Bob"]);
});

test("the published Excel extractor extracts every sheet of an .xlsx upload, once", async () => {
  const wb = await extractedBy("people.xlsx", (f) => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([["name", "email"], ["Ada", "ada@x.io"], ["Bob", "bob@x.io"]]), "People");
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([["name", "city"], ["Cy", "Lagos"]]), "Cities");
    XLSX.writeFile(book, f);
  });
  const sheets = Object.fromEntries(wb.sheets.map((s) => [s.name, s]));
  assert.deepEqual(Object.keys(sheets).sort(), ["Cities", "People"]);
  assert.deepEqual(await names(sheets.People), ["Ada", "Bob"]);
  assert.deepEqual(await names(sheets.Cities), ["Cy"]);
});

test("the published delimiter extractor extracts a pipe-separated .psv upload, once", async () => {
  const wb = await extractedBy("people.psv", (f) => fs.writeFileSync(f, "name|email\nAda|ada@x.io\nBob|bob@x.io\n"));
  assert.deepEqual(await names(wb.sheets[0]), ["Ada", "Bob"]);
});
