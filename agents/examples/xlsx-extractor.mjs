// Flatfile's published Excel extractor, unchanged. Let it take over .xlsx uploads by listing
// the extension in the environment's metadata.agentExtractors (["xlsx"]); otherwise Sluice
// extracts them itself and this plugin would extract them a second time. Its xlsx dependency
// points at SheetJS's own site; package.json's overrides install the same library from npm.
//   node agents/runner.mjs --url http://127.0.0.1:8080 --token sk_… agents/examples/xlsx-extractor.mjs
import { ExcelExtractor } from "@flatfile/plugin-xlsx-extractor";

export default function (listener) {
  listener.use(ExcelExtractor());
}
