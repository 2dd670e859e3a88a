import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got. */
export interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

/** How a receiver answers one request: a status (body `ok`), a status with headers or a body of its own, or not at all ("hang"). */
export type ReceiverAnswer = number | { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface Receiver {
  /** Where to send: `http://127.0.0.1:<port>/webhook`. */
  url: string;
  received: Received[];
  /** Ends open connections (a hanging answer among them) and stops listening. */
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that records every request and answers the n-th with
 * `answers[n]`, the last answer again once they run out.
 */
export async function startReceiver(answers: ReceiverAnswer[] = [200]): Promise<Receiver> {
  const received: Received[] = [];
  let i = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const next = answers[Math.min(i++, answers.length - 1)];
      if (next === "hang" || next === undefined) return;
      const { status, headers, body } = typeof next === "number" ? { status: next, headers: {}, body: "ok" } : next;
      res.writeHead(status, headers).end(body ?? "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
