/**
 * `npm run mock`: the Prism mock of the public API on 127.0.0.1 (port `MOCK_PORT`, default 4010).
 * It validates requests against `generated/openapi.yaml` (auth, constraints, sealed bodies) and
 * answers with the spec's examples. `npm run mock -- dashboard` mocks the dashboard API
 * (`generated/dashboard-openapi.yaml`) instead, and `npm run mock -- admin` the operator API.
 */
import { startPrism } from "./prism.js";

const documents = {
  public: {
    file: "generated/openapi.yaml",
    title: "the Pix Charging Service",
    tryIt: "curl -H 'x-api-key: svc_test_anything' {base}/api/v1/balance",
  },
  dashboard: {
    file: "generated/dashboard-openapi.yaml",
    title: "the dashboard API",
    tryIt: "curl -b '__Host-pix_session=anything' {base}/dashboard/v1/session",
  },
  admin: {
    file: "generated/admin-openapi.yaml",
    title: "the operator API",
    tryIt: "curl -H 'authorization: Bearer anything' {base}/admin/v1/accounts",
  },
} as const;

const which = (process.argv[2] ?? "public") as keyof typeof documents;
const chosen = documents[which];
if (!chosen) {
  console.error(`documento desconhecido: ${which} (use ${Object.keys(documents).join(", ")})`);
  process.exit(1);
}
const port = Number(process.env.MOCK_PORT ?? 4010);
const prism = await startPrism({ port, document: chosen.file, inheritOutput: true });
console.log(`Prism mock of ${chosen.title} listening on ${prism.baseUrl}`);
console.log(`Try: ${chosen.tryIt.replace("{base}", prism.baseUrl)}`);
const stop = () => {
  prism.stop().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
