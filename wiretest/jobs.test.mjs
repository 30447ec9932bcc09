// Issue 4 over the wire: jobs driven through the official @flatfile/api 1.23.0 client against a
// real Sluice process — every endpoint, the state machine's 409s, outcomes and job events.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, watchValidationWarnings, raw, rejectsWith } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, envId, spaceId;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  envId = (await api.environments.list()).data[0].id;
  spaceId = (await api.spaces.create({ name: "Jobs", environmentId: envId, autoConfigure: true })).data.id;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

async function jobEvents(jobId) {
  const { data } = await api.events.list({ environmentId: envId, domain: "job", includeAcknowledged: true, pageSize: 1000 });
  return data.filter((e) => e.context.jobId === jobId);
}

test("a space created with autoConfigure has a ready space:configure job; others have none", async () => {
  const plain = (await api.spaces.create({ name: "No build", environmentId: envId })).data.id;
  assert.equal((await api.jobs.list({ spaceId: plain })).data.length, 0);
  const { data, pagination } = await api.jobs.list({ spaceId });
  assert.equal(data.length, 1);
  assert.equal(pagination.totalCount, 1);
  const j = data[0];
  assert.equal(j.type, "space");
  assert.equal(j.operation, "configure");
  assert.equal(j.status, "ready");
  assert.equal(j.source, spaceId);
  const evs = await jobEvents(j.id);
  assert.deepEqual(evs.map((e) => e.topic), ["job:created", "job:ready"]);
  assert.equal(evs[1].payload.job, "space:configure");
  assert.equal(evs[1].context.spaceId, spaceId);
});

test("a job's whole life: create, execute, ack, update, complete, outcome ack, delete", async () => {
  const created = (await api.jobs.create({ type: "space", operation: "export", source: spaceId, metadata: { k: "v" } })).data;
  assert.match(created.id, /^us_jb_/);
  assert.equal(created.status, "created");
  assert.ok(created.createdAt instanceof Date);
  assert.equal(created.createdBy.length > 0, true);
  assert.deepEqual((await api.jobs.execute(created.id)).data, { success: true });
  await rejectsWith(api.jobs.execute(created.id, once), 409);

  const eta = new Date(Date.now() + 60000);
  const acked = (await api.jobs.ack(created.id, { info: "Accepted", progress: 10, estimatedCompletionAt: eta })).data;
  assert.equal(acked.status, "executing");
  assert.equal(acked.progress, 10);
  assert.ok(acked.startedAt instanceof Date);
  const updated = (await api.jobs.update(created.id, { progress: 50, info: "halfway", metadata: { k: "w" } })).data;
  assert.equal(updated.progress, 50);
  assert.deepEqual(updated.metadata, { k: "w" });

  const outcome = { acknowledge: true, heading: "Done", message: "Exported", buttonText: "Open", hideDefaultButton: false,
    trigger: { type: "manual", audience: "all" }, next: { type: "view", sheetId: "us_sh_1", hiddenColumns: ["a"], label: "Look" } };
  const done = (await api.jobs.complete(created.id, { outcome, info: "ok" })).data;
  assert.equal(done.status, "complete");
  assert.equal(done.progress, 100);
  assert.ok(done.finishedAt instanceof Date);
  assert.deepEqual(done.outcome.next, { type: "view", sheetId: "us_sh_1", hiddenColumns: ["a"], label: "Look" });

  const err = await rejectsWith(api.jobs.fail(created.id, {}, once), 409);
  assert.match(err.body.errors[0].message, /complete to failed/);
  await rejectsWith(api.jobs.retry(created.id, once), 409);
  const seen = (await api.jobs.ackOutcome(created.id)).data;
  assert.ok(seen.outcomeAcknowledgedAt instanceof Date);

  const got = (await api.jobs.get(created.id)).data;
  assert.equal(got.status, "complete");
  const topics = (await jobEvents(created.id)).map((e) => e.topic);
  assert.deepEqual(topics, ["job:created", "job:ready", "job:updated", "job:updated", "job:completed", "job:outcome-acknowledged"]);

  assert.deepEqual((await api.jobs.delete(created.id)).data, { success: true });
  await rejectsWith(api.jobs.get(created.id, once), 404);
});

