// Small helpers for Sluice pages; htmx does the rest.
document.addEventListener("htmx:responseError", (e) => {
  const box = document.getElementById("flash");
  if (!box) return;
  const xhr = e.detail.xhr;
  box.innerHTML = xhr.responseText || "Request failed (" + xhr.status + ")";
  box.hidden = false;
});
