/**
 * `npm run admin -- <command>`: the operator API from a terminal, against `--server` (env
 * `PIX_ADMIN_URL`, default http://127.0.0.1:3000) with `--token` (env `ADMIN_TOKEN`), and the
 * partner commands `listen` and `trigger` with only an API key (`--api-key`, env `PIX_API_KEY`). Readable
 * text by default, `--json` anywhere on the line for scripts; any error exits non-zero with the
 * API's message.
 *
 * Each command group lives in `commands/` and receives a `CliContext` (the operator client, the
 * partner client for commands a partner runs with its API key, and the output).
 */
import { Command, Option } from "commander";
import { ConfigError, loadCliConfig } from "../config.js";
import { CliError } from "./clients.js";
import { registerAccounts } from "./commands/accounts.js";
import { registerBank } from "./commands/bank.js";
import { registerClock } from "./commands/clock.js";
import { registerCustomers } from "./commands/customers.js";
import { registerDeliveries, registerEvents } from "./commands/deliveries.js";
import { registerKeys } from "./commands/keys.js";
import { registerListen } from "./commands/listen.js";
import { registerSimulate } from "./commands/simulate.js";
import { registerTrigger } from "./commands/trigger.js";
import { registerWebhooks } from "./commands/webhooks.js";
import { createContext, type GlobalOptions } from "./context.js";
import { createOutput } from "./output.js";
import { inPortuguese } from "./portuguese.js";

const defaultServer = "http://127.0.0.1:3000";

export function buildProgram(): Command {
  const program = inPortuguese(new Command("admin"), { showGlobalOptions: true, helpWidth: 100 })
    .description(
      "CLI do Pix Charging Service: comandos de operador (--token) e os comandos do parceiro " +
        "listen e trigger (só --api-key)",
    )
    // Values from the environment are read when a command runs, never shown as defaults in help.
    .addOption(new Option("--server <url>", "o endereço base do serviço").env("PIX_ADMIN_URL").default(defaultServer))
    .addOption(new Option("--token <token>", "token de operador (comandos de operador)").env("ADMIN_TOKEN"))
    .addOption(new Option("--api-key <key>", "chave de API do parceiro (listen, trigger)").env("PIX_API_KEY"))
    .option("--json", "imprime JSON em vez de texto (em qualquer comando)")
    .showHelpAfterError()
    .exitOverride();
  // Settings above are copied into every subcommand created below. The program takes its options
  // anywhere on the line, so no subcommand may declare one of the same name: a global --url once
  // swallowed `webhooks create --url` (the process tests check every command).

  const ctx = createContext(
    program,
    createOutput(() => program.opts<GlobalOptions>().json === true),
  );
  registerAccounts(program, ctx);
  registerKeys(program, ctx);
  registerWebhooks(program, ctx);
  registerDeliveries(program, ctx);
  registerEvents(program, ctx);
  registerCustomers(program, ctx);
  registerSimulate(program, ctx);
  registerClock(program, ctx);
  registerBank(program, ctx);
  registerListen(program, ctx);
  registerTrigger(program, ctx);
  return program;
}

/** An unexpected failure in one line; an unreachable server says so and where the address comes from. */
function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof TypeError && error.message === "fetch failed") {
    return `o servidor não responde (${cause?.code ?? cause?.message ?? "sem resposta"}): confira --server ou PIX_ADMIN_URL`;
  }
  return (error as Error).message;
}

/** Runs the CLI on `argv` (without node and script); the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`erro: ${error.message}`);
      return 1;
    }
    const exitCode = (error as { exitCode?: number }).exitCode;
    if (exitCode !== undefined) return exitCode;
    console.error(`erro: ${describeFailure(error)}`);
    return 1;
  }
}

/**
 * What `npm run admin` runs (main.ts): the settings read from the environment first (an invalid
 * PIX_ADMIN_URL ends with its message before any command runs), then `runCli`; the exit code.
 */
export async function main(argv: string[]): Promise<number> {
  try {
    loadCliConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 1;
  }
  return runCli(argv);
}
