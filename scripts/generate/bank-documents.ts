// The banks' documents: each OpenAPI document under spec/bank/ (spec/bank/<name>/SOURCE.md says
// where it comes from) becomes generated/bank/<name>.yaml and its types generated/bank/<name>.d.ts.
// A vendored document keeps the Overlay of our corrections beside it (overlay.yaml); a document of
// our own (the banks' payout APIs, written from their documentation) needs none. The server calls
// the bank and the fake bank answers from these, so nothing of a bank's wire format is typed by hand.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type OpenAPIOverlayOptions, openapiOverlay } from "openapi-format";
import { parse, stringify } from "yaml";
import { emitCallbackValidators } from "./emit-callback-validators.js";
import { emitTypes } from "./emit-types.js";

/**
 * The documents, by folder under spec/bank/: the Central Bank's API Pix (vendored, with its
 * overlay) and our own documents of Efí's and Inter's payout APIs (issue 36).
 */
const bankDocuments = ["pix-api", "efi-payouts", "inter-payouts"] as const;

type OverlayResult = { data: unknown; resultData: { unusedActions: { target: string; description?: string }[] } };

/**
 * The document with its overlay applied, when it has one (spec/bank/<name>/overlay.yaml); an action
 * that matches nothing is an error.
 */
export async function overlaidBankDocument(root: string, name: string): Promise<Record<string, unknown>> {
  const folder = join(root, "spec", "bank", name);
  const base = parse(readFileSync(join(folder, "openapi.yaml"), "utf8")) as Record<string, unknown>;
  if (!hasOverlay(root, name)) return base;
  const overlaySet = parse(readFileSync(join(folder, "overlay.yaml"), "utf8")) as OpenAPIOverlayOptions["overlaySet"];
  const { data, resultData } = (await openapiOverlay(base, { overlaySet })) as OverlayResult;
  if (resultData.unusedActions.length > 0) {
    const list = resultData.unusedActions.map((a) => `  ${a.target} (${a.description ?? "no description"})`);
    throw new Error(`spec/bank/${name}/overlay.yaml: actions that match nothing:\n${list.join("\n")}`);
  }
  return data as Record<string, unknown>;
}

function hasOverlay(root: string, name: string): boolean {
  return existsSync(join(root, "spec", "bank", name, "overlay.yaml"));
}

/**
 * Writes generated/bank/<name>.yaml and .d.ts for every document, and the webhook listener's checks
 * of the bank's callbacks (generated/bank/callback-validators.ts: the API Pix's, and Efí's notice of
 * a sent Pix).
 */
export async function emitBankDocuments(root: string, outDir: string): Promise<void> {
  const bankOut = join(outDir, "bank");
  mkdirSync(bankOut, { recursive: true });
  const documents: Partial<Record<(typeof bankDocuments)[number], Record<string, unknown>>> = {};
  for (const name of bankDocuments) {
    const header = hasOverlay(root, name)
      ? `# Generated from spec/bank/${name}/openapi.yaml with spec/bank/${name}/overlay.yaml applied.\n` +
        `# Do not edit: change the overlay and run \`npm run generate\`.\n`
      : `# Generated from spec/bank/${name}/openapi.yaml.\n` +
        `# Do not edit: change that document and run \`npm run generate\`.\n`;
    const document = await overlaidBankDocument(root, name);
    writeFileSync(join(bankOut, `${name}.yaml`), header + stringify(document, { lineWidth: 0 }));
    writeFileSync(join(bankOut, `${name}.d.ts`), await emitTypes(document));
    documents[name] = document;
  }
  const { "pix-api": pixApi, "efi-payouts": efiPayouts } = documents;
  if (pixApi && efiPayouts)
    writeFileSync(join(bankOut, "callback-validators.ts"), emitCallbackValidators(pixApi, efiPayouts));
}
