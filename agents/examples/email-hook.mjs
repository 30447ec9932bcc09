// An example record hook: flags contacts whose email has no "@", lower-cases the rest and
// fills a blank name with the e-mail's local part.
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
        if (email !== email.toLowerCase()) record.set("email", email.toLowerCase());
        if (!record.get("name")) record.set("name", email.split("@")[0].toLowerCase());
      }
      return record;
    }),
  );
}
