// Small helpers for Sluice pages; htmx does the rest.
document.addEventListener("htmx:responseError", (e) => {
  const box = document.getElementById("flash");
  if (!box) return;
  const xhr = e.detail.xhr;
  box.innerHTML = xhr.responseText || "Request failed (" + xhr.status + ")";
  box.hidden = false;
});

// Behaviours declared in the markup (the Content-Security-Policy allows no inline handlers):
// data-autosubmit submits its form on change; data-select-on-click selects its text;
// data-no-submit keeps a form from submitting; data-escape-cancels fires htmx's
// "sl-escape" trigger on Escape; data-reset-on-success clears an htmx form once it worked.
document.addEventListener("change", (e) => {
  const el = e.target;
  if (el instanceof Element && el.matches("[data-autosubmit]") && el.form) el.form.submit();
});
document.addEventListener("click", (e) => {
  const el = e.target;
  if (el instanceof HTMLInputElement && el.matches("[data-select-on-click]")) el.select();
});
document.addEventListener("submit", (e) => {
  if (e.target instanceof Element && e.target.matches("[data-no-submit]")) e.preventDefault();
});
document.addEventListener("keyup", (e) => {
  if (e.key === "Escape" && e.target instanceof Element && e.target.matches("[data-escape-cancels]") && window.htmx) {
    window.htmx.trigger(e.target, "sl-escape");
  }
});
document.addEventListener("htmx:afterRequest", (e) => {
  const form = e.detail.elt;
  if (!(form instanceof HTMLFormElement) || !form.matches("[data-reset-on-success]") || !e.detail.successful) return;
  form.reset();
  document.getElementById("spaces-empty")?.remove();
  const flash = document.getElementById("flash");
  if (flash) flash.hidden = true;
});

// A poll that chains itself (hx-trigger "load delay:…", data-poll-retry) stops at the first
// request that fails: a dropped connection or a server error would freeze a job's progress
// for good. Ask again a little later instead; a 4xx (the job is gone) ends it.
function retryPoll(e) {
  const el = e.detail.elt;
  const status = e.detail.xhr ? e.detail.xhr.status : 0;
  if (!(el instanceof Element) || !el.matches("[data-poll-retry]") || (status >= 400 && status < 500)) return;
  setTimeout(() => window.htmx && document.body.contains(el) && window.htmx.trigger(el, "sl-retry"), 2000);
}
document.addEventListener("htmx:sendError", retryPoll);
document.addEventListener("htmx:responseError", retryPoll);
document.addEventListener("htmx:timeout", retryPoll);

// data-toggle="<id>" shows and hides the element of that id (a phone's folded toolbar),
// saying so in aria-expanded.
document.addEventListener("click", (e) => {
  const btn = e.target instanceof Element ? e.target.closest("[data-toggle]") : null;
  const el = btn && document.getElementById(btn.dataset.toggle);
  if (!el) return;
  const open = el.classList.toggle("hidden") === false;
  el.classList.toggle("flex", open);
  btn.setAttribute("aria-expanded", String(open));
});
