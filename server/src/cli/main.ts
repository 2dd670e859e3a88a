import { configOrExit, loadCliConfig } from "../config.js";
import { runCli } from "./cli.js";

// An invalid PIX_ADMIN_URL ends here with a clear message, before any command runs.
configOrExit(() => loadCliConfig());
process.exitCode = await runCli(process.argv.slice(2));
