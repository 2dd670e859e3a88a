import { type Agent, request } from "node:https";

/** What a callback POSTed to the webhook listener was answered. */
export interface ListenerAnswer {
  status: number;
  text: string;
  /** The answer's `Connection` header. */
  connection: string | undefined;
  /** Whether the request went on a connection kept from an earlier one. */
  reused: boolean;
}

export interface ListenerPostOptions {
  /** The client certificate (the bank's, or a stranger's); none: the handshake should refuse it. */
  identity?: { certPem: string; keyPem: string };
  /** The CA the listener's server certificate is checked against; none: not checked. */
  ca?: string;
  /** A pool whose connections are kept (default: a connection of its own). */
  agent?: Agent;
  /** Runs after the headers and half the body are sent, before the rest. */
  midway?: () => Promise<void>;
}

/**
 * POSTs `body` to the webhook listener on `port` at `path` over mutual TLS, as a bank's callback
 * comes: rejects when the connection fails (a refused handshake, a closed connection).
 */
export function postToListener(
  port: number,
  path: string,
  body: string,
  options: ListenerPostOptions = {},
): Promise<ListenerAnswer> {
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      agent: options.agent ?? false,
      ...(options.identity ? { cert: options.identity.certPem, key: options.identity.keyPem } : {}),
      ...(options.ca === undefined ? { rejectUnauthorized: false } : { ca: options.ca }),
      headers: { "content-type": "application/json", "content-length": payload.length },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString("utf8"),
          connection: res.headers.connection,
          reused: req.reusedSocket,
        }),
      );
    });
    const { midway } = options;
    if (midway === undefined) {
      req.end(payload);
      return;
    }
    const half = Math.floor(payload.length / 2);
    req.write(payload.subarray(0, half));
    void midway().then(
      () => req.end(payload.subarray(half)),
      (error: unknown) => req.destroy(error as Error),
    );
  });
}
