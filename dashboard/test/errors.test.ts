import { describe, expect, test } from "vitest";
import { ApiError, errorMessage, fieldErrors } from "../src/api/errors";

// What a form shows of a refusal (useApiForm): the server's message under the field its path names,
// the rest above the buttons; the server stays the validator.

const refusal = (body: unknown, status = 400, headers: Record<string, string> = {}) =>
  ApiError.from(
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } }),
  );

describe("field errors of a refusal", () => {
  test("when the server names fields, then each message goes under its field, nested paths under their root, and the rest stays", async () => {
    const error = await refusal({
      code: "VALIDATION_ERROR",
      message: "Requisição inválida.",
      errors: [
        { path: "amountCents", message: "deve ser no mínimo 500" },
        { path: "amountCents", message: "segunda mensagem do mesmo campo" },
        { path: "customer.document", message: "CPF inválido" },
        { path: "permissions[2]", message: "permissão desconhecida" },
        { path: "metadata", message: "chaves demais" },
      ],
    });

    const { byField, rest } = fieldErrors(error, ["amountCents", "customer", "permissions"]);

    expect(byField).toEqual({
      amountCents: "deve ser no mínimo R$\u00a05,00",
      customer: "CPF inválido",
      permissions: "permissão desconhecida",
    });
    expect(rest).toEqual([
      { path: "amountCents", message: "segunda mensagem do mesmo campo" },
      { path: "metadata", message: "chaves demais" },
    ]);
  });

  test("when a path only begins like a field's name, then it is not that field's", async () => {
    const error = await refusal({
      code: "VALIDATION_ERROR",
      message: "x",
      errors: [{ path: "amountCentsMax", message: "m" }],
    });

    expect(fieldErrors(error, ["amountCents"])).toEqual({
      byField: {},
      rest: [{ path: "amountCentsMax", message: "m" }],
    });
  });

  test("when the error is not the server's (a network failure), then no field has a message and the form says why", () => {
    const failure = new TypeError("Failed to fetch");

    expect(fieldErrors(failure, ["email"])).toEqual({ byField: {}, rest: [] });
    expect(errorMessage(failure)).toMatch(/conexão/);
  });

  test("when an answer has no error body, then its status speaks, with its Retry-After", async () => {
    const error = await ApiError.from(new Response("", { status: 429, headers: { "retry-after": "30" } }));

    expect(error).toMatchObject({ status: 429, code: "HTTP_429", errors: [], retryAfter: 30 });
    expect(error.message).toMatch(/Muitas requisições/);
  });
});
