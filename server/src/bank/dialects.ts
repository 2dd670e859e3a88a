/**
 * Where a bank deviates from the Central Bank's API Pix, in one small table. Everything not named
 * here is the standard (generated/bank/pix-api.yaml); a deviation is added here with its source.
 */

import type { BankDialect } from "../domain/bank/index.js";

export interface Dialect {
  /**
   * How the client authenticates at the token endpoint (OAuth2 client credentials):
   * - `basic-form`: RFC 6749 §4.4 with HTTP Basic (client_secret_basic), form body with the scopes;
   * - `basic-json`: Basic as well, the body JSON `{ "grant_type": "client_credentials" }` (Efí);
   * - `post-form`: client id and secret in the form body (client_secret_post), with the scopes (Inter).
   */
  token: "basic-form" | "basic-json" | "post-form";
  /** Headers `PUT /webhook/{chave}` needs beyond the standard's. */
  webhookHeaders: Readonly<Record<string, string>>;
  /** The callback's body: the standard's `{ pix: [...] }`, or a bare array of Pix. */
  callbackBody: "object" | "array";
}

export const dialects: Readonly<Record<BankDialect, Dialect>> = {
  standard: { token: "basic-form", webhookHeaders: {}, callbackBody: "object" },
  efi: {
    // Efí's SDK (github.com/efipay/sdk-node-apis-efi, src/lib/endpoints.js `authenticate`) posts
    // JSON `{ grant_type: "client_credentials" }` with Basic auth and sends `x-skip-mtls-checking`
    // on its calls; Efí's docs (dev.efipay.com.br/docs/api-pix/webhooks, "Entendendo o padrão
    // mTLS") say that on `PUT /webhook/{chave}` Efí first calls the URL without a certificate and
    // expects a refusal unless the header is "true". Our listener demands the bank's certificate,
    // so we ask Efí to check it: "false".
    token: "basic-json",
    webhookHeaders: { "x-skip-mtls-checking": "false" },
    callbackBody: "object",
  },
  inter: {
    // Banco Inter (developers.inter.co, "Obter token oAuth", POST /oauth/v2/token): a form body
    // with client_id, client_secret, grant_type and scope, no Basic header. Its Pix callback is a
    // bare JSON array of Pix rather than `{ pix: [...] }` (issue 35; played by fake-bank/).
    token: "post-form",
    webhookHeaders: {},
    callbackBody: "array",
  },
};
