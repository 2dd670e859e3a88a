// A step of `npm run generate` (after bank-documents): the checks of the bank's callbacks to the
// webhook listener (server/src/bank/listener.ts), as Ajv standalone code from the overlaid API Pix
// document, so no schema is read or compiled when a server starts. Compiling them at the
// listener's start had been about a tenth of a production server process's CPU in the bank fault
// tests (docs/decisions/0049-request-validation-owned-and-generated.md: the request validators
// are generated the same way).
import { Ajv, _ } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";
import { localSchemaRefs } from "../../server/src/http/kit/openapi-document.js";

type Node = Record<string, unknown>;
type Body = { content: { "application/json": { schema: Node } } };

/** Keywords whose value is text for people, never a rule (when they hold text, not a schema). */
const annotations = new Set(["title", "description"]);
/** Keywords whose value is never a rule, whatever it holds (sample data, a link to docs). */
const samples = new Set(["example", "examples", "externalDocs"]);
/** Keywords whose value maps names to schemas: its keys are never keywords. */
const nameMaps = new Set(["properties", "patternProperties", "$defs"]);

/**
 * The schema without its annotations, at every depth (`names`: `value` maps names to schemas, as
 * the document's `schemas` do, so a schema or property named like an annotation is kept). The
 * same reading of annotations as the breaking-change check's (scripts/breaking/structure.ts).
 */
function withoutAnnotations(value: unknown, names = false): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutAnnotations(v));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => names || !(samples.has(k) || (annotations.has(k) && typeof v === "string")))
      .map(([k, v]) => [k, withoutAnnotations(v, !names && nameMaps.has(k))]),
  );
}

/** The names of the `$defs` a schema reaches, through each other too. */
function reachedDefs(start: unknown, defs: Node): Set<string> {
  const reached = new Set<string>();
  const visit = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== "object") return;
    for (const [k, v] of Object.entries(value)) {
      const name = k === "$ref" && typeof v === "string" ? /^#\/\$defs\/(.+)$/.exec(v)?.[1] : undefined;
      if (name !== undefined && !reached.has(name)) {
        reached.add(name);
        visit(defs[name]);
      } else visit(v);
    }
  };
  visit(start);
  return reached;
}

/**
 * The module text of the listener's callback checks: four from the overlaid API Pix document, and
 * Efí's notice of a sent Pix from our document of its payouts (spec/bank/efi-payouts).
 */
export function emitCallbackValidators(document: Node, efiPayouts: Node): string {
  const { schemas, requestBodies } = document.components as {
    schemas: Node;
    requestBodies: { WebhookPixBody: Body; WebhookRecBody: Body; WebhookCobRBody: Body };
  };
  const allDefs = withoutAnnotations(localSchemaRefs(schemas), true) as Node;
  const bodySchema = (body: Body) => withoutAnnotations(localSchemaRefs(body.content["application/json"].schema));
  const bodies = [requestBodies.WebhookPixBody, requestBodies.WebhookRecBody, requestBodies.WebhookCobRBody];
  // Only the schemas the callbacks reach, without their annotations: each is written out in the
  // module as a constant (the generated code reads its enums from it).
  const reached = reachedDefs([{ $ref: "#/$defs/Pix" }, ...bodies.map(bodySchema)], allDefs);
  const $defs = Object.fromEntries(Object.entries(allDefs).filter(([name]) => reached.has(name)));
  // The first error only (`allErrors: false`): the listener logs why a body was refused, and
  // answers 400 either way.
  const ajv = new Ajv({
    strict: false,
    allErrors: false,
    code: { source: true, esm: true, lines: false, optimize: true },
  });
  addFormats.default(ajv, { mode: "full" });
  // The formats come from the module's `formats` (ajv-formats' full ones), declared in its prelude.
  ajv.opts.code.formats = _`formats`;
  // The document's body schema names no type; the callback is an object all the same.
  ajv.addSchema({ $defs, allOf: [{ type: "object" }, bodySchema(requestBodies.WebhookPixBody)] }, "object");
  // A bare array of the standard's Pix (dialect "array").
  ajv.addSchema({ $defs, type: "array", items: { $ref: "#/$defs/Pix" } }, "array");
  ajv.addSchema(
    { $defs, allOf: [{ type: "object", required: ["recs"] }, bodySchema(requestBodies.WebhookRecBody)] },
    "recs",
  );
  ajv.addSchema(
    { $defs, allOf: [{ type: "object", required: ["cobsr"] }, bodySchema(requestBodies.WebhookCobRBody)] },
    "cobsr",
  );
  // Efí: one entry of `pix` naming a transfer we sent (`gnExtras.idEnvio`), from its own document.
  const efiSchemas = withoutAnnotations(
    localSchemaRefs((efiPayouts.components as { schemas: Node }).schemas),
    true,
  ) as Node;
  ajv.addSchema({ $defs: efiSchemas, $ref: "#/$defs/PixEnviadoNotificado" }, "efiSent");
  // One of the standard's Pix (an entry of Efí's `pix` that names no transfer of ours).
  ajv.addSchema({ $defs, $ref: "#/$defs/Pix" }, "pix");
  const code = standaloneCode
    .default(ajv, { object: "object", array: "array", recs: "recs", cobsr: "cobsr", efiSent: "efiSent", pix: "pix" })
    .replace(/^"use strict";/, "")
    .replace(/export const (\w+) = (\w+);/g, "exported.$1 = $2;");
  return `// @ts-nocheck
// Generated by scripts/generate/emit-callback-validators.ts from bank/pix-api.yaml and
// bank/efi-payouts.yaml (Ajv standalone code). Do not edit: change spec/bank/pix-api/overlay.yaml or
// spec/bank/efi-payouts/openapi.yaml and run \`npm run generate\`.
/* eslint-disable */
import type { ValidateFunction } from "ajv";
import { createRequire } from "node:module";
import type { components } from "./pix-api.js";
import type { components as EfiPayouts } from "./efi-payouts.js";

// Ajv's run-time helpers and ajv-formats' formats, by their CommonJS entries.
const require = createRequire(import.meta.url);
const { fullFormats: formats } = require("ajv-formats/dist/formats");

type Bodies = components["requestBodies"];

/** The checks of a callback's body, by where it arrives and the bank's dialect. */
export interface CallbackValidators {
  /** The standard's body on \`/pix\`, \`{ pix: [...] }\`. */
  readonly object: ValidateFunction<Bodies["WebhookPixBody"]["content"]["application/json"]>;
  /** A bare array of the standard's Pix on \`/pix\` (dialect "array"). */
  readonly array: ValidateFunction<components["schemas"]["Pix"][]>;
  /** \`{ recs: [...] }\` on \`/rec\` (every dialect). */
  readonly recs: ValidateFunction<Bodies["WebhookRecBody"]["content"]["application/json"]>;
  /** \`{ cobsr: [...] }\` on \`/cobr\` (every dialect). */
  readonly cobsr: ValidateFunction<Bodies["WebhookCobRBody"]["content"]["application/json"]>;
  /** One of the standard's Pix (an entry of Efí's \`pix\` that names no transfer of ours). */
  readonly pix: ValidateFunction<components["schemas"]["Pix"]>;
  /** Efí: an entry of \`pix\` telling a sent Pix's outcome (\`gnExtras.idEnvio\`: ours). */
  readonly efiSent: ValidateFunction<EfiPayouts["schemas"]["PixEnviadoNotificado"]>;
}

const exported = {};
{
${code}
}

export const callbackValidators: CallbackValidators = exported;
`;
}
