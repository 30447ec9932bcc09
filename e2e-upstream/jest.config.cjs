// Jest runs Flatfile's own e2e specs from the plugin packages installed here, unchanged:
// the specs and the plugin sources they import are TypeScript inside node_modules, so those
// packages are transformed (SWC), and the one piece of Flatfile's cloud they need, the PubNub
// event driver of @flatfile/listener-driver-pubsub, is Sluice's stream driver instead
// (pubsub-driver.mjs).

// The specs run (issue 20): every e2e spec published with the plugins on npm that does not
// need Flatfile's cloud beyond the REST API.
const specs = [
  "plugin-record-hook/src/record.hook.e2e.spec.ts",
  "plugin-space-configure/src/space.configure.spec.ts",
  "plugin-automap/src/automap.plugin.e2e.spec.ts",
];

module.exports = {
  rootDir: __dirname,
  roots: ["<rootDir>/node_modules/@flatfile"],
  testMatch: specs.map((s) => "<rootDir>/node_modules/@flatfile/" + s),
  testPathIgnorePatterns: [],
  haste: { retainAllFiles: true },
  transform: { "^.+\\.(t|j|mj)sx?$": ["@swc/jest", { jsc: { target: "es2022" } }] },
  transformIgnorePatterns: ["/node_modules/(?!@flatfile/plugin-)"],
  moduleFileExtensions: ["ts", "tsx", "js", "mjs", "cjs", "json"],
  moduleNameMapper: {
    "^@flatfile/listener-driver-pubsub$": "<rootDir>/pubsub-driver.mjs",
    "^@flatfile/listener$": "<rootDir>/node_modules/@flatfile/listener",
  },
  setupFiles: ["<rootDir>/setup.cjs"],
  testEnvironment: "node",
  maxWorkers: 1,
};
