import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ErrorExample, errorExample, samplePath } from "../../../scripts/generate/error-examples.js";
import { errorCatalogue, type ErrorCode } from "../../src/domain/core/errors.js";
import { rawCall, startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { signedUp, testOrigin } from "../support/dashboard.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// In /docs, an error status without an example showed a body Swagger UI made up from the schema
// (`"code": "VALIDATION_ERROR"` on a 404), issue 24 §4.8. Every declared error status of every
// operation of both documents now has an example; the ones `npm run generate` writes
// (scripts/generate/error-examples.ts) are provoked here on a real server and must be what it says.

type Json = Record<string, any>;
const documents = [
  { name: "public" as const, file: "generated/openapi.yaml" },
  { name: "admin" as const, file: "generated/admin-openapi.yaml" },
  { name: "dashboard" as const, file: "generated/dashboard-openapi.yaml" },
].map((d) => ({ ...d, document: readOpenApiDocument(d.file) as Json }));

interface Declared {
  document: "public" | "admin" | "dashboard";
  method: string;
  template: string;
  operation: Json;
  status: string;
  examples: Record<string, { value: Json }>;
}

const declared: Declared[] = documents.flatMap(({ name, document }) =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([template, item]) =>
    Object.entries(item).flatMap(([method, operation]: [string, Json]) =>
      Object.entries(operation.responses as Record<string, Json>)
        .filter(([status]) => /^[45]/.test(status))
        .map(([status, response]) => {
          const media = response.content?.["application/json"] ?? {};
          const examples = media.examples ?? (media.example ? { example: { value: media.example } } : {});
          return { document: name, method, template, operation, status, examples };
        }),
    ),
  ),
);
/** A schema, or the one its `$ref` names. */
const resolve = (name: Declared["document"], schema: Json | undefined): Json | undefined => {
  const ref = schema?.$ref as string | undefined;
  if (!ref) return schema;
  const document = documents.find((d) => d.name === name)!.document;
  return ref
    .split("/")
    .slice(1)
    .reduce((node: Json, key) => node[key], document);
};
const where = (d: Declared) => `${d.document} ${d.method.toUpperCase()} ${d.template} ${d.status}`;

