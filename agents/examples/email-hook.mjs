// An example record hook: flags contacts whose email has no "@" and lower-cases the rest.
// Run it against Sluice with:
//   node agents/runner.mjs --url http://127.0.0.1:8080 --token sk_… agents/examples/email-hook.mjs
import { recordHook } from "@flatfile/plugin-record-hook";

export default function (listener) {
  listener.use(
    recordHook("contacts", (record) => {
      const email = record.get("email");
      if (typeof email === "string" && !email.includes("@")) {
        record.addError("email", "Email must contain @");
      } else if (typeof email === "string") {
        record.set("email", email.toLowerCase());
      }
      return record;
    }),
  );
}
