/**
 * Runs `bytesPerStoredCharge` alone in this process and prints its result as JSON: the bench
 * starts it as a child (`node --expose-gc`), so the charges it keeps neither meet the shared-view
 * bound's earlier users nor stay in the heap of the process that generates the load.
 */
import { bytesPerStoredCharge } from "./memory-footprint.js";

const count = Number(process.argv[2] ?? 20_000);
process.stdout.write(JSON.stringify(await bytesPerStoredCharge(count)));
