import { expect, test } from "vitest";
import { wireRequests, type WireRequest } from "../fuzz/fuzzer.js";
import {
  describeDisagreements,
  differential,
  documentsUnderTest,
  oracleDocument,
} from "../support/request-differential.js";

// Our request check (validators generated from the documents, http/request-checks.ts) against
// express-openapi-validator, the independent oracle, on every operation of the three documents:
// the shared fuzz generator's requests (valid ones, boundary values, mutations, odd encodings,
// unknown parameters, malformed bodies) go to both, and the verdicts must be the same — admitted or
// refused, the status, and the set of field paths (not the messages). No store: the check decides
// on the request alone, before any handler reads a store, so a store could not change a verdict.
// A failure prints its seed; DIFFERENTIAL_SEED replays it and DIFFERENTIAL_REQUESTS runs longer.
// docs/decisions/0049-request-validation-owned-and-generated.md.

// One seed by default, so a run is the same run everywhere (CI included); explore others with
// DIFFERENTIAL_SEED. Seed 2105746074 sends an extra property named "" in a customer's address:
// our check names "address" (the object that may not hold it), the library "body", having lost
// the place of a property of that name; the comparison names the library's item where the body
// holds the name (support/request-differential.ts `oraclePaths`), and the test below holds it.
const seed = Number(process.env.DIFFERENTIAL_SEED ?? 761273097);
/** Requests per document: 3,000 a run by default, under a minute on the 2-core CI machine. */
const defaults = { public: 1200, dashboard: 1200, admin: 600 };

for (const document of documentsUnderTest) {
  const requests = Number(process.env.DIFFERENTIAL_REQUESTS ?? defaults[document.name]);
  test(`when ${requests} generated requests of the ${document.name} document (seed ${seed}) go to our check and to express-openapi-validator, then every verdict is the same`, async () => {
    const report = await differential(document, wireRequests(document.name, seed, requests));

    expect(report.disagreements, describeDisagreements(document.name, report)).toEqual([]);
    // The run reached both admissions and refusals by the check itself.
    expect(report.statuses["200"], JSON.stringify(report.statuses)).toBeGreaterThan(0);
    expect(report.statuses["400"], JSON.stringify(report.statuses)).toBeGreaterThan(0);
  }, 120_000);
}

const publicDocument = documentsUnderTest.find((d) => d.name === "public")!;

const charge = (description: string): WireRequest => ({
  operation: "createPixCharge",
  label: `description of ${description.length} characters`,
  method: "POST",
  path: "/api/v1/charges/pix",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    amountCents: 1000,
    description,
    customer: {
      name: "Maria",
      email: "m@example.com",
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
    },
  }),
});

test("when the oracle is given a document whose charge description allows 10 characters, then the comparison reports the requests it now refuses, and only those", async () => {
  const tampered = oracleDocument(publicDocument.file) as {
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const description = tampered.components.schemas.ChargeDescription;
  if (!description) throw new Error("ChargeDescription is in the document");
  description.maxLength = 10;

  const report = await differential(publicDocument, [charge("Pedido 1"), charge("Pedido de número 1234")], {
    oracle: tampered,
  });

  expect(report.disagreements).toHaveLength(1);
  expect(report.disagreements[0]).toMatchObject({
    request: { label: "description of 21 characters" },
    ours: { status: 200, paths: [] },
    oracle: { status: 400, paths: ["description"] },
  });
});

test('when a customer\'s address carries an extra property named "" (seed 2105746074), then our check names "address" and the comparison agrees', async () => {
  const customer = (address: Record<string, unknown>): WireRequest => ({
    operation: "upsertCustomer",
    label: `address ${JSON.stringify(address)}`,
    method: "POST",
    path: "/api/v1/customers",
    headers: { "content-type": "application/json", "idempotency-key": "ffffffe2-0003-1000-bfff-fff0d476b52b" },
    body: JSON.stringify({ name: "Maria", document: "02339232252", email: "l@loja.example.com.br", address }),
  });

  const report = await differential(publicDocument, [customer({ "": false }), customer({ city: "Recife", x: 1 })]);

  expect(report.disagreements, describeDisagreements("public", report)).toEqual([]);
  expect(report.agreements.map((a) => a.verdict)).toEqual([
    { status: 400, paths: ["address"] },
    { status: 400, paths: ["address.x"] },
  ]);
});
