import { fieldError } from "../domain/core/errors.js";
import type { UrlGuard } from "../domain/webhooks/index.js";
import { checkWebhookUrl } from "./ssrf.js";

/** The SSRF guard at registration: a refused URL answers `400 VALIDATION_ERROR` on `url`. */
export function registrationGuard(allowLoopbackForTest: boolean): UrlGuard {
  return async (url, livemode) => {
    const verdict = await checkWebhookUrl(url, { livemode, allowLoopbackForTest });
    if (verdict) throw fieldError("url", verdict);
  };
}
