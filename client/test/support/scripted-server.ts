// A local HTTP server on 127.0.0.1 that answers from a script: each request takes the next planned
// answer (or drops the connection), and once the script is used up every request gets `fallback`.
// It records what it received so tests can compare attempts.

import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One planned answer; `"drop"` closes the connection without answering (a network error). */
export type PlannedAnswer = { status: number; headers?: Record<string, string>; body?: unknown } | "drop";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ScriptedServer {
  baseUrl: string;
  received: ReceivedRequest[];
  /** Replaces the script and forgets what was received. */
  plan(answers: PlannedAnswer[], fallback?: PlannedAnswer): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  let script: PlannedAnswer[] = [];
  let fallback: PlannedAnswer = { status: 200, body: {} };
  const received: ReceivedRequest[] = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        path: new URL(req.url ?? "/", "http://127.0.0.1").pathname,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      const answer = script.shift() ?? fallback;
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status, {
        "content-type": typeof answer.body === "string" ? "text/html" : "application/json",
        "x-request-id": `req_${received.length}`,
        ...answer.headers,
      });
      res.end(text);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");

  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    plan(answers, nextFallback = { status: 200, body: {} }) {
      script = [...answers];
      fallback = nextFallback;
      received.length = 0;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
