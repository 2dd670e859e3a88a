import autocannon from "autocannon";

export interface LoadRequest {
  method?: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  /** A body per request (POST): called for every request so idempotency keys and such can vary. */
  body?: () => string;
  /**
   * Clients spread over many addresses, as behind a load balancer: every request carries the
   * next address of 198.18.0.0/15 (the range set aside for benchmarks, RFC 2544) in
   * `X-Forwarded-For`, for a server that trusts one proxy hop (`TRUST_PROXY=1`).
   */
  spreadClients?: boolean;
}

/** The n-th address of 198.18.0.0/15. */
const benchmarkAddress = (n: number) => `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;
let nextClient = 0;
/** An `X-Forwarded-For` naming the next client of 198.18.0.0/15 (the deployed path's rate limits count per client). */
export const spread = () => ({ "x-forwarded-for": benchmarkAddress((nextClient = (nextClient + 1) % 131_072)) });

export interface LoadOptions {
  connections: number;
  seconds: number;
  /** Runs per measurement; the median is reported. */
  runs: number;
}

export const defaultLoad: LoadOptions = { connections: 16, seconds: 3, runs: 3 };

/** The middle value (the upper one of an even count); NaN for none. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** One run of `request` on `baseUrl`, no warm-up: its requests per second (also a baseline run for `pairedRequestsPerSecond`). */
export async function oneRun(baseUrl: string, request: LoadRequest, options: LoadOptions) {
  const result = await autocannon({
    url: baseUrl + request.path,
    connections: options.connections,
    duration: options.seconds,
    method: request.method ?? "GET",
    headers: { ...(request.body ? { "content-type": "application/json" } : {}), ...request.headers },
    ...(request.body || request.spreadClients
      ? {
          requests: [
            {
              setupRequest: (req: autocannon.Request) => ({
                ...req,
                ...(request.body ? { body: request.body() } : {}),
                ...(request.spreadClients ? { headers: { ...req.headers, ...spread() } } : {}),
              }),
            },
          ],
        }
      : {}),
  });
  const ok = result["2xx"];
  const total = ok + result.non2xx;
  if (total === 0 || ok / total < 0.99) {
    throw new Error(`${request.method ?? "GET"} ${request.path}: only ${ok} of ${total} answers were 2xx`);
  }
  return result.requests.average;
}

/** Requests per second that `baseUrl` sustains for `request`: the median of several runs. */
export async function requestsPerSecond(
  baseUrl: string,
  request: LoadRequest,
  options: LoadOptions = defaultLoad,
): Promise<number> {
  await oneRun(baseUrl, request, { ...options, seconds: 1, runs: 1 }); // warm-up (JIT, pools)
  const runs: number[] = [];
  for (let i = 0; i < options.runs; i++) runs.push(await oneRun(baseUrl, request, options));
  return median(runs);
}

export interface Paired {
  /** Requests per second of the measured server: the median of its runs. */
  rps: number;
  /** Its ratio to the baseline: the median of the runs' ratios, each to the baseline run just before it. */
  ratio: number;
  /** The lowest and highest of those ratios: how much the machine moved during the measurement. */
  spread: [number, number];
}

/**
 * Requests per second of `request` on `baseUrl` as a ratio to a baseline, the two measured turn
 * about: baseline, server, baseline, server... A ratio of one run to a baseline run seconds before
 * it holds up when the machine's speed drifts over minutes, which a single baseline measured at
 * the start of the run does not (on these machines bare Express has read 5,859 req/s and about
 * 12,000 a minute later).
 */
export async function pairedRequestsPerSecond(
  baseline: () => Promise<number>,
  baseUrl: string,
  request: LoadRequest,
  options: LoadOptions = defaultLoad,
): Promise<Paired> {
  await oneRun(baseUrl, request, { ...options, seconds: 1, runs: 1 }); // warm-up (JIT, pools)
  const runs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const floor = await baseline();
    const rps = await oneRun(baseUrl, request, options);
    runs.push(rps);
    ratios.push(rps / floor);
  }
  return { rps: median(runs), ratio: median(ratios), spread: [Math.min(...ratios), Math.max(...ratios)] };
}

/** Sequential latency of `run`, in milliseconds: the median (p50) of `count` calls after warm-up. */
export async function medianLatency(count: number, run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, count); i++) await run();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return median(times);
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
