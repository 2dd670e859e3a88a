import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, test } from "vitest";
import { callbackValidators } from "../../../generated/bank/callback-validators.js";
import { localSchemaRefs, readOpenApiDocument } from "../../src/http/kit/openapi-document.js";

// The webhook listener's checks of the bank's callbacks are generated from the overlaid API Pix
// document (scripts/generate/emit-callback-validators.ts), without the schemas' annotations and
// the schemas no callback reaches. Here they are held to the checks the listener compiled from the
// whole document at its start before: the same verdict and the same first error for valid bodies
// and for every mutation of each of their fields.

type Body = { content: { "application/json": { schema: unknown } } };
const doc = readOpenApiDocument("generated/bank/pix-api.yaml") as {
  components: { schemas: unknown; requestBodies: Record<string, Body> };
};
const $defs = localSchemaRefs(doc.components.schemas);
const bodyOf = (name: string) =>
  localSchemaRefs(doc.components.requestBodies[name]!.content["application/json"].schema);
const ajv = new Ajv({ strict: false, allErrors: false });
addFormats.default(ajv, { mode: "full" });
// Efí's notice of a sent Pix, from our document of its payouts (spec/bank/efi-payouts).
const efiDoc = readOpenApiDocument("generated/bank/efi-payouts.yaml") as { components: { schemas: unknown } };
const efiDefs = localSchemaRefs(efiDoc.components.schemas);
const fromDocument: Record<keyof typeof callbackValidators, ValidateFunction> = {
  object: ajv.compile({ $defs, allOf: [{ type: "object" }, bodyOf("WebhookPixBody")] }),
  array: ajv.compile({ $defs, type: "array", items: { $ref: "#/$defs/Pix" } }),
  recs: ajv.compile({ $defs, allOf: [{ type: "object", required: ["recs"] }, bodyOf("WebhookRecBody")] }),
  cobsr: ajv.compile({ $defs, allOf: [{ type: "object", required: ["cobsr"] }, bodyOf("WebhookCobRBody")] }),
  pix: ajv.compile({ $defs, $ref: "#/$defs/Pix" }),
  efiSent: ajv.compile({ $defs: efiDefs, $ref: "#/$defs/PixEnviadoNotificado" }),
};

const at = "2026-11-30T12:00:00.000Z";
const pix = {
  endToEndId: "E1234567820261130120000000000001",
  txid: "svctxn0123456789abcdefghijkl",
  valor: "10.50",
  horario: at,
  infoPagador: "pedido 42",
  devolucoes: [
    {
      id: "D1",
      rtrId: "D12345678202611301200abcdefghijk",
      valor: "1.00",
      horario: { solicitacao: at, liquidacao: at },
      status: "DEVOLVIDO",
    },
  ],
};
const rec = {
  idRec: "RR1234567820261130abcdefghijk",
  status: "CANCELADA",
  atualizacao: [
    { status: "CRIADA", data: at },
    { status: "CANCELADA", data: at },
  ],
  encerramento: { cancelamento: { solicitante: "USUARIO_PAGADOR", codigo: "SLDB", descricao: "Cancelada" } },
};
const cobr = {
  idRec: rec.idRec,
  txid: "svctxn0123456789abcdefghijkl",
  status: "CONCLUIDA",
  atualizacao: [
    { status: "CRIADA", data: at },
    { status: "CONCLUIDA", data: at },
  ],
  tentativas: [],
};
/** Efí's example of a Pix it could not send (its webhooks page), with our id. */
const efiSent = {
  endToEndId: "E090893562021030PIf25a7868",
  chave: "2c3c7441-b91e-4982-3c25-6105581e18ae",
  tipo: "SOLICITACAO",
  status: "NAO_REALIZADO",
  valor: "0.01",
  horario: null,
  infoPagador: "0123456789",
  gnExtras: {
    idEnvio: "trf0123456789abcdefghijK",
    erro: { codigo: "AC03", origem: "PSP do usuário recebedor", motivo: "Conta inexistente" },
  },
};
const samples: [keyof typeof callbackValidators, unknown][] = [
  ["object", { pix: [pix, { ...pix, devolucoes: undefined }] }],
  ["pix", pix],
  ["efiSent", efiSent],
  ["array", [pix]],
  ["recs", { recs: [rec] }],
  ["cobsr", { cobsr: [cobr] }],
];

/** The body with the value at `path` replaced (undefined: removed). */
function changed(body: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(body) ? [...body] : { ...(body as object) }) as Record<string | number, unknown>;
  if (rest.length === 0 && value === undefined) delete copy[head];
  else copy[head] = changed(copy[head], rest, value);
  return copy;
}

/** Every path of the body, containers included. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const here = prefix.length > 0 ? [prefix] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => paths(v, [...prefix, i]))];
  if (value && typeof value === "object") {
    return [...here, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  }
  return here;
}

const mutations: unknown[] = [undefined, null, 7, -1.5, "", "x".repeat(500), "texto", [], {}, true];
const verdict = (check: ValidateFunction, body: unknown) => {
  const ok = check(body);
  const first = check.errors?.[0];
  return { ok, first: first && { instancePath: first.instancePath, keyword: first.keyword, params: first.params } };
};

describe("the bank callbacks' generated checks", () => {
  for (const [kind, body] of samples) {
    test(`when a callback body (${kind}) is well formed or any field of it is changed, then the generated check agrees with the document's`, () => {
      expect(callbackValidators[kind](JSON.parse(JSON.stringify(body)))).toBe(true);
      const bodies = paths(body).flatMap((path) => mutations.map((value) => changed(body, path, value)));
      let refused = 0;
      for (const mutated of bodies) {
        const json = JSON.parse(JSON.stringify(mutated)) as unknown;
        const generated = verdict(callbackValidators[kind], json);
        expect(generated, JSON.stringify(json)).toEqual(verdict(fromDocument[kind], json));
        if (!generated.ok) refused++;
      }
      // Most changes break the body (a check that refused nothing would agree trivially).
      expect(refused).toBeGreaterThan(bodies.length / 2);
    });
  }
});
