// A page opened inside another site's frame by Flatfile's browser SDKs (or Sluice's own
// embed): it has no cookies, so every request it makes carries the token it was opened with,
// and the space's events are relayed to the host page as the SDKs expect:
// window.parent.postMessage({ flatfileEvent: event }).
(() => {
  const meta = document.querySelector('meta[name="sluice-embed-token"]');
  if (!meta) return;
  const token = meta.content;
  const sameOrigin = (url) => {
    try {
      return new URL(url, location.href).origin === location.origin;
    } catch {
      return false;
    }
  };

  // fetch() of the page's scripts: the header instead of the cookie.
  const plainFetch = window.fetch.bind(window);
  window.fetch = (input, init = {}) => {
    const url = typeof input === "string" ? input : input.url;
    if (sameOrigin(url)) {
      const headers = new Headers(init.headers || (typeof input === "string" ? undefined : input.headers));
      if (!headers.has("X-Sluice-Token")) headers.set("X-Sluice-Token", token);
      init = { ...init, headers };
    }
    return plainFetch(input, init);
  };

  // Links and GET forms to other pages of Sluice keep the token in their address.
  const withToken = (href) => {
    const u = new URL(href, location.href);
    if (u.origin === location.origin && !u.searchParams.has("token")) u.searchParams.set("token", token);
    return u.toString();
  };
  document.addEventListener("click", (e) => {
    const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (!a || a.target === "_blank" || a.hasAttribute("download") || !sameOrigin(a.href) || a.getAttribute("href").startsWith("#")) return;
    a.href = withToken(a.href);
  }, true);
  document.addEventListener("submit", (e) => {
    const f = e.target;
    if (!(f instanceof HTMLFormElement) || (f.method || "get").toLowerCase() !== "get" || f.querySelector('input[name="token"]')) return;
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = "token";
    input.value = token;
    f.appendChild(input);
  }, true);

  // The space's events, as they happen, to the host page.
  const m = location.pathname.match(/^\/space\/([^/]+)/);
  if (!m || window.parent === window) return;
  const params = new URLSearchParams({ spaceId: m[1] });
  const replay = new URLSearchParams(location.search).get("replayEvents") === "true";
  let since = replay ? "1970-01-01T00:00:00Z" : "";
  // The last event relayed survives the frame's page loads (an action's outcome closes with a
  // redirect): the next page resumes after it, so an event raised while the page changed —
  // job:outcome-acknowledged, which closes the host's importer — is not lost.
  const seenKey = "sl-embed-last-event:" + m[1];
  const remember = (id) => {
    try {
      sessionStorage.setItem(seenKey, id);
    } catch {
      // no storage in this frame: resume from now on the next page
    }
  };
  let lastId = "";
  try {
    if (!replay) lastId = sessionStorage.getItem(seenKey) || "";
  } catch {
    lastId = "";
  }
  async function relay() {
    for (;;) {
      const q = new URLSearchParams(params);
      if (since && !lastId) q.set("since", since);
      try {
        const headers = { Authorization: "Bearer " + token, Accept: "text/event-stream" };
        if (lastId) headers["Last-Event-ID"] = lastId;
        const resp = await plainFetch("/v1/events/stream?" + q, { headers });
        if (resp.status === 401 || resp.status === 403) return; // the token ended
        const reader = resp.body.getReader();
        const decoder = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          for (let i; (i = buf.indexOf("\n\n")) >= 0; buf = buf.slice(i + 2)) {
            const lines = buf.slice(0, i).split("\n");
            const id = lines.find((l) => l.startsWith("id: "));
            const data = lines.find((l) => l.startsWith("data: "));
            if (id) {
              lastId = id.slice(4);
              remember(lastId);
            }
            if (!data) continue;
            const event = JSON.parse(data.slice(6));
            window.parent.postMessage({ flatfileEvent: event }, "*");
            // and to the page itself: the grid follows changes made elsewhere (a host's hook)
            document.dispatchEvent(new CustomEvent("sl-event", { detail: event }));
          }
        }
      } catch {
        // the connection dropped: reconnect after a pause, from the last event seen
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  relay();
})();
