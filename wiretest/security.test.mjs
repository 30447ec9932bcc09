// Issue 19 over the wire: the probe's chains replayed through the official @flatfile/api
// client against a real Sluice process, each now refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith, raw, adminToken, PUBLISHABLE } from "./lib.mjs";

const ctx = useServer();
const once = { maxRetries: 0 };

test("C2: a space made with the publishable key reads and writes no secret", async () => {
  const envId = (await ctx.api.environments.list()).data[0].id;
  await ctx.api.secrets.upsert({ name: "CRM", value: "not-for-spaces", environmentId: envId });
  const space = (await ctx.srv.client(PUBLISHABLE).spaces.create({ name: "embedded" })).data;
  const spaceClient = ctx.srv.client(space.accessToken);
  await rejectsWith(spaceClient.secrets.list({ environmentId: envId }, once), 403);
  await rejectsWith(spaceClient.secrets.upsert({ name: "CRM", value: "overwritten", environmentId: envId }, once), 403);
  await rejectsWith(spaceClient.users.list({}, once), 403);
  assert.equal((await spaceClient.spaces.get(space.id)).data.id, space.id, "the space token still reaches its space");
  const values = (await ctx.api.secrets.list({ environmentId: envId })).data.map((s) => s.value);
  assert.deepEqual(values, ["not-for-spaces"]);
});

test("C3: a key's invitee stays in its environment, and the key cannot touch account users", async () => {
  const admin = ctx.srv.client(await adminToken(ctx.srv.baseURL));
  const env2 = (await admin.environments.create({ name: "Two", isProd: false })).data;
  const sk2 = (await admin.auth.getApiKeys({ environmentId: env2.id })).data.find((k) => k.type === "SECRET").rawKey;
  const key2 = ctx.srv.client(sk2);
  const invited = (await key2.users.createAndInvite({ email: "two@example.com", name: "Two", actorRoles: [] })).data;
  assert.deepEqual((await key2.users.list({})).data.map((u) => u.email), ["two@example.com"], "environment 2's key lists only its users");
  assert.equal((await raw(ctx.srv.baseURL, "GET", "/v1/outbox", { token: sk2 })).status, 403, "no invitation link for a key");
  const adminUser = (await admin.users.list({ email: "admin@example.com" })).data[0];
  await rejectsWith(key2.users.delete(adminUser.id, once), 404);
  await rejectsWith(key2.users.get(adminUser.id, once), 404);
  await key2.users.delete(invited.id); // its own environment's user it may remove
  await rejectsWith(key2.users.get(invited.id, once), 404);
});

test("L7: a guest token reads neither environments nor the account", async () => {
  const envId = (await ctx.api.environments.list()).data[0].id;
  const space = (await ctx.api.spaces.create({ name: "guest space" })).data;
  const [g] = (await ctx.api.guests.create([{ environmentId: envId, email: "g@partner.io", name: "G", spaces: [{ id: space.id }] }])).data;
  const { token } = (await ctx.api.guests.getGuestToken(g.id, { spaceId: space.id })).data;
  const guest = ctx.srv.client(token);
  await rejectsWith(guest.environments.list({}, once), 403);
  await rejectsWith(guest.accounts.getCurrent(once), 403);
  assert.equal((await guest.spaces.get(space.id)).data.id, space.id);
});

test("M2: wrong passwords are throttled with 429 and Retry-After", async () => {
  const client = ctx.srv.client("unused");
  for (let i = 0; i < 6; i++) {
    await rejectsWith(client.auth.createAccessToken({ type: "userCredentials", email: "nobody@example.com", password: "wrong" }, once), 401);
  }
  const res = await raw(ctx.srv.baseURL, "POST", "/v1/auth", { token: "", body: { type: "userCredentials", email: "nobody@example.com", password: "wrong" } });
  assert.equal(res.status, 429);
  assert.match(res.body.errors[0].message, /Too many failed attempts/);
});

test("security headers on API answers that carry keys", async () => {
  const res = await fetch(`${ctx.srv.baseURL}/v1/auth/api-keys?environmentId=${(await ctx.api.environments.list()).data[0].id}`, {
    headers: { Authorization: `Bearer ${await adminToken(ctx.srv.baseURL)}` },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.match(res.headers.get("content-security-policy"), /default-src 'self'/);
});
