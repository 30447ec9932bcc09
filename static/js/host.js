// Sluice's own embed script, served as /embed.js: the importer in any web page, no npm and
// no build step. The page's origin must be on the account's embedding allowlist.
//
//   <script src="https://sluice.example.com/embed.js"></script>
//   <script>
//     Sluice.open({
//       publishableKey: "pk_…",
//       sheet: { name: "Contacts", slug: "contacts", fields: [{ key: "email", type: "string", label: "Email" }] },
//       onSubmit: async ({ rows }) => { await fetch("/my/contacts", { method: "POST", body: JSON.stringify(rows) }) },
//     });
//   </script>
//
// It makes a space with the publishable key, opens it in a frame (a dialog over the page, or
// inside options.mount), and runs the workbook's Submit in this page: onSubmit gets the rows
// ({key: value}) and the records as the API returns them; when it resolves the job completes
// (when it throws, the job fails with its message). Closing the outcome closes the importer
// and calls onClose. Every event of the space reaches options.onEvent.
(function () {
  "use strict";
  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src, location.href).origin : location.origin;
  var operation = "sluiceSubmit";

  // answer is the data of an API answer, or an Error with its first error's message.
  function answer(resp) {
    return resp.json().then(
      function (out) {
        if (!resp.ok) throw new Error((out.errors && out.errors[0] && out.errors[0].message) || "Sluice answered " + resp.status);
        return out.data;
      },
      function () {
        throw new Error("Sluice answered " + resp.status);
      },
    );
  }

  function api(token, method, path, body) {
    var headers = { Authorization: "Bearer " + token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(origin + "/v1" + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(answer);
  }

  // allRecords reads a sheet page by page.
  function allRecords(token, sheetId) {
    var out = [];
    function page(n) {
      return api(token, "GET", "/sheets/" + encodeURIComponent(sheetId) + "/records?pageSize=1000&pageNumber=" + n).then(function (data) {
        var recs = (data && data.records) || [];
        out = out.concat(recs);
        return recs.length === 1000 ? page(n + 1) : out;
      });
    }
    return page(1);
  }

  function plain(record) {
    var row = {};
    Object.keys(record.values || {}).forEach(function (k) {
      var v = record.values[k];
      row[k] = v && typeof v === "object" && "value" in v ? v.value : v;
    });
    return row;
  }

  function dialog(mount) {
    if (mount) return { box: mount, remove: function () { mount.textContent = ""; } };
    var overlay = document.createElement("div");
    overlay.setAttribute("data-sluice-importer", "");
    overlay.style.cssText = "position:fixed;inset:0;z-index:2147483000;background:rgba(15,23,42,.45);display:flex;align-items:center;justify-content:center;padding:24px";
    var box = document.createElement("div");
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-modal", "true");
    box.style.cssText = "position:relative;width:min(1200px,100%);height:min(800px,100%);background:#fff;border-radius:12px;overflow:hidden;box-shadow:0 20px 50px rgba(0,0,0,.3)";
    overlay.appendChild(box);
    document.body.appendChild(overlay);
    return { box: box, close: overlay, remove: function () { overlay.remove(); } };
  }

  function open(options) {
    options = options || {};
    if (!options.publishableKey) throw new Error("Sluice.open: publishableKey is required");
    if (!options.sheet && !options.workbook) throw new Error("Sluice.open: a sheet (or a workbook) is required");
    var workbook = options.workbook ? Object.assign({}, options.workbook) : { name: options.sheet.name, sheets: [options.sheet] };
    if (options.onSubmit) {
      workbook.actions = (workbook.actions || []).concat([
        { operation: operation, mode: "foreground", label: options.submitLabel || "Submit", primary: true, constraints: [{ type: "hasData" }] },
      ]);
    }
    var body = {
      space: {
        name: options.name || workbook.name || "Import",
        autoConfigure: false,
        labels: ["embedded"],
        namespace: "portal",
        languageOverride: options.language,
        metadata: { sidebarConfig: { showSidebar: false }, theme: options.theme, userInfo: options.userInfo },
      },
      workbook: workbook,
    };
    var view = dialog(options.mount);
    var frame = document.createElement("iframe");
    frame.title = options.name || "Importer";
    frame.style.cssText = "width:100%;height:100%;border:0;display:block";
    var closeButton;
    if (!options.mount) {
      closeButton = document.createElement("button");
      closeButton.type = "button";
      closeButton.textContent = "×";
      closeButton.setAttribute("aria-label", "Close");
      closeButton.setAttribute("data-sluice-close", "");
      closeButton.style.cssText = "position:absolute;top:8px;right:10px;z-index:1;border:0;background:transparent;font:24px/1 sans-serif;color:#475569;cursor:pointer";
      view.box.appendChild(closeButton);
    }
    view.box.appendChild(frame);

    var state = { token: null, spaceId: null, closed: false };
    var handle = {
      close: close,
      ready: null, // resolves with {spaceId} once the space exists
    };
    function close() {
      if (state.closed) return;
      state.closed = true;
      window.removeEventListener("message", onMessage);
      view.remove();
      if (options.onClose) options.onClose({ spaceId: state.spaceId });
    }
    if (closeButton) closeButton.addEventListener("click", close);

    function submit(event) {
      var jobId = event.context && event.context.jobId;
      var workbookId = event.context && event.context.workbookId;
      var t = state.token;
      return api(t, "POST", "/jobs/" + jobId + "/ack", { info: "Sending your data", progress: 10 })
        .then(function () {
          return api(t, "GET", "/sheets?workbookId=" + encodeURIComponent(workbookId));
        })
        .then(function (sheets) {
          return Promise.all(
            sheets.map(function (s) {
              return allRecords(t, s.id).then(function (records) {
                return { sheet: s, records: records };
              });
            }),
          );
        })
        .then(function (read) {
          var first = read[0] || { sheet: null, records: [] };
          return Promise.resolve(
            options.onSubmit({
              spaceId: state.spaceId,
              job: { id: jobId },
              sheet: first.sheet,
              records: first.records,
              rows: first.records.map(plain),
              sheets: read.map(function (r) {
                return { sheet: r.sheet, records: r.records, rows: r.records.map(plain) };
              }),
            }),
          );
        })
        .then(
          function (result) {
            var message = (result && result.message) || options.submitMessage || "Your data was submitted.";
            return api(t, "POST", "/jobs/" + jobId + "/complete", { outcome: { message: message, acknowledge: true } });
          },
          function (err) {
            return api(t, "POST", "/jobs/" + jobId + "/fail", { outcome: { message: String((err && err.message) || err) } });
          },
        );
    }

    function onMessage(e) {
      if (e.source !== frame.contentWindow || e.origin !== origin) return;
      var event = e.data && e.data.flatfileEvent;
      if (!event || !event.topic) return;
      if (options.onEvent) options.onEvent(event);
      var p = event.payload || {};
      if (event.topic === "job:ready" && p.operation === operation && options.onSubmit) {
        submit(event).catch(function (err) {
          if (options.onError) options.onError(err);
        });
      } else if (event.topic === "job:outcome-acknowledged" && p.operation === operation && p.status === "complete") {
        close();
      }
    }
    window.addEventListener("message", onMessage);

    handle.ready = fetch(origin + "/v1/internal/spaces/init?publishableKey=" + encodeURIComponent(options.publishableKey), {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify(body),
    })
      .then(answer)
      .then(
        function (data) {
          state.token = data.space.accessToken;
          state.spaceId = data.space.id;
          if (!state.closed) frame.src = origin + "/space/" + encodeURIComponent(data.space.id) + "?token=" + encodeURIComponent(state.token);
          return { spaceId: data.space.id };
        },
        function (err) {
          close();
          if (options.onError) options.onError(err);
          throw err; // ready rejects too, whether or not onError is given
        },
      );
    return handle;
  }

  window.Sluice = { open: open };
})();
