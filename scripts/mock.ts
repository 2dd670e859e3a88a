/**
 * `npm run mock`: the Prism mock of the public API on 127.0.0.1 (port `MOCK_PORT`, default 4010).
 * It validates requests against `generated/openapi.yaml` (auth, constraints, sealed bodies) and
 * answers with the spec's examples.
 */
import { startPrism } from "./prism.js";

const port = Number(process.env.MOCK_PORT ?? 4010);
const prism = await startPrism({ port, document: "generated/openapi.yaml", inheritOutput: true });
console.log(`Prism mock of the Pix Charging Service listening on ${prism.baseUrl}`);
console.log(`Try: curl -H 'x-api-key: svc_test_anything' ${prism.baseUrl}/api/v1/balance`);
const stop = () => {
  prism.stop().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
