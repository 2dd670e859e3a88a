/** Polls `url` until it answers any HTTP status, or fails after `timeoutMs`. Never sleeps blindly. */
export async function waitForHttp(
  url: string,
  timeoutMs = 30_000,
  isAlive: () => boolean = () => true,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`the process serving ${url} exited before it was ready`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}
