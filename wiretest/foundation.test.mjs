// Issue 2 over the wire: auth, accounts, environments, spaces and events driven through the
// official @flatfile/api 1.23.0 client against a real Sluice process.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, watchValidationWarnings, raw, rejectsWith, SECRET, PUBLISHABLE, EMAIL, PASSWORD } from "./lib.mjs";

const once = { maxRetries: 0 };
let srv, api, warnings, envId;

before(async () => {
  srv = await startServer();
  api = srv.client();
  warnings = watchValidationWarnings();
  envId = (await api.environments.list()).data[0].id;
});
after(async () => {
  warnings.restore();
  await srv.stop();
  assert.deepEqual(warnings.seen, [], "the client logged deserialization warnings");
});

async function userToken() {
  const res = await srv.client("unused").auth.createAccessToken({ type: "userCredentials", email: EMAIL, password: PASSWORD });
  assert.ok(res.accessToken, "no accessToken");
  return res.accessToken;
}

test("token exchange at /v1/auth and /api/v1/auth", async () => {
  const tok = await userToken();
  const me = srv.client(tok);
  const envs = await me.environments.list();
  assert.equal(envs.data.length, 1);
  const spec = await raw(srv.baseURL, "POST", "/api/v1/auth", { token: null, body: { email: EMAIL, password: PASSWORD } });
  assert.equal(spec.status, 200);
  assert.ok(spec.body.accessToken && spec.body.expires && spec.body.userId, JSON.stringify(spec.body));
  const api2 = await srv.client("unused").auth.createAccessToken({ type: "apiCredentials", clientId: envId, secret: SECRET });
  assert.ok((await srv.client(api2.accessToken).spaces.list()).data);
  const bad = await raw(srv.baseURL, "POST", "/v1/auth", { token: null, body: { type: "userCredentials", email: EMAIL, password: "wrong-password" } });
  assert.equal(bad.status, 401);
  assert.ok(bad.body.errors[0].message);
});

test("missing and wrong tokens get 401", async () => {
  for (const token of [null, "sk_not_a_key", "eyJhbGciOiJIUzI1NiJ9.e30.x"]) {
    const r = await raw(srv.baseURL, "GET", "/v1/spaces", { token });
    assert.equal(r.status, 401, `token ${token}`);
    assert.ok(r.body.errors[0].message);
  }
  await rejectsWith(srv.client("sk_wrong").spaces.list({}, once), 401);
});

test("accounts: get and update the current account", async () => {
  const acc = (await api.accounts.getCurrent()).data;
  assert.match(acc.id, /^us_acc_/);
  assert.ok(acc.createdAt instanceof Date);
  const me = srv.client(await userToken());
  const upd = (await me.accounts.updateCurrent({ name: "Acme Imports" })).data;
  assert.equal(upd.name, "Acme Imports");
});

test("environments: create, get, update (bare), list, delete, keys and events", async () => {
  const me = srv.client(await userToken());
  await rejectsWith(api.environments.create({ name: "nope", isProd: false }, once), 403);
  const env = (await me.environments.create({ name: "Staging", isProd: false, namespaces: ["red", "blue"], metadata: { showSpaceInfo: false } })).data;
  assert.match(env.id, /^us_env_/);
  assert.deepEqual(env.namespaces, ["red", "blue"]);
  assert.equal(env.metadata.showSpaceInfo, false);
  const got = (await me.environments.get(env.id)).data;
  assert.equal(got.name, "Staging");
  const upd = await me.environments.update(env.id, { name: "Stage", metadata: { showSpaceInfo: true } });
  assert.equal(upd.name, "Stage", "PATCH answers a bare Environment");
  assert.equal(upd.metadata.showSpaceInfo, true);
  const list = await me.environments.list({ pageSize: 10 });
  assert.equal(list.data.length, 2);
  assert.equal(list.pagination.totalCount, 2);
  const keys = (await me.auth.getApiKeys({ environmentId: env.id })).data;
  assert.ok(keys.some((k) => k.type === "SECRET" && k.rawKey.startsWith("sk_")), JSON.stringify(keys));
  assert.ok(keys.some((k) => k.type === "PUBLISHABLE" && k.rawKey.startsWith("pk_")));
  // Keys are stored as hashes: the secret key was shown in that first list and never again.
  const again = (await me.auth.getApiKeys({ environmentId: env.id })).data;
  const sk = again.find((k) => k.type === "SECRET");
  assert.equal(sk.rawKey, undefined, JSON.stringify(sk));
  assert.match(sk.secret, /^sk_\w{3}…\w{4}$/);
  await me.environments.delete(env.id);
  await rejectsWith(me.environments.get(env.id, once), 404);
  const events = (await me.events.list({ domain: "environment", includeAcknowledged: true, pageSize: 100 })).data.filter((e) => e.context.environmentId === env.id);
  assert.deepEqual(events.map((e) => e.topic), ["environment:created", "environment:updated", "environment:deleted"]);
});

