// The grid as a spreadsheet: a rectangular selection (click, Shift+click, Shift+arrows,
// Ctrl/Cmd+A), copy as TSV and an HTML table, paste of TSV or CSV from a spreadsheet (from the
// active cell rightwards and down, adding records past the last row), and undo / redo of the
// user's last 50 changes in the sheet. Every change is one POST to …/edit, written as one
// commit by the records store, which keeps the user's undo history: undo and redo are a POST
// to …/undo or …/redo, and every answer says whether there is something left to undo or redo.
(() => {
  const grid = () => document.querySelector("[data-grid][data-edit-url]");
  const isCell = (el) => el instanceof Element && el.matches("td[data-cell]");
  let anchor = null; // where the selection started (the active cell)
  let end = null; // the opposite corner

  // --- selection ---------------------------------------------------------------------
  const rowsOf = () => Array.from(document.querySelectorAll("#grid-body > tr[data-record]"));
  const cellsOf = (tr) => Array.from(tr.querySelectorAll(":scope > td[data-cell]"));
  function position(td) {
    const tr = td.closest("tr");
    return { row: rowsOf().indexOf(tr), col: cellsOf(tr).indexOf(td) };
  }
  function range() {
    if (!anchor || !end || !document.contains(anchor) || !document.contains(end)) return null;
    const a = position(anchor), b = position(end);
    return { top: Math.min(a.row, b.row), bottom: Math.max(a.row, b.row), left: Math.min(a.col, b.col), right: Math.max(a.col, b.col) };
  }
  // selected is the selection's cells, row by row (the active cell alone when there is none).
  function selected() {
    const r = range();
    if (!r) return [];
    return rowsOf().slice(r.top, r.bottom + 1).map((tr) => cellsOf(tr).slice(r.left, r.right + 1));
  }
  function paint() {
    document.querySelectorAll("#grid-body td.sl-selected").forEach((td) => td.classList.remove("sl-selected"));
    const cells = selected();
    if (cells.length === 1 && cells[0].length === 1) return; // one cell: its focus ring says it
    cells.flat().forEach((td) => td.classList.add("sl-selected"));
  }
  function select(from, to) {
    anchor = from;
    end = to;
    paint();
  }
  function step(td, dx, dy) {
    const p = position(td);
    const rows = rowsOf();
    const tr = rows[Math.max(0, Math.min(rows.length - 1, p.row + dy))];
    const cells = tr ? cellsOf(tr) : [];
    return cells[Math.max(0, Math.min(cells.length - 1, p.col + dx))] || td;
  }

  document.addEventListener("click", (e) => {
    const td = e.target.closest?.("td[data-cell]");
    if (!td || !grid()) return;
    if (e.shiftKey && anchor && document.contains(anchor)) {
      e.preventDefault();
      select(anchor, td);
      anchor.focus();
    } else {
      select(td, td);
    }
  });
  // Shift+click must not move the focus (the active cell stays where the range began).
  // typed is the character that opened a cell's editor: it replaces the editor's value once
  // the editor is on the page.
  let typed = null;
  document.addEventListener("htmx:afterSettle", () => {
    if (!typed) return;
    const ed = document.querySelector(`td[data-editing][data-record="${CSS.escape(typed.record)}"][data-key="${CSS.escape(typed.key)}"]`);
    const input = ed?.querySelector("input:not([type=hidden]), textarea");
    if (!ed) return;
    if (input) {
      input.value = typed.text;
      input.focus();
      input.setSelectionRange(input.value.length, input.value.length);
    }
    typed = null;
  });
  document.addEventListener("mousedown", (e) => {
    if (e.shiftKey && e.target.closest?.("td[data-cell]") && anchor && document.contains(anchor)) e.preventDefault();
  });
  document.addEventListener("focusin", (e) => {
    if (isCell(e.target) && e.target !== anchor && !e.target.classList.contains("sl-selected")) select(e.target, e.target);
  });

  document.addEventListener(
    "keydown",
    (e) => {
      if (!grid()) return;
      const mod = e.ctrlKey || e.metaKey;
      const inEditor = e.target.closest?.("td[data-editing]") || e.target.matches?.("input, textarea, select");
      if (mod && !e.altKey && (e.key === "z" || e.key === "Z" || e.key === "y") && !inEditor) {
        e.preventDefault();
        if (e.key === "y" || e.shiftKey) redo();
        else undo();
        return;
      }
      if (!isCell(e.target)) return;
      const moves = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
      if (e.shiftKey && moves[e.key]) {
        // Shift+arrows grow the selection; the active cell stays where it began.
        e.preventDefault();
        e.stopImmediatePropagation();
        select(anchor && document.contains(anchor) ? anchor : e.target, step(end && document.contains(end) ? end : e.target, ...moves[e.key]));
        return;
      }
      if ((e.key === "Delete" || e.key === "Backspace") && !mod && !e.altKey) {
        // Delete and Backspace clear the selected cells (the active one alone), in one edit
        // the undo history holds; read-only fields are skipped by the server.
        const g = grid();
        if (!g?.dataset.editUrl) return;
        e.preventDefault();
        const cells = selected().length ? selected() : [[e.target]];
        const set = cells.map((row) => ({ id: row[0].closest("tr").dataset.record, values: Object.fromEntries(row.map((td) => [td.dataset.key, null])) }));
        apply(g.dataset.editUrl, { what: "edit", set }, { rows: set.length, quiet: true });
        return;
      }
      if (e.key.length === 1 && !mod && !e.altKey && e.target.hasAttribute("hx-get") && grid()?.dataset.editUrl) {
        // Typing on a cell starts editing it with what was typed, as in a spreadsheet.
        e.preventDefault();
        typed = { record: e.target.dataset.record, key: e.target.dataset.key, text: e.key };
        htmx.trigger(e.target, "edit");
        return;
      }
      if (mod && (e.key === "d" || e.key === "D")) {
        // Fill down: the range's first row into every row below it in the range.
        e.preventDefault();
        fillDown();
        return;
      }
      if (mod && (e.key === "a" || e.key === "A")) {
        e.preventDefault();
        const rows = rowsOf();
        const last = rows.length ? cellsOf(rows[rows.length - 1]) : [];
        if (rows.length) select(cellsOf(rows[0])[0], last[last.length - 1]);
        anchor?.focus();
      }
    },
    true,
  );

  // --- copy ----------------------------------------------------------------------------
  // A cell's text as the user sees it (an option's label, not its value: pasting it back
  // finds the option by label).
  // A number keeps its stored form (data-raw): "12.000" on a German page is 12000.
  const text = (td) => (td.dataset.raw ?? td.textContent).trim();
  const tsvField = (s) => (/[\t"\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s);
  const escapeHTML = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  document.addEventListener("copy", (e) => {
    if (!grid() || !isCell(document.activeElement) || !e.clipboardData) return;
    const cells = selected();
    if (!cells.length) return;
    e.preventDefault();
    e.clipboardData.setData("text/plain", cells.map((row) => row.map((td) => tsvField(text(td))).join("\t")).join("\r\n"));
    e.clipboardData.setData(
      "text/html",
      "<table>" + cells.map((row) => "<tr>" + row.map((td) => "<td>" + escapeHTML(text(td)).replace(/\n/g, "<br>") + "</td>").join("") + "</tr>").join("") + "</table>",
    );
  });

  // --- paste ---------------------------------------------------------------------------
  // parseDelimited reads text as rows of fields split by delim, where a field in double
  // quotes may hold the delimiter, quotes (doubled) and line breaks. A last empty line (the
  // line break spreadsheets end a copy with) is dropped.
  function parseDelimited(s, delim) {
    const rows = [];
    let row = [], field = "", i = 0, quoted = false;
    while (i < s.length) {
      const c = s[i];
      if (quoted) {
        if (c === '"' && s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        if (c === '"') quoted = false;
        else field += c;
        i++;
        continue;
      }
      if (c === '"' && field === "") {
        quoted = true;
      } else if (c === delim) {
        row.push(field);
        field = "";
      } else if (c === "\n" || c === "\r") {
        row.push(field);
        rows.push(row);
        row = [];
        field = "";
        if (c === "\r" && s[i + 1] === "\n") i++;
      } else {
        field += c;
      }
      i++;
    }
    if (field !== "" || row.length) {
      row.push(field);
      rows.push(row);
    }
    return rows;
  }
  // parseClipboard reads what spreadsheets put on the clipboard (TSV); text without a tab is
  // read as CSV when every line has the same number of fields, more than one, else as one
  // column (a pasted "Smith, John" stays one value).
  function parseClipboard(s) {
    if (s.includes("\t")) return parseDelimited(s, "\t");
    const csv = parseDelimited(s, ",");
    if (csv.length > 1 && csv[0].length > 1 && csv.every((r) => r.length === csv[0].length)) return csv;
    return parseDelimited(s, "\u0000");
  }

  document.addEventListener("paste", (e) => {
    const g = grid();
    const td = document.activeElement;
    if (!g || !isCell(td) || !e.clipboardData) return;
    const data = parseClipboard(e.clipboardData.getData("text/plain"));
    if (!data.length) return;
    e.preventDefault();
    const keys = Array.from(g.querySelectorAll("thead th[data-key]"), (th) => th.dataset.key);
    const rows = rowsOf();
    // From the selection's top left corner (the active cell when nothing more is selected).
    const corner = selected()[0]?.[0] || td;
    const startRow = rows.indexOf(corner.closest("tr"));
    const startCol = keys.indexOf(corner.dataset.key);
    const edit = { set: [], add: [] };
    let dropped = 0;
    data.forEach((values, r) => {
      const rec = {};
      values.forEach((v, c) => {
        const key = keys[startCol + c];
        if (key === undefined) dropped = Math.max(dropped, startCol + c - keys.length + 1);
        else rec[key] = v === "" ? null : v;
      });
      const tr = rows[startRow + r];
      if (tr) edit.set.push({ id: tr.dataset.record, values: rec });
      else edit.add.push({ values: rec });
    });
    edit.what = "paste";
    apply(g.dataset.editUrl, edit, { rows: data.length, dropped, done: g.dataset.labelPasted });
  });

  // fillDown copies the first row of the selection into the rows below it, as a paste of that
  // row would (labels are read back as their options), in one edit.
  function fillDown() {
    const g = grid();
    const cells = selected();
    if (!g || cells.length < 2) return;
    const first = cells[0].map((td) => ({ key: td.dataset.key, value: text(td) }));
    const edit = {
      what: "fill",
      set: cells.slice(1).map((row) => ({
        id: row[0].closest("tr").dataset.record,
        values: Object.fromEntries(first.map((c) => [c.key, c.value === "" ? null : c.value])),
      })),
    };
    apply(g.dataset.editUrl, edit, { rows: edit.set.length, done: g.dataset.labelFilled });
  }

  // --- undo / redo ---------------------------------------------------------------------
  // The history is the server's (the user's last 50 changes in the sheet, whichever page or
  // tab made them); the buttons follow what each answer says is left.
  function undoState(st) {
    if (!st) return;
    document.querySelectorAll("[data-grid-undo]").forEach((b) => (b.disabled = !st.canUndo));
    document.querySelectorAll("[data-grid-redo]").forEach((b) => (b.disabled = !st.canRedo));
  }
  let replaying = false;
  async function replay(url) {
    if (!url || replaying) return;
    replaying = true;
    try {
      await apply(url, null, { quiet: true });
    } finally {
      replaying = false;
    }
  }
  const undo = () => replay(grid()?.dataset.undoUrl);
  const redo = () => replay(grid()?.dataset.redoUrl);
  document.addEventListener("click", (e) => {
    if (e.target.closest?.("[data-grid-undo]")) undo();
    else if (e.target.closest?.("[data-grid-redo]")) redo();
  });
  // A cell saved in its editor is a change too: its answer carries the undo state.
  document.body.addEventListener("sl-cell-saved", (e) => undoState(e.detail?.undo));

  // jsonHeaders are a JSON POST's headers, with the page's CSRF header (hx-headers).
  function jsonHeaders() {
    const headers = { "Content-Type": "application/json", "HX-Request": "true" };
    try {
      return { ...headers, ...JSON.parse(document.body.getAttribute("hx-headers") || "{}") };
    } catch {
      return headers; // no CSRF header: the server says so
    }
  }

  // apply posts an edit (or, for undo and redo, nothing) and shows what it did; it resolves
  // to the server's answer, or null when it failed (the message is shown).
  async function apply(url, edit, opts) {
    const g = grid();
    if (!g) return null;
    if (!opts.quiet) toast(g.dataset.labelPasting.replace("{rows}", String(opts.rows)), "progress", true);
    const headers = jsonHeaders();
    let resp;
    try {
      resp = await fetch(url, { method: "POST", headers, body: edit ? JSON.stringify(edit) : "{}" });
    } catch (err) {
      toast(String(err), "error");
      return null;
    }
    if (!resp.ok) {
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      toast(doc.body.textContent.trim().replace(/\s+/g, " ") || "HTTP " + resp.status, "error");
      return null;
    }
    const body = await resp.json();
    const res = body.data;
    // grid.js shows the counts and fetches the rows again, as after a cell's save; an edit's
    // rows stay on screen even where they leave the view (keep), an undo's go.
    document.body.dispatchEvent(new CustomEvent("sl-cell-saved", { detail: { ...body.counts, refresh: true, keep: !!edit, undo: body.undo } }));
    if (body.message) toast(body.message, res.what ? "undo" : "info");
    else if (!opts.quiet) {
      let msg = opts.done.replace("{records}", String(res.set)).replace("{added}", String(res.added.length));
      if (res.skipped) msg += " " + g.dataset.labelSkipped.replace("{count}", String(res.skipped));
      if (opts.dropped) msg += " " + g.dataset.labelDropped.replace("{count}", String(opts.dropped));
      toast(msg, "paste");
    }
    return body;
  }

  // --- rows selected for delete and set value, on this page or across pages ---------------
  // The header box checks every row of the page; once they all are and the grid shows more
  // rows than the page, the banner offers all of them. Its exact count (fetched) is what the
  // confirmation names and what the forms send back (expect): the server refuses the change
  // when the matching rows have changed since.
  const rowBoxes = () => Array.from(document.querySelectorAll('#grid-body input[name="ids"]'));
  const banner = () => document.querySelector("[data-select-all]");
  let allCount = null; // the confirmed count while every matching row is selected
  function setAll(count) {
    const b = banner();
    if (!b) return;
    allCount = count;
    b.querySelector("[data-select-all-on]").disabled = count === null;
    const n = b.querySelector("[data-select-all-count]");
    n.disabled = count === null;
    n.value = count === null ? "" : String(count);
    const text = b.querySelector("[data-select-all-text]");
    text.dataset.pageText ??= text.textContent;
    text.textContent = count === null ? text.dataset.pageText : b.dataset.labelMatching.replace("{count}", count.toLocaleString());
    b.querySelector("[data-select-matching]").classList.toggle("hidden", count !== null);
    b.querySelector("[data-select-clear]").classList.toggle("hidden", count === null);
    const del = document.querySelector("[data-testid=delete-rows]");
    if (del) {
      del.dataset.confirmPage ??= del.getAttribute("hx-confirm");
      del.setAttribute("hx-confirm", count === null ? del.dataset.confirmPage : del.dataset.confirmAll.replace("{count}", count.toLocaleString()));
    }
  }
  function syncSelection() {
    const boxes = rowBoxes();
    const head = document.querySelector("[data-select-page]");
    const all = boxes.length > 0 && boxes.every((b) => b.checked);
    if (head) {
      head.checked = all;
      head.indeterminate = !all && boxes.some((b) => b.checked);
    }
    const b = banner();
    if (!b) return;
    const more = document.querySelector("[data-testid=next-page]") || new URLSearchParams(location.search).get("page") > 1;
    b.hidden = !(all && more);
    if (!all && allCount !== null) setAll(null);
  }
  document.addEventListener("change", (e) => {
    if (e.target.matches?.("[data-select-page]")) rowBoxes().forEach((b) => (b.checked = e.target.checked));
    if (e.target.matches?.('[data-select-page], #grid-body input[name="ids"]')) syncSelection();
  });
  document.addEventListener("click", async (e) => {
    if (e.target.closest?.("[data-select-clear]")) {
      rowBoxes().forEach((b) => (b.checked = false));
      setAll(null);
      syncSelection();
      return;
    }
    if (!e.target.closest?.("[data-select-matching]")) return;
    const b = banner();
    try {
      const resp = await fetch(b.dataset.matchingUrl, { headers: { Accept: "application/json" } });
      if (!resp.ok) throw new Error("HTTP " + resp.status);
      setAll((await resp.json()).count);
    } catch (err) {
      toast(String(err), "error");
    }
  });
  // The set-value dialog says what it applies to.
  document.addEventListener("click", (e) => {
    if (!e.target.closest?.('[data-dialog-open="set-value"]')) return;
    const scope = document.querySelector("[data-set-scope]");
    if (!scope) return;
    scope.textContent = allCount !== null
      ? scope.dataset.labelAll.replace("{count}", allCount.toLocaleString())
      : scope.dataset.labelSelected.replace("{count}", String(rowBoxes().filter((b) => b.checked).length));
  });
  document.addEventListener("htmx:afterSettle", syncSelection);
  // Set value offers a choice column's options rather than free text: the column's select
  // takes the free input's place (only the enabled one is sent).
  function setValueInput() {
    const col = document.getElementById("sv-column");
    const free = document.querySelector("[data-sv-free]");
    if (!col || !free) return;
    let chosen = null;
    document.querySelectorAll("[data-sv-options]").forEach((sel) => {
      const on = sel.dataset.svOptions === col.value;
      sel.hidden = sel.disabled = !on;
      if (on) chosen = sel;
    });
    free.hidden = free.disabled = !!chosen;
  }
  document.addEventListener("change", (e) => {
    if (e.target.id === "sv-column") setValueInput();
  });
  document.addEventListener("click", (e) => {
    if (e.target.closest?.('[data-dialog-open="set-value"]')) setValueInput();
  });

  // --- column widths and the frozen first column -----------------------------------------
  // A column's right edge drags to a new width, kept for the user in this sheet (POST
  // …/layout); a double click gives the column back its automatic width.
  const widths = () => {
    const g = grid() || document.querySelector("[data-grid]");
    if (!g) return {};
    if (!g._widths) {
      try {
        g._widths = JSON.parse(g.dataset.colWidths || "{}");
      } catch {
        g._widths = {};
      }
    }
    return g._widths;
  };
  function sizeColumn(table, key, px) {
    const cells = table.querySelectorAll(`th[data-key="${CSS.escape(key)}"], td[data-key="${CSS.escape(key)}"]`);
    const v = px ? px + "px" : "";
    cells.forEach((c) => {
      c.style.width = v;
      c.style.minWidth = v;
      c.style.maxWidth = v;
    });
  }
  function layout() {
    const table = document.querySelector("[data-grid]");
    if (!table) return;
    for (const [key, px] of Object.entries(widths())) sizeColumn(table, key, px);
    // The first field's cells are frozen beside the row's box and number.
    table.querySelectorAll(".sl-frozen-2").forEach((c) => c.classList.remove("sl-frozen", "sl-frozen-2"));
    const first = table.querySelector("thead th[data-key]");
    if (!first) return;
    const key = CSS.escape(first.dataset.key);
    table.querySelectorAll(`thead th[data-key="${key}"], #grid-body td[data-key="${key}"]`).forEach((c) => c.classList.add("sl-frozen", "sl-frozen-2"));
    const heads = table.querySelectorAll("thead th");
    const w0 = heads[0]?.getBoundingClientRect().width || 0;
    const w1 = heads[1]?.getBoundingClientRect().width || 0;
    table.style.setProperty("--sl-frozen-1", w0 + "px");
    table.style.setProperty("--sl-frozen-2", w0 + w1 + "px");
  }
  async function saveWidths() {
    const table = document.querySelector("[data-grid]");
    if (!table?.dataset.layoutUrl) return;
    const headers = jsonHeaders();
    try {
      const resp = await fetch(table.dataset.layoutUrl, { method: "POST", headers, body: JSON.stringify({ widths: widths() }) });
      if (!resp.ok) toast("HTTP " + resp.status, "error");
    } catch (err) {
      toast(String(err), "error");
    }
  }
  document.addEventListener("pointerdown", (e) => {
    const handle = e.target.closest?.("[data-col-resize]");
    if (!handle) return;
    e.preventDefault();
    const th = handle.closest("th[data-key]");
    const table = th.closest("[data-grid]");
    const key = th.dataset.key;
    const startX = e.clientX;
    const startW = th.getBoundingClientRect().width;
    handle.dataset.dragging = "";
    handle.setPointerCapture(e.pointerId);
    const move = (ev) => {
      const px = Math.round(Math.max(40, Math.min(1200, startW + ev.clientX - startX)));
      widths()[key] = px;
      sizeColumn(table, key, px);
    };
    const up = () => {
      delete handle.dataset.dragging;
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
      handle.removeEventListener("pointercancel", up);
      layout();
      saveWidths();
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
    handle.addEventListener("pointercancel", up);
  });
  document.addEventListener("dblclick", (e) => {
    const th = e.target.closest?.("[data-col-resize]")?.closest("th[data-key]");
    if (!th) return;
    delete widths()[th.dataset.key];
    sizeColumn(th.closest("[data-grid]"), th.dataset.key, 0);
    layout();
    saveWidths();
  });
  document.addEventListener("DOMContentLoaded", layout);
  document.addEventListener("htmx:afterSettle", layout);
  window.addEventListener("resize", layout);

  let toastTimer = null;
  function toast(msg, kind, sticky) {
    const box = document.getElementById("grid-toast");
    if (!box || !msg) return;
    box.textContent = msg;
    box.dataset.kind = kind || "info";
    box.hidden = false;
    clearTimeout(toastTimer);
    if (!sticky) toastTimer = setTimeout(() => (box.hidden = true), 6000);
  }

  // --- the full value of a cut-off cell ---------------------------------------------------
  // Rows keep one line; a value longer than its cell (or of several lines) shows in full in a
  // popover while the cell has the focus or the pointer rests on it.
  let hoverTimer = null;
  function showFull(td) {
    const box = document.getElementById("grid-popover");
    if (!box || !isCell(td)) return;
    const full = td.textContent.trim();
    if (td.scrollWidth <= td.clientWidth && !full.includes("\n")) return hideFull();
    box.textContent = full;
    box.hidden = false;
    const at = td.getBoundingClientRect();
    box.style.top = Math.min(at.bottom + 4, window.innerHeight - box.offsetHeight - 8) + "px";
    box.style.left = Math.max(8, Math.min(at.left, window.innerWidth - box.offsetWidth - 8)) + "px";
  }
  function hideFull() {
    clearTimeout(hoverTimer);
    const box = document.getElementById("grid-popover");
    if (box) box.hidden = true;
  }
  document.addEventListener("focusin", (e) => (isCell(e.target) ? showFull(e.target) : hideFull()));
  document.addEventListener("mouseover", (e) => {
    const td = e.target.closest?.("td[data-cell]");
    clearTimeout(hoverTimer);
    if (td) hoverTimer = setTimeout(() => showFull(td), 400);
  });
  document.addEventListener("mouseout", (e) => {
    if (e.target.closest?.("td[data-cell]") && !isCell(document.activeElement)) hideFull();
  });
  document.addEventListener("scroll", hideFull, true);
  document.addEventListener("focusout", (e) => isCell(e.target) && hideFull());

  document.addEventListener("htmx:afterSettle", paint);
})();
