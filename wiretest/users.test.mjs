// Issue 8: users and invitations through the official client; the invitation mail lands in
// the outbox (no SMTP configured).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith, raw, adminToken } from "./lib.mjs";

const ctx = useServer();

test("users: createAndInvite, list, get, update, resendInvite, delete", async () => {
  const u = (await ctx.api.users.createAndInvite({ email: "ana@example.com", name: "Ana", actorRoles: [] })).data;
  assert.match(u.id, /^us_usr_/);
  assert.deepEqual(u.actorRoles, []);
  assert.ok(u.createdAt instanceof Date);
  await rejectsWith(ctx.api.users.createAndInvite({ email: "ana@example.com", name: "Ana", actorRoles: [] }), 409, /already exists/);
  const listed = await ctx.api.users.list({ search: "ana" });
  assert.deepEqual(listed.data.map((x) => x.email), ["ana@example.com"]);
  assert.equal((await ctx.api.users.get(u.id)).data.name, "Ana");
  assert.equal((await ctx.api.users.update(u.id, { name: "Ana Silva" })).data.name, "Ana Silva");
  await ctx.api.users.resendInvite(u.id);
  // Invitation links are for account users: the secret key that invited Ana cannot read them.
  assert.equal((await raw(ctx.srv.baseURL, "GET", "/v1/outbox")).status, 403);
  const outbox = await raw(ctx.srv.baseURL, "GET", "/v1/outbox", { token: await adminToken(ctx.srv.baseURL) });
  const mails = outbox.body.data.filter((m) => m.to === "ana@example.com");
  assert.equal(mails.length, 2);
  assert.match(mails[0].html, /\/invite\/inv_/);
  assert.notEqual(mails[0].html.match(/inv_\w+/)[0], mails[1].html.match(/inv_\w+/)[0]);
  await ctx.api.users.delete(u.id);
  await rejectsWith(ctx.api.users.get(u.id), 404, /User not found/);
});

test("guests.invite mails a guest link in the space's email theme", async () => {
  const space = (await ctx.api.spaces.create({ name: "Vendor intake", metadata: { theme: { email: { buttonBgColor: "#0f766e", titleColor: "red;}x{", logo: "https://cdn.example.com/logo.png" } } } })).data;
  const g = (await ctx.api.guests.create([{ environmentId: space.environmentId, email: "vendor@partner.io", name: "Vee", spaces: [{ id: space.id }] }])).data[0];
  await ctx.api.guests.invite([{ guestId: g.id, spaceId: space.id, fromName: "Ops", message: "Please upload your price list." }]);
  const mail = (await raw(ctx.srv.baseURL, "GET", "/v1/outbox", { token: await adminToken(ctx.srv.baseURL) })).body.data.find((m) => m.to === "vendor@partner.io");
  assert.ok(mail, "no mail in the outbox");
  assert.match(mail.subject, /Ops invited you to Vendor intake/);
  assert.match(mail.html, new RegExp(`/space/${space.id}\\?token=`));
  assert.match(mail.html, /background:#0f766e/);
  assert.match(mail.html, /https:\/\/cdn\.example\.com\/logo\.png/);
  assert.doesNotMatch(mail.html, /red;\}x\{/);
  assert.match(mail.html, /Please upload your price list\./);
});
