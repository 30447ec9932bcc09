// An example of Flatfile's automap plugin on Sluice: every uploaded file is mapped into the
// "Contacts" sheet of the space's primary workbook when the engine is confident.
//   node agents/runner.mjs --url http://127.0.0.1:8080 --token sk_… agents/examples/automap.mjs
import automapPlugin from "@flatfile/plugin-automap"; // a CommonJS package

const { automap } = automapPlugin;

export default function (listener) {
  listener.use(automap({ accuracy: "confident", defaultTargetSheet: "Contacts", matchFilename: /\.(csv|tsv|txt|json)$/i, debug: false }));
}
