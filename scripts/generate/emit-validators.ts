// Step 5 of `npm run generate`: the request validators of one OpenAPI document, as Ajv standalone
// code (no schema is read or compiled at run time). For every operation two functions: one over its
// path, query and header parameters (types coerced from the URL's text, defaults filled in), one
// over its JSON body (no coercion). Both are compiled as the request check runs them
// (server/src/http/request-checks.ts); docs/decisions/0049-request-validation-owned-and-generated.md.
import AjvDraft04 from "ajv-draft-04";
import type { Options } from "ajv";
import { _ } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";

type Node = Record<string, unknown>;

interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Node;
  allowReserved?: boolean;
  $ref?: string;
}

const parameterField = { query: "query", header: "headers", path: "params", cookie: "cookies" } as const;

/** The components of the document, referenced from every operation's schemas by this id. */
const componentsId = "components";

/** `#/components/…` references made references into the shared components schema. */
function rebaseRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebaseRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace(/^#\/components\//, `${componentsId}#/`) : rebaseRefs(v),
      ]),
    );
  }
  return value;
}

/** Ajv for an OpenAPI 3.0 document: draft-04, the full formats, every error reported. */
function makeAjv(coerceTypes: boolean, components: unknown): AjvDraft04.default {
  const options: Options = {
    strict: false,
    strictNumbers: true,
    strictTuples: true,
    allowUnionTypes: false,
    validateSchema: false,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    validateFormats: true,
    allErrors: true,
    code: { source: true, esm: true, lines: false, optimize: true },
  };
  const ajv = new AjvDraft04.default(options);
  addFormats.default(ajv, { mode: "full" });
  // The formats (ajv-formats' full ones, `int64` as a safe integer) come from the module's
  // `formats`, declared in its prelude (see `emitValidators`).
  ajv.opts.code.formats = _`formats`;
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addSchema({ id: componentsId, ...(rebaseRefs(components) as Node) });
  return ajv;
}

/** What the request check knows of an operation beside its two validators. */
interface OperationShape {
  id: string;
  parameters: Node;
  body: Node | null;
  bodyRequired: boolean;
  query: string[];
}

function operationShapes(document: Node): OperationShape[] {
  const components = (document.components ?? {}) as Node;
  const parameterOf = (p: ParameterObject): ParameterObject =>
    p.$ref
      ? ((components.parameters as Record<string, ParameterObject>)[p.$ref.replace(/^.+\//, "")] as ParameterObject)
      : p;
  const shapes: OperationShape[] = [];
  for (const item of Object.values(document.paths as Record<string, Record<string, Node>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const groups: Record<string, Node> = { query: {}, headers: {}, params: {} };
      const query: string[] = [];
      for (const raw of (operation.parameters as ParameterObject[] | undefined) ?? []) {
        const parameter = parameterOf(raw);
        if (parameter.in === "cookie") continue;
        const name = parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name;
        const group = groups[parameterField[parameter.in]] as Node;
        group.type = "object";
        group.properties = { ...(group.properties as Node | undefined), [name]: rebaseRefs(parameter.schema ?? {}) };
        if (parameter.required) group.required = [...((group.required as string[] | undefined) ?? []), name];
        if (parameter.in === "query") query.push(name);
      }
      const requestBody = operation.requestBody as
        { required?: boolean; content?: Record<string, { schema?: Node }> } | undefined;
      shapes.push({
        id: operation.operationId as string,
        parameters: { type: "object", required: ["query", "headers", "params"], properties: groups },
        body: requestBody?.content ? (rebaseRefs(requestBody.content["application/json"]?.schema ?? {}) as Node) : null,
        bodyRequired: requestBody?.required === true,
        query,
      });
    }
  }
  return shapes.sort((a, b) => a.id.localeCompare(b.id));
}

/** Standalone ESM code, without its "use strict" (an ES module is strict). */
const asModule = (code: string) => code.replace(/^"use strict";/, "");

/** The module text of one document's request validators. */
export function emitValidators(document: Node, source: string): string {
  const shapes = operationShapes(document);
  const coercing = makeAjv(true, document.components);
  const plain = makeAjv(false, document.components);
  const parameterIds: Record<string, string> = {};
  const bodyIds: Record<string, string> = {};
  for (const shape of shapes) {
    parameterIds[`${shape.id}Parameters`] = `${shape.id}Parameters`;
    coercing.addSchema(shape.parameters, `${shape.id}Parameters`);
    if (shape.body) {
      bodyIds[`${shape.id}Body`] = `${shape.id}Body`;
      plain.addSchema(shape.body, `${shape.id}Body`);
    }
  }
  // Two Ajv instances, two scopes: each module is wrapped in its own block so their names cannot meet.
  const parameters = asModule(standaloneCode.default(coercing, parameterIds));
  const bodies = asModule(standaloneCode.default(plain, bodyIds));
  const scoped = (code: string) => code.replace(/export const (\w+) = (\w+);/g, "exported.$1 = $2;");
  const table = shapes
    .map(
      (s) =>
        `  ${s.id}: { parameters: parameters.${s.id}Parameters, body: ${s.body ? `bodies.${s.id}Body` : "null"}, ` +
        `bodyRequired: ${s.bodyRequired}, query: ${JSON.stringify(s.query)} },`,
    )
    .join("\n");
  return `// @ts-nocheck
// Generated by scripts/generate/emit-validators.ts from ${source} (Ajv standalone code). Do not
// edit: change spec/ and run \`npm run generate\`.
/* eslint-disable */
import type { ValidateFunction } from "ajv";
import { createRequire } from "node:module";

// Ajv's run-time helpers (\`ucs2length\`, \`equal\`) and ajv-formats' formats, by their CommonJS entries.
const require = createRequire(import.meta.url);
const { fullFormats } = require("ajv-formats/dist/formats");

/** ajv-formats' full formats, and \`int64\` as a safe integer (ajv-formats takes any integral number). */
const formats = { ...fullFormats, int64: { type: "number", validate: (n) => Number.isSafeInteger(n) } };

/** The validators of one operation. */
export interface OperationValidators {
  /** Over \`{ query, headers, params }\`: coerces the URL's text to each parameter's type, fills defaults. */
  readonly parameters: ValidateFunction;
  /** Over the JSON body (no coercion); null when the operation takes none. */
  readonly body: ValidateFunction | null;
  readonly bodyRequired: boolean;
  /** The query parameters the operation declares. */
  readonly query: readonly string[];
}

const parameters = {};
{
  const exported = parameters;
${scoped(parameters)}
}

const bodies = {};
{
  const exported = bodies;
${scoped(bodies)}
}

/** Every operation's validators, by operationId. */
export const requestValidators: Record<string, OperationValidators> = {
${table}
};
`;
}
