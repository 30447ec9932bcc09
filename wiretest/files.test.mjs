// Files over the wire: the client's multipart upload, extraction into a workbook, records,
// the job's outcome, download, detect-header and bad files.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer, watchValidationWarnings, rejectsWith } from "./lib.mjs";

let srv, api, warnings, space, dir;
before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  space = (await api.spaces.create({ name: "uploads" })).data;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-files-"));
});
after(async () => {
  warnings.restore();
  await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

function file(name, bytes) {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return p;
}

async function settled(id) {
  for (let i = 0; i < 100; i++) {
    const f = (await api.files.get(id)).data;
    if (f.status === "complete" || f.status === "failed") return f;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail("extraction did not finish in 10 s");
}

test("upload a Windows-1252 semicolon CSV and read back the extracted records", async () => {
  const latin1 = Buffer.from("Export of 2026-11-01\n\nName;City;Note\nM\xfcller;K\xf6ln;\"two\nlines\"\n;;\nZo\xe9;Paris;x\n\n\n", "latin1");
  const up = (await api.files.upload(fs.createReadStream(file("people.csv", latin1)), { spaceId: space.id, environmentId: space.environmentId })).data;
  assert.match(up.id, /^us_fl_/);
  assert.equal(up.name, "people.csv");
  const f = await settled(up.id);
  assert.equal(f.status, "complete", f.description);
  assert.equal(f.encoding, "windows-1252");
  const wb = (await api.workbooks.get(f.workbookId)).data;
  assert.equal(wb.name, "[file] people.csv");
  assert.deepEqual(wb.labels, ["file"]);
  assert.deepEqual(wb.sheets[0].config.fields.map((x) => x.key), ["Name", "City", "Note"]);
  const recs = (await api.records.get(f.sheetId)).data.records;
  assert.equal(recs.length, 3, "the empty record between values is kept, trailing ones trimmed");
  assert.equal(recs[0].values.Name.value, "Müller");
  assert.equal(recs[0].values.Note.value, "two\nlines");
  assert.equal(recs[2].values.Name.value, "Zoé");
  const jobs = (await api.jobs.list({ spaceId: space.id, fileId: up.id })).data.filter((j) => j.operation === "extract");
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0].status, "complete");
  assert.match(jobs[0].outcome.message, /Extracted 3 records/);
  const files = (await api.files.list({ spaceId: space.id })).data;
  assert.ok(files.some((x) => x.id === up.id));
  assert.equal((await api.spaces.get(space.id)).data.filesCount >= 1, true);
});

test("JSON uploads are flattened; download returns the bytes", async () => {
  const json = JSON.stringify([{ id: 1, person: { first: "Ada", last: "Lovelace" } }, { id: 2, person: { first: "Alan" } }]);
  const up = (await api.files.upload(fs.createReadStream(file("people.json", json)), { spaceId: space.id, environmentId: space.environmentId })).data;
  const f = await settled(up.id);
  assert.equal(f.status, "complete", f.description);
  const recs = (await api.records.get(f.sheetId)).data.records;
  assert.equal(recs[0].values["person.first"].value, "Ada");
  const res = await fetch(`${srv.baseURL}/v1/files/${up.id}/download`, { headers: { Authorization: "Bearer sk_wiretest_secret_0001" } });
  assert.equal(await res.text(), json);
  await api.files.update(up.id, { name: "renamed.json" });
  assert.equal((await api.files.get(up.id)).data.name, "renamed.json");
  await api.files.delete(up.id);
  await rejectsWith(api.files.get(up.id, { maxRetries: 0 }), 404);
});

test("a bad file fails its extraction with a readable reason and touches nothing else", async () => {
  const before = (await api.workbooks.list({ spaceId: space.id })).data.length;
  const up = (await api.files.upload(fs.createReadStream(file("broken.xlsx", Buffer.from("PK\x03\x04garbage"))), { spaceId: space.id, environmentId: space.environmentId })).data;
  const f = await settled(up.id);
  assert.equal(f.status, "failed");
  assert.match(f.description, /damaged or truncated/);
  assert.equal((await api.workbooks.list({ spaceId: space.id })).data.length, before);
  const empty = (await api.files.upload(fs.createReadStream(file("empty.csv", "")), { spaceId: space.id, environmentId: space.environmentId })).data;
  assert.match((await settled(empty.id)).description, /no data/);
});

test("detect-header skips title lines", async () => {
  const res = (await api.files.detectHeader({ options: { algorithm: "default", rowsToSearch: 20 }, data: [["Report"], [], ["id", "name", "email"], ["1", "A", "a@x"]] })).data;
  assert.deepEqual(res.header, ["id", "name", "email"]);
  assert.equal(res.headerRow, 3);
  assert.deepEqual(res.letters, ["A", "B", "C"]);
});

test("detect-header reads each column's date order and decimal separator", async () => {
  const res = (await api.files.detectHeader({ options: { algorithm: "default" }, data: [["DOB", "Revenue"], ["23/08/1984", "621,113.00"], ["05/08/1963", "1,234.50"]] })).data;
  assert.deepEqual(res.header, ["DOB", "Revenue"]);
  const [dob] = res.formats[0];
  assert.equal(dob.kind, "date");
  assert.equal(dob.format, "DMY");
  assert.equal(dob.proof, 1);
  const [revenue] = res.formats[1];
  assert.equal(revenue.kind, "number");
  assert.equal(revenue.format, ".");
  assert.equal(revenue.readable, 2);
});

test("export a sheet as CSV and XLSX, all or filtered", async () => {
  const wb = (await api.workbooks.create({ name: "Out", spaceId: space.id, sheets: [{ name: "People", slug: "people", fields: [{ key: "name", type: "string", label: "Name" }, { key: "age", type: "number", label: "Age" }] }] })).data;
  const sheetId = wb.sheets[0].id;
  await api.records.insert(sheetId, [{ name: { value: "Ann, \"the first\"" }, age: { value: 31 } }, { name: { value: "Bob" }, age: { value: "not a number" } }]);
  const get = (q) => fetch(`${srv.baseURL}/v1/sheets/${sheetId}/download${q}`, { headers: { Authorization: "Bearer sk_wiretest_secret_0001" } });
  const all = await get("");
  assert.equal(all.headers.get("content-type"), "text/csv; charset=utf-8");
  assert.equal(await all.text(), 'Name,Age\n"Ann, ""the first""",31\nBob,not a number\n');
  assert.equal(await (await get("?filter=valid")).text(), 'Name,Age\n"Ann, ""the first""",31\n');
  const bad = await get("?q=age%20%3D%3D");
  assert.equal(bad.status, 400);
  const xlsx = await get("?format=xlsx");
  assert.equal(xlsx.status, 200);
  const buf = Buffer.from(await xlsx.arrayBuffer());
  assert.equal(buf.subarray(0, 2).toString(), "PK", "an XLSX is a zip archive");
});

test("export jobs: a sheet to CSV and a workbook to XLSX, with a download outcome", async () => {
  const wb = (await api.workbooks.create({ name: "Quarter", spaceId: space.id, sheets: [
    { name: "Orders", slug: "orders", fields: [{ key: "sku", type: "string", label: "SKU" }, { key: "qty", type: "number", label: "Qty" }] },
    { name: "Notes", slug: "notes", fields: [{ key: "text", type: "string" }] },
  ] })).data;
  const [orders] = wb.sheets;
  await api.records.insert(orders.id, [{ sku: { value: "A-1" }, qty: { value: 2 } }, { sku: { value: "B-2" }, qty: { value: "many" } }]);
  const done = async (id) => {
    for (let i = 0; i < 100; i++) {
      const j = (await api.jobs.get(id)).data;
      if (j.status === "complete" || j.status === "failed") return j;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail("export job did not finish");
  };
  const csvJob = await done((await api.jobs.create({ type: "sheet", operation: "export", source: orders.id, trigger: "immediate", config: { options: { filter: "valid" } } })).data.id);
  assert.equal(csvJob.status, "complete", JSON.stringify(csvJob.outcome));
  assert.equal(csvJob.outcome.next.type, "download");
  assert.equal(csvJob.outcome.next.fileName, "orders.csv");
  const csv = await fetch(srv.baseURL + csvJob.outcome.next.url, { headers: { Authorization: "Bearer sk_wiretest_secret_0001" } });
  assert.equal(await csv.text(), "SKU,Qty\nA-1,2\n");
  const xlsxJob = await done((await api.jobs.create({ type: "workbook", operation: "export", source: wb.id, trigger: "immediate" })).data.id);
  assert.equal(xlsxJob.status, "complete", JSON.stringify(xlsxJob.outcome));
  assert.equal(xlsxJob.outcome.next.fileName, "quarter.xlsx");
  const exported = (await api.files.list({ spaceId: space.id, mode: "export" })).data.map((f) => f.name).sort();
  assert.deepEqual(exported, ["orders.csv", "quarter.xlsx"]);
});
