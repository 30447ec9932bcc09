// Runs Flatfile's published e2e specs (jest.config.cjs) against a Sluice server started for
// them: FLATFILE_API_URL, FLATFILE_API_KEY and FLATFILE_ENVIRONMENT_ID are what the specs and
// @flatfile/utils-testing read. Needs SLUICE_BIN (make test-upstream sets it).
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, SECRET } from "../wiretest/lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const server = await startServer();
let code = 1;
try {
  const envs = await server.client().environments.list();
  const env = envs.data[0];
  code = await new Promise((done) => {
    const jest = spawn(process.execPath, [path.join(here, "node_modules/jest/bin/jest.js"), "-c", path.join(here, "jest.config.cjs"), ...process.argv.slice(2)], {
      cwd: here,
      stdio: "inherit",
      env: { ...process.env, FLATFILE_API_URL: server.baseURL, AGENT_INTERNAL_URL: server.baseURL, FLATFILE_API_KEY: SECRET, FLATFILE_BEARER_TOKEN: SECRET, FLATFILE_ENVIRONMENT_ID: env.id },
    });
    jest.on("exit", (c) => done(c ?? 1));
  });
} finally {
  if (code !== 0) console.error(server.output().split("\n").slice(-40).join("\n"));
  await server.stop();
}
process.exit(code);
