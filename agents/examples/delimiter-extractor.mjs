// Flatfile's published delimiter extractor, unchanged, for pipe-separated .psv files: list
// the extension in the environment's metadata.agentExtractors (["psv"]) so Sluice leaves
// those uploads to it. (One extractor per listener: two instances share the job operation
// extract-plugin-delimiter, so both would take every file's job.)
//   node agents/runner.mjs --url http://127.0.0.1:8080 --token sk_… agents/examples/delimiter-extractor.mjs
import { DelimiterExtractor } from "@flatfile/plugin-delimiter-extractor";

export default function (listener) {
  listener.use(DelimiterExtractor(".psv", { delimiter: "|" }));
}