describe("the error examples of both documents", () => {
  test("when every operation's declared error statuses are walked, then each has an example", () => {
    expect(declared.length).toBeGreaterThan(300);
    expect(declared.filter((d) => Object.keys(d.examples).length === 0).map(where)).toEqual([]);
  });

  test("when every example is read, then it is an ErrorBody whose code answers with that status", () => {
    const wrong: string[] = [];
    for (const { name, document } of documents) {
      const errorBody = Object.keys(document.components.schemas).find((s) => /ErrorBody$/.test(s));
      const validate = new Ajv({ strict: false, validateFormats: false }).compile({
        $ref: `#/components/schemas/${errorBody}`,
        components: document.components,
      });
      for (const d of declared.filter((x) => x.document === name)) {
        for (const [title, { value }] of Object.entries(d.examples)) {
          if (!validate(value)) wrong.push(`${where(d)} ${title}: not an ErrorBody`);
          else if (String(errorCatalogue[value.code as ErrorCode].status) !== d.status) {
            wrong.push(`${where(d)} ${title}: ${value.code} answers ${errorCatalogue[value.code as ErrorCode].status}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  test("when an example's code always has the catalogue's message, then the example says it", () => {
    const fixed: ErrorCode[] = [
      "PAYLOAD_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
      "IDEMPOTENCY_KEY_REUSED",
      "INTERNAL_ERROR",
      "SERVICE_UNAVAILABLE",
    ];
    const notFound = [
      errorCatalogue.NOT_FOUND.message,
      /^Rota não encontrada: [A-Z]+ \S+\.$/,
      /relógio manual/,
      /^Nenhuma conexão bancária configurada: /,
    ];
    // A production create or refund refused while the platform's bank is down (record 0051).
    const bankDown =
      /^O banco da plataforma está indisponível; a (cobrança|devolução) não foi criada\. Tente novamente em \d+ s\.$/;
    const wrong = declared.flatMap((d) =>
      Object.entries(d.examples)
        .filter(([, { value }]) =>
          fixed.includes(value.code)
            ? value.message !== errorCatalogue[value.code as ErrorCode].message &&
              !(value.code === "SERVICE_UNAVAILABLE" && bankDown.test(value.message))
            : value.code === "NOT_FOUND" &&
              !notFound.some((m) => (typeof m === "string" ? m === value.message : m.test(value.message))),
        )
        .map(([title, { value }]) => `${where(d)} ${title}: ${value.message}`),
    );
    expect(wrong).toEqual([]);
  });

  test("when a 429 example is read, then its message is the one of its API's budget", () => {
    const messages = declared
      .filter((d) => d.status === "429")
      .flatMap((d) => Object.values(d.examples).map(({ value }) => ({ document: d.document, message: value.message })));
    for (const { document, message } of messages) {
      expect(message).toMatch(
        {
          public: /^Muitas requisições\. Aguarde \d+ segundos e tente novamente\.$/,
          admin:
            /^Muitas tentativas com token de operador ausente ou inválido a partir deste endereço\. Aguarde \d+ segundos e tente novamente\.$/,
          // The dashboard's budgets: requests, failed log-ins, wrong current passwords of a session
          // (a password change or a two-factor set-up, counted with the log-ins; issue 33 §1.8),
          // and wrong step-up codes of a user (the lock, and the answer that sets it; §1.4).
          dashboard: new RegExp(
            [
              /^Muitas requisições\. Aguarde \d+ segundos e tente novamente\.$/,
              /^Muitas tentativas (de entrada malsucedidas|com a senha incorreta)\. Tente novamente em \d+ minutos\.$/,
              /^Muitos códigos incorretos: a confirmação por código está bloqueada\. Tente novamente em \d+ minutos\.$/,
              /^Muitos códigos incorretos: a confirmação por código está bloqueada por \d+ minutos e todas as suas sessões foram encerradas\. Entre novamente\.$/,
            ]
              .map((r) => r.source)
              .join("|"),
          ),
        }[document],
      );
    }
  });
});

/** The generated examples of the kinds a request can provoke without making anything first. */
const provocable = new Set([
  "unknownQueryParameter",
  "unauthorized",
  "missingPermission",
  "notFound",
  "routeNotFound",
  "payloadTooLarge",
  "unsupportedMediaType",
]);
const generated = declared.flatMap((d) => {
  const example = errorExample(
    { document: d.document, method: d.method, template: d.template, permission: d.operation["x-permission"] },
    d.status,
  );
  return example && provocable.has(example.name) && d.examples[example.name] ? [{ ...d, example }] : [];
});

describe("the generated error examples, provoked on a real server", () => {
  let server: TestServer;
  let fullKey: string;
  let bareKey: string;
  /** The headers of a dashboard user's session: its cookie, its CSRF token, the site's origin. */
  let session: Record<string, string>;
  beforeAll(async () => {
    // Test-mode webhook endpoints on loopback, so an endpoint's example body passes the URL check.
    server = await startTestServer({ allowLocalWebhooks: true });
    const account = await server.newAccount();
    fullKey = account.testKey;
    bareKey = (await account.addKey({ permissions: [] })).secret;
    const { browser } = await signedUp(server);
    session = { cookie: `__Host-pix_session=${browser.cookie}`, "x-csrf-token": browser.csrf!, origin: testOrigin };
  });
  afterAll(() => server.close());

  /** The request that gives `example` on this operation, as a client would send it. */
  function provoke(d: Declared, example: ErrorExample) {
    const operator = d.document === "admin";
    const auth: { admin?: string; key?: string; headers?: Record<string, string> } =
      d.document === "dashboard" ? { headers: session } : operator ? { admin: testAdminToken } : { key: fullKey };
    const requestExample = d.operation.requestBody?.content?.["application/json"]?.examples;
    const validBody = requestExample ? (Object.values(requestExample)[0] as { value: Json }).value : undefined;
    const hasBody = d.operation.requestBody !== undefined;
    const json = (value: unknown) => ({
      rawBody: JSON.stringify(value),
      headers: { ...auth.headers, "content-type": "application/json" },
    });
    // An endpoint's body points at loopback (test mode), with the mode where the body takes one
    // (the operator's create); the dashboard's mode is the path's, and its body refuses a `mode`.
    const bodySchema = resolve(d.document, d.operation.requestBody?.content?.["application/json"]?.schema);
    const takesMode = bodySchema?.properties?.mode !== undefined;
    const body = hasBody
      ? json(
          validBody?.url
            ? { ...validBody, url: "http://127.0.0.1:4000/webhook", ...(takesMode ? { mode: "test" } : {}) }
            : (validBody ?? {}),
        )
      : {};
    // The required query parameters, with their first allowed value (`mode=test`).
    const required = ((d.operation.parameters ?? []) as Json[])
      .filter((p) => p.in === "query" && p.required)
      .map((p) => `${p.name}=${encodeURIComponent(resolve(d.document, p.schema)?.enum?.[0] ?? "x")}`);
    const path = samplePath(d.template);
    const query = (extra: string[] = []) =>
      [...required, ...extra].length ? `?${[...required, ...extra].join("&")}` : "";
    const method = d.method.toUpperCase();
    switch (example.name) {
      case "unknownQueryParameter":
        return rawCall(server.baseUrl, method, `${path}${query(["expand=true"])}`, { ...auth, ...body });
      case "unauthorized":
        return rawCall(server.baseUrl, method, `${path}${query()}`, {
          ...body,
          ...(hasBody ? { headers: { "content-type": "application/json" } } : {}),
        });
      case "missingPermission":
        return rawCall(server.baseUrl, method, `${path}${query()}`, { key: bareKey, ...body });
      case "notFound":
        return rawCall(server.baseUrl, method, `${path}${query()}`, { ...auth, ...body });
      case "routeNotFound":
        return rawCall(server.baseUrl, method, `${path}/`, { ...auth, ...body });
      case "payloadTooLarge":
        return rawCall(server.baseUrl, method, path, { ...auth, ...json({ padding: "x".repeat(70_000) }) });
      default:
        // A body the operation does not take is still parsed as JSON, so a charset the parser cannot
        // read is what gives 415 there.
        return rawCall(server.baseUrl, method, path, {
          ...auth,
          rawBody: "{}",
          headers: { ...auth.headers, "content-type": hasBody ? "text/plain" : "application/json; charset=latin1" },
        });
    }
  }

  test("when each generated kind is provoked on each operation, then the server answers the example (but its timestamp)", async () => {
    expect(generated.length).toBeGreaterThan(100);
    const differences: string[] = [];
    for (const d of generated) {
      const answer = await provoke(d, d.example);
      const { timestamp: _answered, ...got } = (answer.body ?? {}) as Json;
      const { timestamp: _written, ...expected } = d.example.value;
      if (String(answer.status) !== d.status || JSON.stringify(got) !== JSON.stringify(expected)) {
        differences.push(`${where(d)} ${d.example.name}: got ${answer.status} ${JSON.stringify(got)}`);
      }
    }
    expect(differences).toEqual([]);
  }, 60_000);
});
