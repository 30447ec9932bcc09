// Issue 8: data clips through the official client; a public clip's link opens the clip sheet
// (and nothing else of the space) with a token that stays the same across updates and stops
// working when restricted (issue 38).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith, raw } from "./lib.mjs";

const ctx = useServer();

test("data clips: create, add records, list, update, shared links, delete", async () => {
  const space = (await ctx.api.spaces.create({ name: "clips" })).data;
  const wb = (await ctx.api.workbooks.create({ name: "W", spaceId: space.id, sheets: [{ name: "Orders", slug: "orders", fields: [
    { key: "order", type: "string", constraints: [{ type: "unique" }] }, { key: "amount", type: "number" }] }] })).data;
  const sheet = wb.sheets[0];
  const recs = (await ctx.api.records.insert(sheet.id, [{ order: { value: "A-1" }, amount: { value: 10 } }, { order: { value: "A-2" }, amount: { value: "x" } }, { order: { value: "A-3" } }])).data.records;

  const clip = await ctx.api.dataClips.create({ name: "Disputed orders", sourceSheetId: sheet.id, description: "for finance" });
  assert.match(clip.id, /^us_clp_/);
  assert.equal(clip.status, "active");
  assert.equal(clip.sharedLinkAccess, "restricted");
  assert.equal(clip.accessToken, undefined);
  assert.ok(clip.guestLinkUrl.endsWith(`/space/${space.id}/sheet/${clip.clipSheetId}`), clip.guestLinkUrl);
  assert.notEqual(clip.clipSheetId, sheet.id);

  const added = await ctx.api.dataClips.addRecordsToClip(clip.id, { recordIds: [recs[0].id, recs[1].id] });
  assert.equal(added.records.length, 2);
  assert.equal(added.records[0].values.order.value, "A-1");
  assert.equal(added.records[1].valid, false, "validation runs on the copies");
  assert.equal(added.records[0].metadata.sourceRecordId, recs[0].id);
  await rejectsWith(ctx.api.dataClips.addRecordsToClip(clip.id, { recordIds: [added.records[0].id] }), 404, /not in the clip.s source sheet|not found/i);
  assert.equal((await ctx.api.records.get(clip.clipSheetId)).data.records.length, 2);

  const listed = (await ctx.api.dataClips.list({ spaceId: space.id })).data;
  assert.deepEqual(listed.map((e) => e.data.id), [clip.id]);
  assert.equal((await ctx.api.dataClips.list({ sheetId: sheet.id })).data.length, 1);

  // Public: a link to the clip sheet with a token, kept on later updates.
  const pub = (await ctx.api.dataClips.update(clip.id, { name: "Disputed orders", sharedLinkAccess: "public", collaborators: ["us_usr_x"] })).data;
  assert.ok(pub.accessToken && pub.guestLinkUrl.endsWith(`/space/${space.id}/sheet/${clip.clipSheetId}?token=${pub.accessToken}`), pub.guestLinkUrl);
  const again = (await ctx.api.dataClips.update(clip.id, { name: "Disputed orders Q3", status: "merged" })).data;
  assert.equal(again.accessToken, pub.accessToken, "the token is reused, not regenerated");
  assert.ok(again.mergedAt instanceof Date);
  const asGuest = await raw(ctx.srv.baseURL, "GET", `/v1/sheets/${clip.clipSheetId}/records`, { token: pub.accessToken });
  assert.equal(asGuest.status, 200);
  assert.equal(asGuest.body.data.records.length, 2);
  // The link reads its clip sheet only, and does not write it unless the clip says so.
  for (const [method, path] of [["GET", `/v1/sheets/${sheet.id}/records`], ["GET", `/v1/spaces/${space.id}`], ["DELETE", `/v1/workbooks/${wb.id}`],
    ["GET", `/v1/events?spaceId=${space.id}`], ["POST", `/v1/sheets/${clip.clipSheetId}/records`]]) {
    const r = await raw(ctx.srv.baseURL, method, path, { token: pub.accessToken, body: method === "POST" ? [] : undefined });
    assert.ok(r.status === 403 || r.status === 404, `${method} ${path} with the clip link: ${r.status}`);
  }
  assert.equal((await ctx.api.records.get(sheet.id)).data.records.length, 3, "the source sheet is untouched");

  // Restricted again: the token stops working at once; the link is the sheet's address.
  const restricted = (await ctx.api.dataClips.update(clip.id, { name: "Disputed orders Q3", sharedLinkAccess: "restricted" })).data;
  assert.equal(restricted.accessToken, undefined);
  assert.ok(restricted.guestLinkUrl.endsWith(`/sheet/${clip.clipSheetId}`));
  assert.equal((await raw(ctx.srv.baseURL, "GET", `/v1/sheets/${clip.clipSheetId}/records`, { token: pub.accessToken })).status, 401);

  const topics = (await ctx.api.events.list({ spaceId: space.id, domain: "data-clip", pageSize: 100, includeAcknowledged: true })).data.map((e) => e.topic);
  assert.ok(topics.includes("data-clip:created") && topics.includes("data-clip:updated") && topics.includes("data-clip:collaborator-updated"), topics.join());

  assert.equal((await ctx.api.dataClips.get(clip.id)).data.name, "Disputed orders Q3");
  await ctx.api.dataClips.delete(clip.id);
  await rejectsWith(ctx.api.dataClips.get(clip.id), 404, /Data clip not found/);
});
