import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  type Balance,
  createPixClient,
  type Customer,
  type ErrorBody,
  type FieldError,
  PixApiError,
  type PixClient,
  type PixThrowingClient,
  paginate,
} from "../src/index.js";
import { type ScriptedServer, startScriptedServer } from "./support/scripted-server.js";

const API_KEY = "svc_test_0123456789abcdef";

const validationError: ErrorBody = {
  ok: false,
  code: "VALIDATION_ERROR",
  message: "A requisição tem campos inválidos.",
  errors: [{ path: "amountCents", message: "Deve ser no mínimo 500." }],
  path: "/api/v1/charges/pix",
  timestamp: "2026-10-04T15:30:00.000Z",
};

describe("throwOnError", () => {
  let server: ScriptedServer;

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  const throwing = () =>
    createPixClient({ apiKey: API_KEY, baseUrl: server.baseUrl, throwOnError: true, maxRetries: 0 });

  it("when the answer is 2xx, then the call resolves to { data, response }", async () => {
    server.plan([{ status: 200, body: { availableCents: 100 } }]);

    const result = await throwing().GET("/api/v1/balance");

    expect(result.data).toEqual({ availableCents: 100 });
    expect(result.response.status).toBe(200);
    expect("error" in result).toBe(false);
  });

  it("when the answer is a VALIDATION_ERROR, then it throws a PixApiError with status, code, message, errors and requestId", async () => {
    server.plan([{ status: 400, headers: { "x-request-id": "req_abc" }, body: validationError }]);

    const error: unknown = await throwing()
      .POST("/api/v1/charges/pix", {
        body: {
          amountCents: 1,
          description: "Pedido",
          customer: {
            name: "Maria",
            email: "m@example.com",
            phone: "11987654321",
            documentType: "CPF",
            document: "52998224725",
          },
        },
      })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PixApiError);
    expect(error).toMatchObject({
      name: "PixApiError",
      status: 400,
      code: "VALIDATION_ERROR",
      message: "Pix API answered 400 VALIDATION_ERROR: A requisição tem campos inválidos.",
      errors: [{ path: "amountCents", message: "Deve ser no mínimo 500." }],
      requestId: "req_abc",
      body: validationError,
    });
  });

  it("when a non-2xx answer is not an error body, then the PixApiError has no code and no errors", async () => {
    server.plan([{ status: 502, body: "<html>Bad gateway</html>" }]);

    const error: unknown = await throwing()
      .GET("/api/v1/balance")
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PixApiError);
    expect(error).toMatchObject({ status: 502, code: undefined, body: undefined, errors: [] });
    expect((error as PixApiError).message).toBe("Pix API answered 502: <html>Bad gateway</html>");
  });

  it("when retries are on, then only the answer after the last retry throws", async () => {
    server.plan([
      { status: 503, body: {} },
      { status: 200, body: { availableCents: 7 } },
    ]);
    const client = createPixClient({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      throwOnError: true,
      retryBackoff: { initialDelayMs: 1, maxDelayMs: 1 },
    });

    const { data } = await client.GET("/api/v1/balance");

    expect(data.availableCents).toBe(7);
    expect(server.received).toHaveLength(2);
  });

  it("when throwOnError is off, then a non-2xx answer resolves to { error }", async () => {
    server.plan([{ status: 400, body: validationError }]);
    const client = createPixClient({ apiKey: API_KEY, baseUrl: server.baseUrl, maxRetries: 0 });

    const { error, response } = await client.GET("/api/v1/balance");

    expect(response.status).toBe(400);
    expect(error).toEqual(validationError);
  });

  it("when a throwing client is paginated, then a failing page throws its PixApiError", async () => {
    server.plan([
      { status: 200, body: { data: [{ id: "cus_1" }], hasMore: true } },
      { status: 429, body: { ...validationError, code: "RATE_LIMITED", message: "Muitas requisições." } },
    ]);

    const seen: string[] = [];
    const walk = async () => {
      for await (const customer of paginate(throwing(), "/api/v1/customers")) seen.push(customer.id);
    };

    await expect(walk()).rejects.toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(seen).toEqual(["cus_1"]);
  });

  it("types: the throwing client's data is the success body, never undefined, and has no error", () => {
    const client = throwing();
    expectTypeOf(client).toEqualTypeOf<PixThrowingClient>();
    expectTypeOf(createPixClient({ apiKey: API_KEY, baseUrl: server.baseUrl })).toEqualTypeOf<PixClient>();

    type BalanceResult = Awaited<ReturnType<typeof client.GET<"/api/v1/balance", undefined>>>;
    expectTypeOf<BalanceResult["data"]>().toEqualTypeOf<Balance>();
    expectTypeOf<BalanceResult>().not.toHaveProperty("error");

    const getCustomer = () => client.GET("/api/v1/customers/{id}", { params: { path: { id: "cus_1" } } });
    expectTypeOf(getCustomer).returns.resolves.toHaveProperty("data").toEqualTypeOf<Customer>();
    expectTypeOf<PixApiError["errors"]>().toEqualTypeOf<readonly FieldError[]>();

    // Wrong routes and missing parameters are still compile errors.
    // @ts-expect-error -- no such route
    void (() => client.GET("/api/v1/not-a-route"));
    // @ts-expect-error -- the path parameter is required
    void (() => client.GET("/api/v1/customers/{id}"));
  });
});
