/**
 * Step 2 of `npm run generate`: the parameters of each `@opExample` (the mode, the ids, the
 * filters, the idempotency key) reach the emitted documents. The emitter writes an example's body
 * and answer and drops its parameters (its `experimental-parameter-examples` option puts them on
 * the parameter, and a shared one, as `mode`, keeps one operation's), so an example meant for
 * production mode read as a test-mode one (issue 33 §3).
 *
 * Each operation gains `x-example-requests`: for every example that sends something (parameters or
 * a body), under its title, the status it documents and its parameter values by where they go
 * (`path`, `query`, `header`; the body stays in the request body's `examples` under the same
 * title), for tools and tests. Each example object under that title (the body's, the answer's)
 * gains in its description a sentence naming the path and query values, for readers.
 * Decision record 0044.
 */
import {
  getNamespaceFullName,
  getOpExamples,
  isService,
  navigateProgram,
  type Operation,
  type Program,
  serializeValueAsJson,
} from "@typespec/compiler";
import { getHttpOperation } from "@typespec/http";
import { getOperationId } from "@typespec/openapi";
import { isMap, parseDocument, Scalar, visit, type YAMLMap } from "yaml";

/** Where a parameter goes, and its value, by its HTTP name. */
export type ParameterValues = Partial<Record<"path" | "query" | "header" | "cookie", Record<string, unknown>>>;

/** What an example sends, beside its body, and the status it documents. */
export interface ExampleRequest {
  status?: number;
  parameters?: ParameterValues;
}

/** For each operationId, each sending example by its title. */
export type ExampleParameters = Map<string, Map<string, ExampleRequest>>;

/** The service (its namespace's full name, as the emitted file is named) an operation belongs to. */
function serviceOf(program: Program, operation: Operation): string | undefined {
  for (let ns = operation.interface?.namespace ?? operation.namespace; ns; ns = ns.namespace)
    if (isService(program, ns)) return getNamespaceFullName(ns);
  return undefined;
}

/**
 * The parameter values of every operation's `@opExample`s, read with TypeSpec's public API, by
 * service (`PixService`, `PixAdmin`, `PixDashboard`): an operationId is unique within one only.
 */
export function readExampleParameters(program: Program): Map<string, ExampleParameters> {
  const services = new Map<string, ExampleParameters>();
  const visitOperation = (operation: Operation) => {
    const examples = getOpExamples(program, operation);
    const operationId = getOperationId(program, operation);
    const service = serviceOf(program, operation);
    if (examples.length === 0 || !operationId || !service) return;
    if (!services.has(service)) services.set(service, new Map());
    const found = services.get(service)!;
    const [http] = getHttpOperation(program, operation);
    for (const example of examples) {
      if (!example.title || example.parameters?.valueKind !== "ObjectValue") continue;
      const values: ParameterValues = {};
      for (const [name, property] of example.parameters.properties) {
        const parameter = http.parameters.parameters.find((p) => p.param.name === name);
        if (!parameter) continue; // the body: the emitter writes it
        (values[parameter.type] ??= {})[parameter.name] = serializeValueAsJson(
          program,
          property.value,
          parameter.param.type,
        );
      }
      const answer = example.returnType?.valueKind === "ObjectValue" ? example.returnType : undefined;
      const status = answer?.properties.get("statusCode")?.value;
      if (!found.has(operationId)) found.set(operationId, new Map());
      const byTitle = found.get(operationId)!;
      if (byTitle.has(example.title)) throw new Error(`${operationId}: two examples titled "${example.title}"`);
      byTitle.set(example.title, {
        ...(status?.valueKind === "NumericValue" ? { status: status.value.asNumber() ?? undefined } : {}),
        ...(Object.keys(values).length > 0 ? { parameters: values } : {}),
      });
    }
  };
  navigateProgram(program, { operation: visitOperation });
  return services;
}

/** The sentence a reader sees: the path's and the query's values (headers are in `x-example-requests`). */
function sentence(values: ParameterValues | undefined): string | undefined {
  const shown = [...Object.entries(values?.path ?? {}), ...Object.entries(values?.query ?? {})].map(
    ([name, value]) => `\`${name}\` = \`${typeof value === "string" ? value : JSON.stringify(value)}\``,
  );
  return shown.length > 0 ? `Sent with ${shown.join(", ")}.` : undefined;
}

const methods = ["get", "put", "post", "patch", "delete"] as const;

/**
 * Writes each example's parameter values and status into an emitted document (YAML text), leaving
 * every other line as it was.
 */
export function carryExampleParameters(yamlText: string, parameters: ExampleParameters | undefined): string {
  if (!parameters) return yamlText;
  const doc = parseDocument(yamlText);
  const paths = doc.get("paths") as YAMLMap<string, YAMLMap> | undefined;
  for (const pathItem of paths?.items ?? []) {
    for (const method of methods) {
      const operation = pathItem.value?.get(method);
      if (!isMap(operation)) continue;
      const byTitle = parameters.get(String(operation.get("operationId")));
      if (!byTitle) continue;
      const body = operation.getIn(["requestBody", "content"]);
      const media = [
        ...mediaOf(body),
        ...(((operation.get("responses") as YAMLMap | undefined)?.items ?? []) as { value: unknown }[]).flatMap((r) =>
          mediaOf(isMap(r.value) ? r.value.get("content") : undefined),
        ),
      ];
      const requests: Record<string, ExampleRequest> = {};
      for (const [title, request] of byTitle) {
        const sendsBody = mediaOf(body).some((m) => isMap(m.getIn(["examples", title])));
        if (!request.parameters && !sendsBody) continue; // an answer only: nothing to send
        requests[title] = request;
        const said = sentence(request.parameters);
        if (!said) continue;
        for (const object of media.map((m) => m.getIn(["examples", title])).filter(isMap)) {
          const description = object.get("description");
          object.set("description", typeof description === "string" ? `${description} ${said}` : said);
        }
      }
      if (Object.keys(requests).length === 0) continue;
      const node = doc.createNode(requests);
      // Quoted as the emitter quotes them: a YAML 1.1 reader takes a plain date for a timestamp.
      visit(node, {
        Scalar(_key, scalar) {
          if (typeof scalar.value === "string" && /^\d{4}-\d{2}-\d{2}/.test(scalar.value))
            scalar.type = Scalar.QUOTE_SINGLE;
        },
      });
      operation.set("x-example-requests", node);
    }
  }
  return doc.toString({ lineWidth: 0 });
}

/** The media type objects of a `content` map. */
function mediaOf(content: unknown): YAMLMap[] {
  return isMap(content) ? content.items.map((item) => item.value).filter(isMap) : [];
}
