// The sheet grid in the browser. Keyboard: arrows move the active cell, Enter edits it,
// Escape cancels an edit, Enter saves it (Shift+Enter adds a line), Tab saves and moves
// right. After a save: counts, badges and row edges follow, and the rows are fetched again
// when a duplicate's twin may have changed. Column menus open over the page.
(() => {
  let after = null; // where the focus goes once an edited cell comes back: {record, key, move}

  const cellAt = (record, key) => document.querySelector(`td[data-cell][data-record="${CSS.escape(record)}"][data-key="${CSS.escape(key)}"]`);

  function focusCell(td) {
    if (!td) return;
    const grid = td.closest("[data-grid]");
    grid?.querySelectorAll('td[data-cell][tabindex="0"]').forEach((c) => (c.tabIndex = -1));
    td.tabIndex = 0;
    td.focus();
  }

  function neighbour(td, dx, dy) {
    const row = td.parentElement;
    const index = Array.prototype.indexOf.call(row.children, td);
    if (dy !== 0) {
      const other = dy > 0 ? row.nextElementSibling : row.previousElementSibling;
      const cell = other?.children[index];
      return cell?.matches("td[data-cell]") ? cell : null;
    }
    let cell = dx > 0 ? td.nextElementSibling : td.previousElementSibling;
    return cell?.matches("td[data-cell]") ? cell : null;
  }

  // The focused cell's messages in the panel above the grid (a tooltip alone says nothing
  // to the keyboard), with the allowed options when a choice column's value is not one.
  document.addEventListener("focusin", (e) => {
    const td = e.target.closest?.("td[data-cell]");
    // The user went to another cell: a save still on its way no longer takes the focus back
    // to the cell it came from (a refresh landing later would, and the next key would go there).
    if (td && after && !td.hasAttribute("data-editing") && (td.dataset.record !== after.record || td.dataset.key !== after.key)) after = null;
    const panel = document.querySelector("[data-cell-message]");
    if (!td || !panel) return;
    let text = td.getAttribute("title") || "";
    const th = document.querySelector(`th[data-key="${CSS.escape(td.dataset.key || "")}"]`);
    if (text && td.dataset.level === "error" && th?.dataset.options) text += " — " + panel.dataset.labelAllowed + " " + th.dataset.options;
    // Where the record came from ("people.csv, row 12"): the row to look at in the file.
    const message = text;
    const source = td.closest("tr")?.dataset.source;
    if (source) text = text ? source + " · " + text : source;
    panel.textContent = text;
    if (message) panel.dataset.level = td.dataset.level || "info";
    else delete panel.dataset.level;
  });

  document.addEventListener("keydown", (e) => {
    const td = e.target.matches?.("td[data-cell]") ? e.target : null;
    if (td) {
      const moves = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
      if (e.key === "Tab") moves.Tab = e.shiftKey ? [-1, 0] : [1, 0];
      const m = moves[e.key];
      if (m) {
        const next = neighbour(td, m[0], m[1]);
        if (next) {
          e.preventDefault();
          focusCell(next);
        }
      } else if (e.key === "Enter" && td.hasAttribute("hx-get")) {
        e.preventDefault();
        after = { record: td.dataset.record, key: td.dataset.key, move: 0 };
        htmx.trigger(td, "edit");
      }
      return;
    }
    const editing = e.target.closest?.("td[data-editing]");
    if (!editing) return;
    const form = editing.querySelector("form");
    // The browser autofocuses a new editor before htmx has wired it (htmx does that when the
    // swap settles, 20 ms later); keys typed in between must not submit the form natively.
    htmx.process(editing);
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      after = { record: editing.dataset.record, key: editing.dataset.key, move: 0 };
      form.requestSubmit();
    } else if (e.key === "Tab") {
      e.preventDefault();
      after = { record: editing.dataset.record, key: editing.dataset.key, move: e.shiftKey ? -1 : 1 };
      form.requestSubmit();
    } else if (e.key === "Escape") {
      after = { record: editing.dataset.record, key: editing.dataset.key, move: 0 };
    }
  });

  // Enter's keypress would submit the editor's form natively a second time (the keydown above
  // saved it already): its answer would land on the editor the first save replaced.
  document.addEventListener("keypress", (e) => {
    if (e.key === "Enter" && !e.shiftKey && e.target.closest?.("td[data-editing]")) e.preventDefault();
  });

  document.addEventListener("htmx:afterSettle", () => {
    if (!after) return;
    const td = cellAt(after.record, after.key);
    if (!td) return; // the editor is showing; focus stays in it
    const target = after.move ? neighbour(td, after.move, 0) || td : td;
    after = null;
    focusCell(target);
  });

  // A saved cell's response says what the save changed around it (SaveCell's HX-Trigger):
  // the record's red edge, the tab counts and each column's error badge.
  document.body.addEventListener("sl-cell-saved", (e) => {
    const d = e.detail || {};
    document.querySelectorAll("[data-row-flag]").forEach((flag) => {
      if (flag.dataset.rowFlag === d.record) flag.dataset.valid = String(!!d.valid);
    });
    showCounts(d);
    if (d.refresh) refreshRows(!!d.keep);
  });

  function showCounts(d) {
    for (const [tab, n] of Object.entries(d.counts || {})) {
      const el = document.getElementById("tab-count-" + tab);
      if (el) el.textContent = Number(n).toLocaleString(document.documentElement.lang || undefined);
    }
    // The footer's count follows the tab's count when nothing else narrows the view.
    const footer = document.querySelector("[data-grid-count]");
    const n = footer && d.counts ? d.counts[footer.dataset.gridCount] : undefined;
    if (n !== undefined) {
      const label = n === 1 ? footer.dataset.labelOne : footer.dataset.labelOther;
      footer.textContent = label.replace("{count}", Number(n).toLocaleString(document.documentElement.lang || undefined));
    }
    const allValid = document.querySelector("[data-all-valid]");
    if (allValid && d.counts && d.counts.error !== undefined) allValid.hidden = !(d.counts.error === 0 && d.counts.all > 0);
    document.querySelectorAll("[data-column-errors]").forEach((badge) => {
      const n = (d.columnErrors || {})[badge.dataset.columnErrors];
      if (n === undefined) return;
      badge.textContent = Number(n).toLocaleString(document.documentElement.lang || undefined);
      badge.hidden = n === 0;
    });
  }

  // refreshRows fetches the rows on screen again (a save changed other records too, such as
  // a duplicate's twin; a record hook elsewhere flagged a value) and puts what changed in
  // place: only cells whose content differs are swapped, so the focus and an editor being
  // opened stay where they are. Rows added or removed replace the rows. While the user is
  // in the middle of an edit or a request it tries again a little later.
  // keep (after the user's own edit): rows that stop matching the view stay on screen, marked,
  // until the user moves on, as a spreadsheet keeps a pasted row where it was pasted.
  // While rows are being fetched again or a refresh is due, body[data-grid-refreshing] says
  // so (a test waits for the grid to be still before it types).
  let refreshing = 0;
  async function refreshRows(keep) {
    refreshing++;
    document.body.dataset.gridRefreshing = "true";
    try {
      await refreshRowsNow(keep);
    } finally {
      if (--refreshing === 0 && refreshTimer === null) delete document.body.dataset.gridRefreshing;
    }
  }
  async function refreshRowsNow(keep) {
    if (!document.getElementById("grid-body")) return;
    const url = new URL(location.href);
    url.searchParams.set("partial", "rows");
    let resp, html;
    try {
      resp = await fetch(url, { headers: { "HX-Request": "true" } });
      html = resp.ok ? await resp.text() : "";
    } catch {
      // offline for a moment, or the page is going away: try again in a while
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(() => {
        refreshTimer = null;
        refreshRows();
      }, 2000);
      return;
    }
    const body = document.getElementById("grid-body");
    if (!html || !body) return;
    if (busy()) return refreshSoon(); // what is on its way would land on replaced cells
    const t = document.createElement("template");
    t.innerHTML = html;
    const fresh = t.content.querySelector("tbody");
    if (!fresh) return;
    try {
      showCounts(JSON.parse(resp.headers.get("X-Sluice-Counts") || "{}"));
    } catch {
      // no counts: the tabs keep theirs
    }
    // Rows already marked as out of the view stay until the user moves on, whatever refresh
    // comes next (the edit's own event refreshes the rows once more a moment later).
    const ids = (tbody) => Array.from(tbody.querySelectorAll(":scope > tr:not([data-out-of-view])"), (tr) => tr.dataset.record || "").join();
    const active = document.activeElement?.closest?.("td[data-cell]");
    if (ids(fresh) !== ids(body)) {
      // The fresh rows in their order, and each row that left the view (after the user's own
      // edit) or had left it before, after the row it followed before.
      const freshIds = new Set(Array.from(fresh.querySelectorAll(":scope > tr"), (tr) => tr.dataset.record));
      const oldRows = Array.from(body.querySelectorAll(":scope > tr"));
      oldRows.forEach((tr, i) => {
        if (freshIds.has(tr.dataset.record) || !(keep || tr.dataset.outOfView)) return;
        tr.dataset.outOfView = "true";
        tr.title = fresh.dataset.labelOutOfView || "";
        const before = oldRows.slice(0, i).reverse().find((o) => freshIds.has(o.dataset.record) || o.dataset.outOfView);
        const anchor = before && fresh.querySelector(`:scope > tr[data-record="${CSS.escape(before.dataset.record)}"]`);
        if (anchor) anchor.after(tr);
        else fresh.prepend(tr);
      });
      body.replaceWith(fresh);
      htmx.process(fresh);
    } else {
      const classes = (td) => Array.from(td.classList).filter((c) => !c.startsWith("htmx-")).join(" ");
      const same = (x, y) => x.innerHTML === y.innerHTML && classes(x) === classes(y) && x.title === y.title && x.dataset.level === y.dataset.level;
      fresh.querySelectorAll("td[data-cell]").forEach((td) => {
        const cur = cellAt(td.dataset.record, td.dataset.key);
        if (!cur || same(cur, td)) return;
        cur.replaceWith(td);
        htmx.process(td);
      });
      fresh.querySelectorAll("[data-row-flag]").forEach((flag) => {
        const cur = body.querySelector(`[data-row-flag="${CSS.escape(flag.dataset.rowFlag)}"]`);
        if (cur) cur.dataset.valid = flag.dataset.valid;
      });
    }
    // The focus goes back where it was, or where a save still settling would have put it
    // (its settle event fires on the replaced cells, outside the page).
    if (active && document.contains(active)) return;
    const want = active ? { record: active.dataset.record, key: active.dataset.key, move: 0 } : after;
    const td = want && cellAt(want.record, want.key);
    if (td) {
      after = null;
      focusCell(want.move ? neighbour(td, want.move, 0) || td : td);
    }
  }

  // Records changed elsewhere (an embedding page's record hook, another user, an agent)
  // reach an embedded grid as the space's events: the rows on screen are fetched again once
  // the user is not in the middle of an edit or a request.
  let refreshTimer = null;
  const busy = () => !!document.querySelector("#grid-body td[data-editing], #grid-body .htmx-request, #grid-body.htmx-request");
  function refreshSoon() {
    clearTimeout(refreshTimer);
    document.body.dataset.gridRefreshing = "true";
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      if (busy()) refreshSoon();
      else refreshRows();
    }, 300);
  }
  document.addEventListener("sl-event", (e) => {
    const ev = e.detail || {};
    const sheet = document.querySelector("[data-grid][data-sheet]")?.dataset.sheet;
    if (sheet && ev.context?.sheetId === sheet && /^(commit:|records:)/.test(ev.topic || "")) refreshSoon();
  });

  document.addEventListener("click", (e) => {
    const td = e.target.closest?.("td[data-cell]");
    if (td && !e.shiftKey) focusCell(td); // Shift+click extends the selection (grid-edit.js)
    // A click outside an open column menu closes it.
    document.querySelectorAll("[data-grid] th details[open]").forEach((d) => {
      if (!d.contains(e.target)) d.open = false;
    });
  });

  // Column menus open over the page, not inside the grid's scrolling box (which would clip
  // them on a short sheet): fixed at the header, kept inside the window.
  const closeMenus = () => document.querySelectorAll("[data-grid] th details[open]").forEach((d) => (d.open = false));
  document.addEventListener(
    "toggle",
    (e) => {
      const d = e.target;
      if (!(d instanceof HTMLDetailsElement) || !d.open || !d.closest("[data-grid] th")) return;
      document.querySelectorAll("[data-grid] th details[open]").forEach((other) => {
        if (other !== d) other.open = false;
      });
      const menu = d.querySelector(".sl-popover");
      if (!menu) return;
      const at = d.querySelector("summary").getBoundingClientRect();
      menu.style.position = "fixed";
      menu.style.top = at.bottom + 4 + "px";
      menu.style.left = Math.max(8, Math.min(at.left, window.innerWidth - menu.offsetWidth - 8)) + "px";
      menu.style.maxHeight = Math.max(160, window.innerHeight - at.bottom - 12) + "px";
      menu.style.overflowY = "auto";
    },
    true,
  );
  document.addEventListener("scroll", (e) => {
    if (!e.target.closest?.(".sl-popover")) closeMenus();
  }, true);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeMenus();
  });
})();
