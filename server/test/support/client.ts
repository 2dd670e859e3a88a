import { strict as assert } from "node:assert";
import createClient, { type MaybeOptionalInit } from "openapi-fetch";
import type { DocumentName } from "../../../contract-tests/support/document.js";
import { parseBody, responseChecker } from "../../../contract-tests/support/openapi.js";
import type { paths as OperatorPaths } from "../../../generated/admin-api.js";
import type { components, paths as PublicPaths } from "../../../generated/api.js";
import { testTransport } from "./transport.js";

// The test servers through clients typed from the documents (openapi-fetch over the generated
// types): a path, its parameters and its body must be the document's, and an answer's body has the
// type the document gives its status. `rawCall` (../harness.ts) is the one untyped way, for the
// requests a test breaks on purpose. Every answer a typed client gets is checked against its
// document (`checkAnswer`, the project's own response checker): a status the operation does not
// declare, a content type or a body its schema refuses, a missing required header fail the test.

/** The body of every refusal of the public API. */
export type ErrorBody = components["schemas"]["ErrorBody"];

type Method = "get" | "post" | "patch" | "put" | "delete";

/** The paths of `Paths` with an operation for `M`. */
type PathsWith<Paths, M extends Method> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: object } ? P : never;
}[keyof Paths];

type JsonOf<Response> = Response extends { content: { "application/json": infer Body } } ? Body : unknown;

/**
 * One answer of an operation: its status and the body the document gives that status, as a union
 * over the declared statuses. `expectStatus` narrows it to one.
 */
export type Answer<Operation> = Operation extends { responses: infer Responses }
  ? { [S in keyof Responses & number]: { status: S; body: JsonOf<Responses[S]>; headers: Headers } }[keyof Responses &
      number]
  : never;

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Init<Paths, P extends keyof Paths, M extends Method> = M extends keyof Paths[P]
  ? MaybeOptionalInit<Paths[P], M>
  : never;
/** Required when the operation has required parameters or a body, optional otherwise. */
type InitArgument<I> = RequiredKeys<NonNullable<I>> extends never ? [init?: I] : [init: I];

type TypedMethod<Paths, M extends Method> = <P extends PathsWith<Paths, M>>(
  path: P,
  ...init: InitArgument<Init<Paths, P, M>>
) => Promise<Answer<Paths[P][M & keyof Paths[P]]>>;

export interface TypedClient<Paths> {
  GET: TypedMethod<Paths, "get">;
  POST: TypedMethod<Paths, "post">;
  PATCH: TypedMethod<Paths, "patch">;
  PUT: TypedMethod<Paths, "put">;
  DELETE: TypedMethod<Paths, "delete">;
}

const operationIds = new Map<DocumentName, Map<string, string>>();

/** The operationId of `method` on the document's path template `path` (`/api/v1/transactions/{id}`). */
function operationIdOf(document: DocumentName, method: string, path: string): string | undefined {
  let ids = operationIds.get(document);
  if (!ids) {
    ids = new Map(
      responseChecker(document).document.operations.map((op) => [`${op.method} ${op.path}`, op.operationId]),
    );
    operationIds.set(document, ids);
  }
  return ids.get(`${method.toUpperCase()} ${path}`);
}

/**
 * Fails (an assertion) when an answer does not keep its document: the status is declared for the
 * operation, the content type is one the status declares, the body is valid against its schema,
 * every required header is present. `text` is the body as it came.
 */
export function checkAnswer(
  document: DocumentName,
  method: string,
  path: string,
  response: { status: number; headers: Headers },
  text: string,
): void {
  const operationId = operationIdOf(document, method, path);
  assert.ok(operationId, `${method.toUpperCase()} ${path} is no operation of the ${document} document`);
  const problems = responseChecker(document).check(
    operationId,
    response.status,
    response.headers,
    parseBody(response.headers, text),
  );
  assert.deepEqual(
    problems,
    [],
    `${method.toUpperCase()} ${path} answered ${response.status} outside the ${document} document: ${problems.join("; ")}; body ${text.slice(0, 500)}`,
  );
}

function typedClient<Paths extends object>(
  document: DocumentName,
  baseUrl: string,
  headers: Record<string, string>,
): TypedClient<Paths> {
  const client = createClient<Paths>({ baseUrl, headers, ...testTransport });
  const method =
    (name: Method) =>
    async (path: string, init: Record<string, unknown> = {}) => {
      // Read as text and parsed here: a body that is not JSON stays text.
      const request = client.request as (m: Method, p: string, i: object) => Promise<Record<string, unknown>>;
      const { data, error, response } = (await request(name, path, { ...init, parseAs: "text" })) as {
        data?: unknown;
        error?: unknown;
        response: Response;
      };
      let body = data ?? error;
      // openapi-fetch hands an error's JSON over parsed: the checker takes it as text again.
      checkAnswer(document, name, path, response, typeof body === "string" ? body : (JSON.stringify(body) ?? ""));
      if (typeof data === "string") {
        try {
          body = data ? JSON.parse(data) : undefined;
        } catch {
          // not JSON: left as text
        }
      }
      return { status: response.status, body, headers: response.headers };
    };
  return {
    GET: method("get"),
    POST: method("post"),
    PATCH: method("patch"),
    PUT: method("put"),
    DELETE: method("delete"),
  } as unknown as TypedClient<Paths>;
}

/** The public API (`generated/openapi.yaml`) of the server at `baseUrl`, with an API key. */
export function publicApi(
  baseUrl: string,
  options: { key?: string; idempotencyKey?: string; headers?: Record<string, string> } = {},
): TypedClient<PublicPaths> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers["x-api-key"] = options.key;
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
  return typedClient<PublicPaths>("public", baseUrl, headers);
}

/** The operator API (`generated/admin-openapi.yaml`) of the server at `baseUrl`, with a bearer token. */
export function operatorApi(
  baseUrl: string,
  options: { token?: string; headers?: Record<string, string> } = {},
): TypedClient<OperatorPaths> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  return typedClient<OperatorPaths>("admin", baseUrl, headers);
}

/** The `{id}` of a path: `api.GET("/api/v1/transactions/{id}", byId(id))`. */
export const byId = (id: string) => ({ params: { path: { id } } });

/** An answer narrowed to one status (an untyped answer, whose status is any number, stays as it is). */
type WithStatus<A, S> = [Extract<A, { status: S }>] extends [never] ? A : Extract<A, { status: S }>;

/**
 * Asserts an answer's status (the message shows the body when it differs) and narrows the answer
 * to that status, so its body has that status's type.
 */
export function expectStatus<A extends { status: number; body: unknown }, S extends A["status"]>(
  answer: A,
  status: S,
): asserts answer is WithStatus<A, S> {
  assert.equal(answer.status, status, `status ${answer.status}, body ${JSON.stringify(answer.body)?.slice(0, 500)}`);
}

/** The body of an answer that must have `status` (the test fails otherwise). */
export async function bodyOf<A extends { status: number; body: unknown }, S extends A["status"]>(
  answer: A | Promise<A>,
  status: S,
): Promise<WithStatus<A, S>["body"]> {
  const settled = await answer;
  expectStatus(settled, status);
  return settled.body;
}
