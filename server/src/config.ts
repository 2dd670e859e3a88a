import { defaultRateLimits, type RateLimits } from "./http/rate-limit.js";

export interface ServerConfig {
  port: number;
  host: string;
  publicBaseUrl: string;
  production: boolean;
  rateLimits: RateLimits | "off";
  trustProxy: boolean | number | string[];
  databaseUrl: string | undefined;
  logLevel: string;
}

/** Express `trust proxy` from `TRUST_PROXY`: unset/false = off, a number = hops, else subnets. */
export function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 3000);
  const host = env.HOST ?? "127.0.0.1";
  const production = env.NODE_ENV === "production";
  if (env.RATE_LIMITS === "off" && production) {
    throw new Error("RATE_LIMITS=off is for local test runs only and is refused with NODE_ENV=production");
  }
  return {
    port,
    host,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
    production,
    rateLimits: env.RATE_LIMITS === "off" ? "off" : defaultRateLimits,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: env.LOG_LEVEL ?? "info",
  };
}
