/**
 * A minimal HTTPS client for the fake bank's tests: node:https with an explicit client
 * certificate (or none) and the bank's CA, one fresh connection per call, bounded by a timeout.
 */
import { request } from "node:https";

export interface Identity {
  certPem: string;
  keyPem: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

export function call(
  url: string,
  options: {
    method?: string;
    ca: string;
    identity?: Identity | null;
    token?: string;
    basic?: { id: string; secret: string };
    json?: unknown;
    form?: Record<string, string>;
    timeoutMs?: number;
  },
): Promise<Answer> {
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (options.json !== undefined) {
    payload = JSON.stringify(options.json);
    headers["content-type"] = "application/json";
  } else if (options.form !== undefined) {
    payload = new URLSearchParams(options.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.basic !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${options.basic.id}:${options.basic.secret}`).toString("base64")}`;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? "GET",
      ca: options.ca,
      ...(options.identity ? { cert: options.identity.certPem, key: options.identity.keyPem } : {}),
      agent: false,
      timeout: options.timeoutMs ?? 5000,
      headers,
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
      });
    });
    req.end(payload);
  });
}

/** A token for `identity` at the bank's token URL (Basic auth, the standard's way). */
export async function tokenFor(
  tokenUrl: string,
  ca: string,
  credentials: Identity & { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const answer = await call(tokenUrl, {
    method: "POST",
    ca,
    identity: credentials,
    basic: { id: credentials.clientId, secret: credentials.clientSecret },
    form: { grant_type: "client_credentials", ...(scope === undefined ? {} : { scope }) },
  });
  if (answer.status !== 200) throw new Error(`token: ${answer.status} ${answer.text}`);
  return (answer.body as { access_token: string }).access_token;
}
