import { randomUUID } from "node:crypto";
import { freePort } from "../../scripts/pg-cluster.js";
import { startPrism } from "../../scripts/prism.js";
import {
  defaultLoad,
  type LoadOptions,
  type LoadRequest,
  oneRun,
  type Paired,
  pairedRequestsPerSecond,
  requestsPerSecond,
} from "../lib/load.js";
import { pin, type Running, startNode } from "../lib/process.js";
import { serverArgs, startFlags } from "../lib/server.js";

const chargeBody = () =>
  JSON.stringify({
    amountCents: 8990,
    description: "Pedido de bancada",
    customer: {
      name: "Maria da Silva",
      email: "maria@example.com",
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
    },
  });

/** The four routes measured on every implementation, with what they need (a key, an existing charge). */
function routes(key: string, chargeId: string): Record<string, LoadRequest> {
  const headers = { "x-api-key": key };
  return {
    "GET /transactions/{id}": { path: `/api/v1/transactions/${chargeId}`, headers },
    "GET /transactions (20)": { path: "/api/v1/transactions?limit=20", headers },
    "GET /balance": { path: "/api/v1/balance", headers },
    "POST /charges/pix": createChargeRequest(key),
  };
}

/** `POST /charges/pix` with a fresh body per request. */
export function createChargeRequest(key: string): LoadRequest {
  return { method: "POST", path: "/api/v1/charges/pix", headers: { "x-api-key": key }, body: chargeBody };
}

/** Each implementation's routes, measured turn about with bare Express (`pairedRequestsPerSecond`). */
export interface Throughput {
  /** Requests per second of the floors, each the median of its own runs. */
  floors: Record<"bare node:http" | "bare Express", number>;
  servers: Record<string, Record<string, Paired>>;
}

/** Starts our server (memory or PostgreSQL), makes 25 charges so lists have a page, and hands back what the routes need. */
export async function startOurServer(
  env: Record<string, string>,
  extra: Record<string, string> = {},
  options: { cpu?: number | null; readyPath?: string } = {},
) {
  const port = await freePort();
  // The production request path (no response validation), but for rate limits: one IP under load
  // would spend its budget in a second.
  const server = await startNode(serverArgs(), {
    port,
    env: { RATE_LIMITS: "off", VALIDATE_RESPONSES: "off", ...env, ...extra },
    ...options,
  });
  // The banner's development test key (its wording is the server's; the key's shape is the API's).
  // With several processes the primary prints it once every one has started.
  const devKey = () => /(svc_test_[A-Za-z0-9]+)/.exec(server.output())?.[1];
  for (let waited = 0; !devKey() && waited < 30_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  const key = devKey();
  if (!key) {
    await server.stop();
    throw new Error(`no development key printed:\n${server.output()}`);
  }
  let chargeId = "";
  for (let i = 0; i < 25; i++) {
    const res = await fetch(`${server.baseUrl}/api/v1/charges/pix`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: chargeBody(),
    });
    if (res.status !== 201) throw new Error(`create charge: ${res.status} ${await res.text()}`);
    chargeId = ((await res.json()) as { id: string }).id;
  }
  return { server, key, chargeId };
}

async function measureRoutes(
  baseUrl: string,
  key: string,
  chargeId: string,
  baseline: () => Promise<number>,
  load: LoadOptions,
) {
  const out: Record<string, Paired> = {};
  for (const [name, request] of Object.entries(routes(key, chargeId))) {
    out[name] = await pairedRequestsPerSecond(baseline, baseUrl, request, load);
  }
  return out;
}

/**
 * Requests per second of bare node:http, bare Express, the Prism mock and our server on each store,
 * each server alone on core 0 and the load generator on core 1. Bare Express stays up throughout:
 * every run of a route is paired with a run of it just before, and the ratio is of the pair.
 */
export async function measureThroughput(
  databaseUrl: string | null,
  load: LoadOptions = defaultLoad,
): Promise<Throughput> {
  pin(process.pid, 1);
  const floorRequest: LoadRequest = { path: "/api/v1/balance" };
  const http = await startNode([...startFlags(), "--import", "tsx", "bench/targets/bare-http.ts"], {
    port: await freePort(),
    readyPath: "/",
  });
  let bareHttp: number;
  try {
    bareHttp = await requestsPerSecond(http.baseUrl, floorRequest, load);
  } finally {
    await http.stop();
  }

  const express = await startNode([...startFlags(), "--import", "tsx", "bench/targets/bare-express.ts"], {
    port: await freePort(),
    readyPath: "/",
  });
  try {
    const result: Throughput = {
      floors: {
        "bare node:http": bareHttp,
        "bare Express": await requestsPerSecond(express.baseUrl, floorRequest, load),
      },
      servers: {},
    };
    const baseline = () => oneRun(express.baseUrl, floorRequest, load);

    const prism = await startPrism({ port: await freePort(), document: "generated/openapi.yaml" });
    pin(prism.pid, 0);
    try {
      result.servers["Prism mock"] = await measureRoutes(
        prism.baseUrl,
        "svc_test_bench",
        "txn_4Fq9ZtR2mXwP8LkA3cD7",
        baseline,
        load,
      );
    } finally {
      await prism.stop();
    }

    const stores: [string, Record<string, string>][] = [["ours, memory", {}]];
    if (databaseUrl) stores.push(["ours, PostgreSQL", { DATABASE_URL: databaseUrl }]);
    for (const [name, env] of stores) {
      let running: Running | undefined;
      try {
        const { server, key, chargeId } = await startOurServer(env);
        running = server;
        result.servers[name] = await measureRoutes(server.baseUrl, key, chargeId, baseline, load);
      } finally {
        await running?.stop();
      }
    }
    return result;
  } finally {
    await express.stop();
  }
}
