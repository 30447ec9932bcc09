// Flatfile's published JSON extractor, unchanged. Let it take over .json uploads by listing the
// extension in the environment's metadata.agentExtractors (["json"]); otherwise Sluice extracts
// them itself and this plugin would extract them a second time.
//   node agents/runner.mjs --url http://127.0.0.1:8080 --token sk_… agents/examples/json-extractor.mjs
import { JSONExtractor } from "@flatfile/plugin-json-extractor";

export default function (listener) {
  listener.use(JSONExtractor());
}
