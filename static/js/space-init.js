// /space-init: the page Flatfile's SDK preloads in its frame. When the host has created the
// space it posts portal:initialize with the space's address; the frame goes there (only to
// a page of this Sluice).
window.addEventListener("message", (e) => {
  const ev = e.data && e.data.flatfileEvent;
  if (!ev || ev.topic !== "portal:initialize" || !ev.payload || !ev.payload.spaceUrl) return;
  const target = new URL(ev.payload.spaceUrl, location.href);
  if (target.origin === location.origin && target.pathname.startsWith("/space/")) location.replace(target.toString());
});
