// The upload drop zone: a file chosen or dropped is sent at once, and htmx's upload progress
// events move the form's progress bar.
(() => {
  const send = (form) => htmx.trigger(form, "submit");
  const zoneOf = (e) => (e.target.closest ? e.target.closest("[data-dropzone]") : null);

  document.addEventListener("change", (e) => {
    const input = e.target;
    if (input.matches("form[data-upload] input[type=file]") && input.files.length) send(input.form);
  });
  for (const type of ["dragenter", "dragover"]) {
    document.addEventListener(type, (e) => {
      const zone = zoneOf(e);
      if (!zone) return;
      e.preventDefault();
      zone.classList.add("is-dragover");
    });
  }
  document.addEventListener("dragleave", (e) => zoneOf(e)?.classList.remove("is-dragover"));
  document.addEventListener("drop", (e) => {
    const zone = zoneOf(e);
    if (!zone) return;
    e.preventDefault();
    zone.classList.remove("is-dragover");
    const form = zone.closest("form");
    form.querySelector("input[type=file]").files = e.dataTransfer.files;
    send(form);
  });
  document.addEventListener("htmx:xhr:progress", (e) => {
    const form = e.target.closest ? e.target.closest("form[data-upload]") : null;
    if (!form || !e.detail.lengthComputable) return;
    const pct = Math.round((e.detail.loaded / e.detail.total) * 100);
    form.querySelector("[data-upload-progress] progress").value = pct;
    form.querySelector("[data-upload-percent]").textContent = pct + "%";
  });
  document.addEventListener("htmx:afterRequest", (e) => {
    if (e.target.matches && e.target.matches("form[data-upload]")) e.target.reset();
  });
})();