test("fail, retry and cancel", async () => {
  const j = (await api.jobs.create({ type: "space", operation: "flaky", source: spaceId, trigger: "immediate", mode: "background" })).data;
  assert.equal(j.status, "ready");
  await api.jobs.ack(j.id);
  const failed = (await api.jobs.fail(j.id, { info: "boom", outcome: { acknowledge: true, message: "boom", next: { type: "retry", label: "Again" } } })).data;
  assert.equal(failed.status, "failed");
  const again = (await api.jobs.retry(j.id)).data;
  assert.equal(again.status, "ready");
  assert.equal(again.outcome, undefined);
  const canceled = (await api.jobs.cancel(j.id, { info: "enough" })).data;
  assert.equal(canceled.status, "canceled");
  await rejectsWith(api.jobs.ack(j.id, {}, once), 409);
  const evs = await jobEvents(j.id);
  assert.deepEqual(evs.map((e) => e.topic), ["job:created", "job:ready", "job:updated", "job:failed", "job:ready", "job:updated"]);
  assert.equal(evs[3].payload.status, "failed");
  assert.equal(evs[3].payload.info, "boom");
});

test("outcome.next in every variant the client knows", async () => {
  const variants = [
    { type: "id", id: "us_sh_1", path: "/x", query: "a=1", label: "Go" },
    { type: "url", url: "https://example.com", label: "Docs" },
    { type: "download", url: "https://example.com/f.csv", fileName: "f.csv", label: "Get" },
    { type: "files", files: [{ fileId: "us_fl_1", label: "F" }], label: "Files" },
    { type: "wait", fade: true, confetti: true },
    { type: "snapshot", snapshotId: "us_ss_1", sheetId: "us_sh_1" },
    { type: "retry", label: "Retry" },
    { type: "view", sheetId: "us_sh_1", hiddenColumns: [], label: "View" },
    { type: "clearFilters", sheetIds: ["us_sh_1"], label: "Clear" },
  ];
  for (const next of variants) {
    const j = (await api.jobs.create({ type: "space", operation: "n", source: spaceId, trigger: "immediate" })).data;
    const done = (await api.jobs.complete(j.id, { outcome: { message: "m", trigger: "automatic", next } })).data;
    assert.deepEqual(done.outcome.next, next);
  }
});

test("predecessors: waiting until they complete", async () => {
  const a = (await api.jobs.create({ type: "space", operation: "a", source: spaceId, trigger: "immediate" })).data;
  const b = (await api.jobs.create({ type: "space", operation: "b", source: spaceId, trigger: "immediate", predecessorIds: [a.id] })).data;
  assert.equal(b.status, "waiting");
  await api.jobs.complete(a.id);
  assert.equal((await api.jobs.get(b.id)).data.status, "ready");
});

test("list filters and pagination", async () => {
  const s2 = (await api.spaces.create({ name: "Other", environmentId: envId, autoConfigure: true })).data.id;
  const parent = (await api.jobs.create({ type: "space", operation: "big", source: s2 })).data;
  for (const part of [1, 2]) await api.jobs.create({ type: "space", operation: "big", source: s2, parentId: parent.id, part });
  assert.equal((await api.jobs.list({ spaceId: s2 })).data.length, 4);
  assert.equal((await api.jobs.list({ spaceId: s2, excludeChildJobs: true })).data.length, 2);
  assert.equal((await api.jobs.list({ parentId: parent.id })).data.length, 2);
  assert.equal((await api.jobs.list({ source: s2, environmentId: envId })).data.length, 4);
  const page = await api.jobs.list({ spaceId: s2, pageSize: 3, pageNumber: 2, sortDirection: "desc" });
  assert.equal(page.data.length, 1);
  assert.deepEqual(page.pagination, { currentPage: 2, pageCount: 2, totalCount: 4 });
  assert.equal(page.data[0].operation, "configure");
});

test("input and config checks: transform defaults, delete-records config", async () => {
  const t = (await api.jobs.create({ type: "workbook", operation: "transform", source: spaceId, input: { programId: "us_mp_1", version: "2" } })).data;
  assert.deepEqual(t.input, { programId: "us_mp_1", version: "2", keepRecordIds: false });
  const bad = await raw(srv.baseURL, "POST", "/v1/jobs", { body: { type: "sheet", operation: "delete-records", source: spaceId, config: { sheet: "us_sh_x", filterField: "email" } } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.errors[0].key, "config.filterField");
  await rejectsWith(api.jobs.create({ type: "space", operation: "x", source: "us_sp_missing" }, once), 404);
  await rejectsWith(api.jobs.create({ type: "space", operation: "x", source: spaceId, status: "complete" }, once), 400);
  await rejectsWith(api.jobs.get("us_jb_missing", once), 404);
});