test("spaces: create, get, update, list filters, pagination", async () => {
  await api.environments.update(envId, { namespaces: ["red", "blue"] });
  const plain = (await api.spaces.create({ name: "plain", metadata: { theme: { root: { borderColor: "#222" } } } })).data;
  assert.match(plain.id, /^us_sp_/);
  assert.ok(plain.createdAt instanceof Date && plain.lastActivityAt instanceof Date);
  assert.equal(plain.lastActivityAt.getMilliseconds(), 0, "lastActivityAt at second precision");
  assert.equal(plain.metadata.theme.root.borderColor, "#222");
  assert.equal(plain.archivedAt ?? null, null, "a new space is not archived");
  const red = (await api.spaces.create({ name: "red space", namespace: "red", appId: "us_app_alpha" })).data;
  const tmpl = (await api.spaces.create({ name: "template", namespace: "blue", isAppTemplate: true })).data;
  const err = await rejectsWith(api.spaces.create({ name: "x", namespace: "green" }, once), 400);
  assert.equal(err.body.errors[0].key, "namespace");

  const names = async (q) => (await api.spaces.list(q)).data.map((s) => s.name).sort();
  assert.deepEqual(await names({}), ["plain", "red space", "template"]);
  assert.deepEqual(await names({ appId: "us_app_alpha" }), ["red space"]);
  assert.deepEqual(await names({ appId: "us_app_unknown" }), []);
  assert.deepEqual(await names({ namespace: "" }), ["plain"]);
  assert.deepEqual(await names({ namespace: "blue" }), ["template"]);
  assert.deepEqual(await names({ isAppTemplate: true }), ["template"]);
  assert.deepEqual(await names({ search: "SPACE" }), ["red space"]);
  const page = await api.spaces.list({ pageSize: 2, pageNumber: 2, sortField: "name", sortDirection: "asc" });
  assert.deepEqual(page.data.map((s) => s.name), ["template"]);
  assert.deepEqual(page.pagination, { currentPage: 2, pageCount: 2, totalCount: 3 });

  const renamed = (await api.spaces.update(red.id, { name: "crimson", namespace: "blue" })).data;
  assert.equal(renamed.name, "crimson");
  assert.equal(renamed.namespace, "blue");
  assert.equal((await api.spaces.get(red.id)).data.name, "crimson");
  await rejectsWith(api.spaces.get("us_sp_missing", once), 404);
  await api.spaces.delete(tmpl.id);
  await rejectsWith(api.spaces.get(tmpl.id, once), 404);
});

test("spaces: archive and unarchive both ways, with events", async () => {
  const s = (await api.spaces.create({ name: "to archive" })).data;
  await api.spaces.archiveSpace(s.id);
  const archived = (await api.spaces.get(s.id)).data;
  assert.ok(archived.archivedAt instanceof Date);
  assert.ok(!(await api.spaces.list({})).data.some((x) => x.id === s.id), "archived spaces are hidden by default");
  assert.ok((await api.spaces.list({ archived: true })).data.some((x) => x.id === s.id));
  await api.spaces.unarchiveSpace(s.id);
  assert.equal((await api.spaces.get(s.id)).data.archivedAt ?? null, null);
  await api.spaces.archiveSpace(s.id);
  const patched = await raw(srv.baseURL, "PATCH", `/spaces/${s.id}`, { body: { archivedAt: null } });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.data.archivedAt, null);
  const viaAlias = await raw(srv.baseURL, "GET", `/spaces/${s.id}`);
  assert.equal(viaAlias.body.data.id, s.id);
  const topics = (await api.events.list({ spaceId: s.id, includeAcknowledged: true, pageSize: 50 })).data.map((e) => e.topic);
  assert.deepEqual(topics.filter((t) => t.endsWith("archived")), ["space:archived", "space:unarchived", "space:archived", "space:unarchived"]);
});

