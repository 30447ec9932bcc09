// A customer's React app embedding Sluice with Flatfile's published @flatfile/react: bundled by
// esbuild (JSX) in TestBrowserFlatfileReactSDK and driven in Chromium from another origin.
import React, { useEffect } from "react";
import { createRoot } from "react-dom/client";
import { FlatfileProvider, Space, Workbook, Sheet, useFlatfile } from "@flatfile/react";

window.results = { hooked: 0, submitted: null, closed: false, errors: [] };
window.addEventListener("error", (e) => window.results.errors.push(String(e.message)));

const contacts = {
  name: "Contacts",
  slug: "contacts",
  fields: [
    { key: "name", type: "string", label: "Name" },
    { key: "email", type: "string", label: "Email" },
  ],
};

function Importer() {
  const { openPortal } = useFlatfile({ onClose: () => (window.results.closed = true) });
  useEffect(() => {
    window.openImporter = openPortal;
  }, [openPortal]);
  return (
    <Space config={{ name: "Contacts import (React)" }}>
      <Workbook
        config={{ name: "Contacts" }}
        onSubmit={async ({ sheet }) => {
          const data = await sheet.allData();
          window.results.submitted = data.records.map((r) => r.values.email.value);
        }}
        onRecordHooks={[
          [
            "contacts",
            (record) => {
              window.results.hooked++;
              const email = record.get("email");
              if (email && !String(email).includes("@")) record.addError("email", "Not an e-mail address");
              return record;
            },
          ],
        ]}
      >
        <Sheet config={contacts} />
      </Workbook>
    </Space>
  );
}

window.startReact = ({ publishableKey, apiUrl }) =>
  createRoot(document.getElementById("root")).render(
    <FlatfileProvider
      publishableKey={publishableKey}
      apiUrl={apiUrl}
      config={{
        spaceUrl: apiUrl,
        displayAsModal: false,
        closeSpace: { operation: "workbookSubmitAction", onClose: () => (window.results.closed = true) },
      }}
    >
      <Importer />
    </FlatfileProvider>,
  );
