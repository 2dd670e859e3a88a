import http from "node:http";
import https from "node:https";
import { webhookDelivery, webhookResponseBodyBytes } from "../domain/core/policy.js";
import { type GuardPolicy, checkWebhookUrl, guardedLookup } from "./ssrf.js";

export interface PostResult {
  /** HTTP status, or null when no response came. */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The start of the response's body as text (`responseBodyBytes` bytes at most), or null when no response came. */
  responseBody: string | null;
  /** `Retry-After` in seconds, when a 429/503 sent one. */
  retryAfterSeconds: number | null;
}

/**
 * The first `limit` bytes of a body as UTF-8 text: a character the cut splits is left out (the
 * decoder's pending bytes are never flushed), bytes that are no UTF-8 become U+FFFD.
 */
function textStart(chunks: readonly Buffer[], limit: number): string {
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  return new TextDecoder("utf-8").decode(bytes, { stream: true });
}

/**
 * POSTs one signed event. Redirects are not followed (a 3xx is a failure); the whole exchange
 * has `timeoutMs`; non-public addresses are refused before and at connect time. The response's
 * body is read to its end, and its first `responseBodyBytes` bytes kept.
 */
export async function postEvent(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: GuardPolicy,
  timeoutMs = webhookDelivery.timeoutSeconds * 1000,
  responseBodyBytes = webhookResponseBodyBytes,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const verdict = await checkWebhookUrl(url, policy);
  if (verdict) {
    return {
      status: null,
      durationMs: elapsed(),
      error: `bloqueado: ${verdict}`,
      retryAfterSeconds: null,
      responseBody: null,
    };
  }
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
        const kept: Buffer[] = [];
        let keptBytes = 0;
        res.on("data", (chunk: Buffer) => {
          if (keptBytes >= responseBodyBytes) return;
          kept.push(chunk);
          keptBytes += chunk.length;
        });
        res.on("end", () => {
          const retryAfter = Number(res.headers["retry-after"]);
          resolve({
            status: res.statusCode ?? null,
            durationMs: elapsed(),
            error: null,
            retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null,
            responseBody: textStart(kept, responseBodyBytes),
          });
        });
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`sem resposta em ${timeoutMs} ms`)), timeoutMs);
    req.on("timeout", () => req.destroy(new Error(`sem resposta em ${timeoutMs} ms`)));
    req.on("error", (error) => {
      clearTimeout(deadline);
      resolve({
        status: null,
        durationMs: elapsed(),
        error: error.message,
        retryAfterSeconds: null,
        responseBody: null,
      });
    });
    req.on("close", () => clearTimeout(deadline));
    req.end(body);
  });
}
