import http from "node:http";
import https from "node:https";
import { type GuardPolicy, checkWebhookUrl, guardedLookup } from "./ssrf.js";

export interface PostResult {
  /** HTTP status, or null when no response came. */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** `Retry-After` in seconds, when a 429/503 sent one. */
  retryAfterSeconds: number | null;
}

/**
 * POSTs one signed event. Redirects are not followed (a 3xx is a failure); the whole exchange
 * has `timeoutMs`; non-public addresses are refused before and at connect time.
 */
export async function postEvent(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: GuardPolicy,
  timeoutMs = 15_000,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const verdict = await checkWebhookUrl(url, policy);
  if (verdict) return { status: null, durationMs: elapsed(), error: `bloqueado: ${verdict}`, retryAfterSeconds: null };
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const req = client.request(
      target,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": "pix-charging-service-webhooks/1.0",
        },
        lookup: guardedLookup(policy) as never,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          const retryAfter = Number(res.headers["retry-after"]);
          resolve({
            status: res.statusCode ?? null,
            durationMs: elapsed(),
            error: null,
            retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null,
          });
        });
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`sem resposta em ${timeoutMs} ms`)), timeoutMs);
    req.on("timeout", () => req.destroy(new Error(`sem resposta em ${timeoutMs} ms`)));
    req.on("error", (error) => {
      clearTimeout(deadline);
      resolve({ status: null, durationMs: elapsed(), error: error.message, retryAfterSeconds: null });
    });
    req.on("close", () => clearTimeout(deadline));
    req.end(body);
  });
}
