// Issue 13: imports fail cleanly. The real binary is killed with SIGKILL while it extracts a
// file, while it maps a file into a sheet, and while it receives an upload; started again on
// the same data, each job and file is final within seconds and no partial records remain.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer, until } from "./lib.mjs";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-crash-"));

function bigCSV(rows) {
  const p = path.join(dir, `people-${rows}.csv`);
  const lines = ["Email,Name,City,Note"];
  for (let i = 0; i < rows; i++) lines.push(`person${i}@example.com,Person ${i},City ${i % 97},note ${i}`);
  fs.writeFileSync(p, lines.join("\n") + "\n");
  return p;
}

async function recordCount(api, sheetId) {
  return (await api.sheets.getRecordCounts(sheetId)).data.counts.total;
}

async function jobsOf(api, spaceId) {
  return (await api.jobs.list({ spaceId, pageSize: 100 })).data;
}

test("a SIGKILL during extraction leaves a failed file and no records", async () => {
  let srv = await startServer();
  try {
    let api = srv.client();
    const space = (await api.spaces.create({ name: "crash-extract" })).data;
    const up = (await api.files.upload(fs.createReadStream(bigCSV(400000)), { spaceId: space.id, environmentId: space.environmentId })).data;
    // Kill once rows are being written into the file's sheet.
    await until(async () => {
      const f = (await api.files.get(up.id)).data;
      return f.sheetId && (await recordCount(api, f.sheetId)) > 0;
    }, 60000);
    await srv.kill();
    const started = Date.now();
    srv = await startServer({ dataDir: srv.dataDir });
    api = srv.client();
    const f = (await api.files.get(up.id)).data;
    assert.equal(f.status, "failed");
    assert.match(f.description ?? "", /interrupted by a restart/i);
    assert.ok(!f.workbookId, "the file keeps no workbook");
    const extract = (await jobsOf(api, space.id)).find((j) => j.operation === "extract");
    assert.equal(extract.status, "failed", "the extraction job is final at once, not after the ack window");
    assert.match(extract.outcome?.message ?? extract.info ?? "", /Interrupted by a restart/);
    assert.ok(Date.now() - started < 20000);
    const wbs = (await api.workbooks.list({ spaceId: space.id })).data;
    assert.equal(wbs.length, 0, `no workbook with partial rows is left: ${wbs.map((w) => w.name)}`);
  } finally {
    await srv.stop();
  }
});

test("a SIGKILL during a map job leaves the destination as it was", async () => {
  let srv = await startServer();
  try {
    let api = srv.client();
    const space = (await api.spaces.create({ name: "crash-map" })).data;
    const dest = (await api.workbooks.create({ name: "CRM", spaceId: space.id, sheets: [{ name: "Contacts", slug: "contacts", fields: [
      { key: "email", type: "string", label: "Email" }, { key: "name", type: "string", label: "Name" }] }] })).data;
    const destSheet = dest.sheets[0].id;
    await api.records.insert(destSheet, [{ email: { value: "before@example.com" }, name: { value: "Before" } }]);
    const up = (await api.files.upload(fs.createReadStream(bigCSV(300000)), { spaceId: space.id, environmentId: space.environmentId })).data;
    let f;
    await until(async () => (f = (await api.files.get(up.id)).data).status === "complete", 120000);
    const job = (await api.jobs.create({ type: "workbook", operation: "map", source: f.workbookId, destination: dest.id, trigger: "immediate",
      config: { sourceSheetId: f.sheetId, destinationSheetId: destSheet } })).data;
    await until(async () => (await recordCount(api, destSheet)) > 1, 60000);
    await srv.kill();
    srv = await startServer({ dataDir: srv.dataDir });
    api = srv.client();
    const after = (await api.jobs.get(job.id)).data;
    assert.equal(after.status, "failed");
    assert.match(after.outcome?.message ?? "", /Interrupted by a restart/);
    assert.equal(await recordCount(api, destSheet), 1, "only the record from before the import remains");
  } finally {
    await srv.stop();
  }
});

test("a SIGKILL during an upload leaves no part behind", async () => {
  let srv = await startServer();
  try {
    const api = srv.client();
    const space = (await api.spaces.create({ name: "crash-upload" })).data;
    // A slow upload: the head and the first bytes, then nothing until the kill.
    const boundary = "----sluicecrash";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="spaceId"\r\n\r\n${space.id}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\nContent-Type: text/csv\r\n\r\nEmail\n`;
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(head + "a@example.com\n".repeat(20000)));
      },
    });
    const pending = fetch(`${srv.baseURL}/v1/files`, { method: "POST", body, duplex: "half",
      headers: { Authorization: "Bearer sk_wiretest_secret_0001", "Content-Type": `multipart/form-data; boundary=${boundary}` } }).catch(() => null);
    const files = path.join(srv.dataDir, "files");
    await until(() => fs.existsSync(files) && fs.readdirSync(files).some((n) => n.endsWith(".part")), 10000);
    await srv.kill();
    await pending;
    srv = await startServer({ dataDir: srv.dataDir });
    assert.deepEqual(fs.readdirSync(files).filter((n) => n.endsWith(".part")), [], "the part was removed at start");
  } finally {
    await srv.stop();
  }
});
