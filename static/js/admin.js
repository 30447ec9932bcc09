// The theme editor's live preview: each key's variable is set on the preview as you type.
(() => {
  document.addEventListener("input", (e) => {
    const input = e.target.closest?.("[data-theme-editor] input[data-var]");
    if (!input) return;
    const preview = document.querySelector("[data-theme-preview]");
    if (!preview) return;
    if (input.value.trim() === "") preview.style.removeProperty(input.dataset.var);
    else preview.style.setProperty(input.dataset.var, input.value.trim());
  });
})();
