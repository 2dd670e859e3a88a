import { describe, expect, test } from "vitest";
import { maskedJson, maskedPath, maskedSecret } from "../../src/domain/request-logs/index.js";

// The request logs' one masking function (issue 37 §2): documents, e-mail addresses and secrets'
// values masked in a JSON text, cut at a budget without keeping half a string.

describe("maskedJson", () => {
  test.each([
    { name: "a CPF", body: { document: "52998224725" }, shows: "***982247**", hides: "52998224725" },
    { name: "a punctuated CPF", body: { document: "529.982.247-25" }, shows: "***.982.247-**", hides: "529.982" },
    { name: "a CNPJ", body: { document: "11222333000181" }, shows: "**222333******", hides: "11222333000181" },
    {
      name: "a punctuated CNPJ",
      body: { document: "11.222.333/0001-81" },
      shows: "**.222.333/****-**",
      hides: "0001-81",
    },
    { name: "a Pix key that is a CPF", body: { pixKey: "52998224725" }, shows: "***982247**", hides: "5299822" },
    {
      name: "an e-mail address",
      body: { email: "maria.silva@example.com" },
      shows: "ma***@example.com",
      hides: "maria",
    },
    {
      name: "an e-mail address inside a text",
      body: { description: "Pedido de joao@loja.com.br, entregar" },
      shows: "Pedido de jo***@loja.com.br, entregar",
      hides: "joao@",
    },
    { name: "a secret", body: { secret: "whsec_abc123" }, shows: maskedSecret, hides: "whsec_abc123" },
    { name: "a token", body: { metadata: { accessToken: "tok_1" } }, shows: maskedSecret, hides: "tok_1" },
    { name: "a password", body: { password: "hunter2" }, shows: maskedSecret, hides: "hunter2" },
    { name: "a senha", body: { senha: "segredo" }, shows: maskedSecret, hides: "segredo" },
    { name: "an API key", body: { apiKey: "svc_test_abc" }, shows: maskedSecret, hides: "svc_test_abc" },
    { name: "a key", body: { key: "abc" }, shows: maskedSecret, hides: '"abc"' },
    { name: "an authorization", body: { Authorization: "Bearer x" }, shows: maskedSecret, hides: "Bearer" },
    {
      name: "a key in capitals",
      body: { metadata: { API_KEY: "svc_test_a" } },
      shows: maskedSecret,
      hides: "svc_test_a",
    },
    {
      name: "a key run together",
      body: { metadata: { APIKEY: "svc_test_b" } },
      shows: maskedSecret,
      hides: "svc_test_b",
    },
    {
      name: "a header's name",
      body: { metadata: { "x-api-key": "svc_test_c" } },
      shows: maskedSecret,
      hides: "svc_test_c",
    },
    { name: "a client secret", body: { CLIENT_SECRET: "cs_1" }, shows: maskedSecret, hides: "cs_1" },
    { name: "tokens in a list", body: { tokens: ["tok_a", "tok_b"] }, shows: maskedSecret, hides: "tok_" },
    { name: "a secret that is a number", body: { secret: 987654 }, shows: maskedSecret, hides: "987654" },
    {
      name: "a secret that is an object",
      body: { secret: { value: "whsec_x", token: "t" }, after: "kept" },
      shows: '"after":"kept"',
      hides: "whsec_x",
    },
    { name: "passwords", body: { passwords: ["hunter2"] }, shows: maskedSecret, hides: "hunter2" },
    { name: "credentials", body: { credentials: { user: "u", pass: "p4ss" } }, shows: maskedSecret, hides: "p4ss" },
    { name: "a private key", body: { privateKeyPem: "-----BEGIN" }, shows: maskedSecret, hides: "BEGIN" },
    { name: "a one-time code", body: { otp: "123456" }, shows: maskedSecret, hides: "123456" },
    {
      name: "a CPF inside a text",
      body: { description: "Pedido do CPF 529.982.247-25 entregue" },
      shows: "CPF ***.982.247-** entregue",
      hides: "529.982",
    },
    {
      name: "a CPF in a path",
      body: { error: { path: "/api/v1/customers/52998224725" } },
      shows: "/customers/***982247**",
      hides: "52998224725",
    },
    {
      name: "an e-mail address with a long local part",
      body: { email: `${"a".repeat(70)}@example.com` },
      shows: "aa***@example.com",
      hides: "aaa@",
    },
    {
      name: "a CNPJ inside a text",
      body: { description: "Fornecedor (11.222.333/0001-81)." },
      shows: "(**.222.333/****-**).",
      hides: "0001-81",
    },
  ])("when the body holds $name, then only its masked form is kept", ({ body, shows, hides }) => {
    const { text, truncated } = maskedJson(JSON.stringify(body));
    expect(truncated).toBe(false);
    expect(text).toContain(shows);
    expect(text).not.toContain(hides);
  });

  test.each([
    { name: "a Pix key that is a phone number", body: { pixKey: "+5511987654321", pixKeyType: "PHONE" } },
    { name: "an id and an amount", body: { id: "txn_52998224725abc", amountCents: 52998224725 } },
    { name: "a description", body: { description: "Bolo de cenoura @ 3 fatias" } },
    { name: "a Pix key and an idempotency key", body: { pixKey: "+5511987654321", idempotencyKey: "abc-123" } },
    { name: "a public key and a monkey", body: { publicKey: "pk_1", monkey: "Kiko", keyType: "EMAIL" } },
    { name: "a big amount and a list of numbers", body: { amountCents: 52998224725, counts: [52998224725, 1] } },
    { name: "an end-to-end id and a date", body: { e2e: "E52998224725202611291200abc", at: "2026-11-29" } },
    { name: "an error's code", body: { error: { code: "VALIDATION_ERROR", message: "x" } } },
  ])("when the body holds $name, then it is kept as it was", ({ body }) => {
    expect(maskedJson(JSON.stringify(body)).text).toBe(JSON.stringify(body));
  });

  test("when a body is past the budget, then it is cut at the budget, its documents masked up to the cut", () => {
    const items = Array.from({ length: 400 }, (_, n) => ({ n, document: "52998224725", note: "x".repeat(n % 7) }));
    const text = JSON.stringify({ data: items });
    const { text: kept, truncated } = maskedJson(text, 1000);
    expect(truncated).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(1000);
    expect(kept).not.toMatch(/\d{7}|529982|224725/);
    expect(kept).toContain("***982247**");
  });

  test("when a secret's value straddles the budget, then none of it is kept", () => {
    const text = JSON.stringify({ description: "a".repeat(90), secret: "s".repeat(5000) });
    const { text: kept } = maskedJson(text, 200);
    expect(kept).not.toContain("sss");
  });

  test("when a path holds a document or an e-mail address, then the kept path has them masked and the rest as it was", () => {
    expect(maskedPath("/api/v1/customers/52998224725")).toBe("/api/v1/customers/***982247**");
    expect(maskedPath("/api/v1/customers/maria@example.com")).toBe("/api/v1/customers/ma***@example.com");
    expect(maskedPath("/api/v1/transactions/txn_52998224725abc")).toBe("/api/v1/transactions/txn_52998224725abc");
  });
});