test("publishable key creates a space and its token reaches only that space", async () => {
  const pub = srv.client(PUBLISHABLE);
  const s = (await pub.spaces.create({ name: "embedded", environmentId: envId })).data;
  assert.ok(s.accessToken, "a space created with a publishable key carries an accessToken");
  await rejectsWith(pub.spaces.list({}, once), 403);
  const scoped = srv.client(s.accessToken);
  assert.equal((await scoped.spaces.get(s.id)).data.name, "embedded");
  const other = (await api.spaces.create({ name: "private" })).data;
  await rejectsWith(scoped.spaces.get(other.id, once), 404);
});

test("a key of one environment cannot read another environment's spaces", async () => {
  const me = srv.client(await userToken());
  const env2 = (await me.environments.create({ name: "Other", isProd: true })).data;
  const sk2 = (await me.auth.getApiKeys({ environmentId: env2.id })).data.find((k) => k.type === "SECRET").rawKey;
  const mine = (await api.spaces.create({ name: "env one only" })).data;
  const other = srv.client(sk2);
  await rejectsWith(other.spaces.get(mine.id, once), 404);
  assert.deepEqual((await other.spaces.list({})).data, []);
  await rejectsWith(other.events.list({ environmentId: envId }, once), 403);
});

test("events: list filters, since, get, ack, create", async () => {
  const start = new Date(Date.now() - 1000);
  const s = (await api.spaces.create({ name: "evented" })).data;
  // domain: every new space also gets a space:configure job whose events carry its spaceId.
  const list = (await api.events.list({ environmentId: envId, spaceId: s.id, domain: "space", since: start, includeAcknowledged: true })).data;
  assert.deepEqual(list.map((e) => e.topic), ["space:created"]);
  const ev = list[0];
  assert.match(ev.id, /^us_evt_/);
  assert.equal(ev.domain, "space");
  assert.equal(ev.context.spaceId, s.id);
  assert.equal(ev.context.environmentId, envId);
  assert.ok(ev.context.accountId);
  assert.ok(ev.createdAt instanceof Date);
  assert.equal((await api.events.get(ev.id)).data.topic, "space:created");
  await api.events.ack(ev.id);
  assert.deepEqual((await api.events.list({ spaceId: s.id, domain: "space" })).data, [], "acknowledged events are left out by default");
  const few = (await api.events.list({ topic: "space:created", includeAcknowledged: true, pageSize: 2 })).data;
  assert.equal(few.length, 2);
  const custom = (await api.events.create({ topic: "job:ready", domain: "job", payload: { x: 1 }, context: { accountId: ev.context.accountId, environmentId: envId, actionId: "us_act_1" } })).data;
  assert.equal(custom.context.actionId, "us_act_1");
  await rejectsWith(api.events.get("us_evt_unknown", once), 404);
});

test("bad input gets a clear error and writes nothing", async () => {
  const before = (await api.spaces.list({ pageSize: 100 })).pagination.totalCount;
  for (const body of ['{"name":', '{"name":5}', '{"metadata":"x"}', "[]"]) {
    const r = await raw(srv.baseURL, "POST", "/v1/spaces", { body });
    assert.equal(r.status, 400, body);
    assert.ok(r.body.errors[0].message, body);
  }
  const big = await raw(srv.baseURL, "POST", "/v1/spaces", { body: JSON.stringify({ name: "x".repeat(11 << 20) }) });
  assert.equal(big.status, 413);
  assert.ok(big.body.errors[0].message);
  const bad = await raw(srv.baseURL, "GET", "/v1/spaces?pageSize=abc");
  assert.equal(bad.status, 400);
  assert.equal((await api.spaces.list({ pageSize: 100 })).pagination.totalCount, before);
});

test("personal access tokens: created once-shown, used account-wide, listed, revoked at once", async () => {
  const me = srv.client(await userToken());
  const created = (await me.auth.createPersonalAccessToken({ name: "ci bot" })).data;
  assert.match(created.token, /^pat_/);
  assert.equal(created.personalAccessToken.name, "ci bot");
  const viaPat = srv.client(created.token);
  assert.ok((await viaPat.environments.list()).data.length >= 1);
  const list = (await me.auth.listPersonalAccessTokens()).data;
  const mine = list.find((t) => t.id === created.personalAccessToken.id);
  assert.ok(mine && mine.createdAt instanceof Date && mine.lastUsedAt instanceof Date);
  await me.auth.deletePersonalAccessToken(created.personalAccessToken.id, {});
  await rejectsWith(viaPat.spaces.list({}, once), 401);
});
