// Action dialogs (guardrail, input form) and job panels.
(() => {
  document.addEventListener("click", (e) => {
    const open = e.target.closest("[data-dialog-open]");
    if (open) {
      const dialog = document.getElementById(open.dataset.dialogOpen);
      const field = dialog?.querySelector("select[name=field]");
      if (field && open.dataset.field) field.value = open.dataset.field; // a column menu's find & replace
      open.closest("details")?.removeAttribute("open");
      dialog?.showModal();
      return;
    }
    const close = e.target.closest("[data-dialog-close]");
    if (close) {
      close.closest("dialog")?.close();
      return;
    }
    const dismiss = e.target.closest("[data-dismiss]");
    if (dismiss) dismiss.closest("[data-dismissable], [id^=panel-]")?.remove();
  });
  // A dialog's form closes its dialog once the action's job is created; an error keeps it open.
  document.addEventListener("htmx:afterRequest", (e) => {
    const form = e.target.closest ? e.target.closest("form[data-dialog-form]") : null;
    if (!form) return;
    const box = form.querySelector("[data-dialog-error]");
    if (e.detail.successful) {
      if (box) box.hidden = true;
      form.closest("dialog")?.close();
    } else if (box) {
      box.innerHTML = e.detail.xhr.responseText;
      box.hidden = false;
      e.detail.handled = true;
    }
  });
})();
