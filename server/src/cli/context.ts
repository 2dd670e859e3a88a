/**
 * What every command group receives: the clients, built at run time from the global options and
 * the environment (never read into help text, so `--help` shows no secret), and the output.
 */
import { type Command, InvalidArgumentError } from "commander";
import { CliError, type OperatorClient, operatorClient, type PartnerClient, partnerClient } from "./clients.js";
import type { Output } from "./output.js";

export interface CliContext {
  /** The operator API (`--server`, `--token` / `ADMIN_TOKEN`). */
  operator(): OperatorClient;
  /**
   * The partner API on the same server with an API key (`--api-key` / `PIX_API_KEY`): for the
   * commands a partner runs (`listen`, `trigger`), which need no operator token.
   */
  partner(): PartnerClient;
  /** The API key `partner()` uses (trigger checks its mode before calling anything). */
  apiKey(): string;
  readonly out: Output;
}

/** The global options, as commander parsed them (environment fallbacks applied by commander). */
export interface GlobalOptions {
  server: string;
  token?: string;
  apiKey?: string;
  json?: boolean;
}

export function createContext(program: Command, out: Output): CliContext {
  const server = () => program.opts<GlobalOptions>().server;
  const apiKey = () => {
    const key = program.opts<GlobalOptions>().apiKey;
    if (!key) throw new CliError("PIX_API_KEY não está definida: exporte a chave de API do parceiro ou use --api-key.");
    return key;
  };
  return {
    out,
    operator() {
      const { token } = program.opts<GlobalOptions>();
      if (!token) throw new CliError("ADMIN_TOKEN não está definido: exporte-o ou use --token.");
      return operatorClient(server(), token);
    },
    apiKey,
    partner: () => partnerClient(server(), apiKey()),
  };
}

/** Option parser: a safe integer. */
export function int(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n))
    throw new InvalidArgumentError(`não é um número inteiro: ${value}`);
  return n;
}

/** Option parser: a comma-separated list ("" is the empty list). */
export const list = (value: string): string[] =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** Adds `--limit` and `--starting-after` to a list command. */
export function withPageOptions(command: Command): Command {
  return command
    .option("--limit <n>", "quantos itens buscar (1 a 100)", int, 100)
    .option("--starting-after <id>", "continua depois deste id (o cursor da página anterior)");
}

export interface PageOptions {
  limit: number;
  startingAfter?: string;
}

/** The page query from `--limit` and `--starting-after`. */
export const pageQuery = (o: PageOptions) => ({
  limit: o.limit,
  ...(o.startingAfter ? { startingAfter: o.startingAfter } : {}),
});
