// A customer's page embedding Sluice with Flatfile's published browser SDK: bundled by esbuild
// in TestBrowserFlatfileJavascriptSDK and driven in Chromium from another origin.
import { startFlatfile } from "@flatfile/javascript";

window.results = { hooked: 0, submitted: null, closed: false, errors: [] };
window.addEventListener("error", (e) => window.results.errors.push(String(e.message)));

window.startImporter = ({ publishableKey, apiUrl }) =>
  startFlatfile({
    publishableKey,
    apiUrl,
    spaceUrl: apiUrl,
    name: "Contacts import",
    displayAsModal: false,
    sheet: {
      name: "Contacts",
      slug: "contacts",
      fields: [
        { key: "name", type: "string", label: "Name" },
        { key: "email", type: "string", label: "Email" },
      ],
    },
    onRecordHook: (record) => {
      window.results.hooked++;
      const email = record.get("email");
      if (email && !String(email).includes("@")) record.addError("email", "Not an e-mail address");
      return record;
    },
    onSubmit: async ({ sheet }) => {
      const data = await sheet.allData();
      window.results.submitted = data.records.map((r) => r.values.email.value);
    },
    closeSpace: {
      operation: "simpleSubmitAction",
      onClose: () => {
        window.results.closed = true;
      },
    },
  });
