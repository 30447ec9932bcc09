// Guests through the client: create with a space, list, token, reach, revoke.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useServer, rejectsWith } from "./lib.mjs";

const ctx = useServer();

test("a guest token opens only the granted space, until the grant is removed", async () => {
  const api = ctx.api;
  const envId = (await api.environments.list()).data[0].id;
  const a = (await api.spaces.create({ name: "granted" })).data;
  const b = (await api.spaces.create({ name: "private" })).data;
  const [g] = (await api.guests.create([{ environmentId: envId, email: "pat@partner.io", name: "Pat", spaces: [{ id: a.id }] }])).data;
  assert.match(g.id, /^us_g_/);
  assert.deepEqual((await api.guests.list({ spaceId: a.id })).data.map((x) => x.email), ["pat@partner.io"]);
  const { token } = (await api.guests.getGuestToken(g.id, { spaceId: a.id })).data;
  const guest = ctx.srv.client(token);
  assert.equal((await guest.spaces.get(a.id)).data.name, "granted");
  await rejectsWith(guest.spaces.get(b.id, { maxRetries: 0 }), 404);
  await api.guests.delete(g.id, { spaceId: a.id });
  await rejectsWith(guest.spaces.get(a.id, { maxRetries: 0 }), 401);
});
