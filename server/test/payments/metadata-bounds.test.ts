import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { chargeBody, expectStatus, publicApi } from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// The contract said less than the server: a metadata value had no bound, so the Prism mock
// accepted a 100 KB value (201) that the server refuses (413), issue 24 §3. A string value now
// carries its bound in the schema (8185 characters: 8 KiB less `{"":""}`), and the document says
// the 64 KiB body limit in words.

interface Document {
  info: { description: string };
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, object> };
}
const publicDocument = readOpenApiDocument<Document>("generated/openapi.yaml");
const adminDocument = readOpenApiDocument<Document>("generated/admin-openapi.yaml");

describe("the Metadata schema", () => {
  const validate = new Ajv({ strict: false }).compile(publicDocument.components.schemas.Metadata as object);

  test.each([
    { name: "a 100 KB string value", metadata: { note: "x".repeat(100_000) }, valid: false },
    { name: "a string value of 8186 characters", metadata: { note: "x".repeat(8186) }, valid: false },
    { name: "a string value of 8185 characters", metadata: { note: "x".repeat(8185) }, valid: true },
    {
      name: "numbers, booleans, null and nested values",
      metadata: { n: 1, b: true, z: null, o: { a: [1] } },
      valid: true,
    },
  ])("when it checks $name, then valid is $valid", ({ metadata, valid }) => {
    expect(validate(metadata)).toBe(valid);
  });
});

describe("the documents' text", () => {
  test.each([
    { name: "public", document: publicDocument },
    { name: "operator", document: adminDocument },
  ])("when the $name document is read, then its description and every 413 state the 64 KiB limit", ({ document }) => {
    expect(document.info.description).toContain("at most 64 KiB (65 536 bytes)");
    const tooLarge = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .map((operation) => operation.responses?.["413"])
      .filter(Boolean);
    expect(tooLarge.length).toBeGreaterThan(5);
    for (const response of tooLarge) expect(response.description).toContain("64 KiB, 65 536 bytes");
  });
});

for (const store of eachStore("metadata_bounds")) {
  store.describe(`metadata bounds on the ${store.name} store`, () => {
    const server = serverOn(store);
    const charge = async (metadata: Record<string, unknown>) => {
      const { testKey } = await server.newAccount();
      return publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/charges/pix", {
        body: chargeBody({ metadata }),
      });
    };

    test("when a metadata value is 100 KB, then 413 PAYLOAD_TOO_LARGE, as the document says", async () => {
      const res = await charge({ note: "x".repeat(100_000) });
      expectStatus(res, 413);
      expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
    });

    test("when a string value passes 8185 characters, then 400 VALIDATION_ERROR names that value", async () => {
      const res = await charge({ note: "x".repeat(8186) });
      expectStatus(res, 400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.errors).toEqual([{ path: "metadata.note", message: "deve ter no máximo 8185 caracteres" }]);
    });

    test("when a string value of 8185 characters fills the 8 KiB exactly, then it is stored and returned unchanged", async () => {
      const res = await charge({ "": "x".repeat(8185) });
      expectStatus(res, 201);
      expect(res.body.metadata?.[""]).toHaveLength(8185);
    });

    test("when a string value of 8185 characters has a key, then the object passes 8 KiB: 400 on metadata", async () => {
      const res = await charge({ k: "x".repeat(8185) });
      expectStatus(res, 400);
      expect(res.body.errors).toEqual([{ path: "metadata", message: "deve ter no máximo 8 KiB em JSON" }]);
    });
  });
}
