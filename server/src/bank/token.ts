/**
 * The OAuth2 access token, cached until shortly before it expires and renewed once for every
 * concurrent caller (single flight): while one renewal is under way, every caller waits on it.
 * A call the bank answers 401 drops the token it used (`invalidate(token)`): only that token, so
 * twenty calls refused with one stale token cause one renewal, and a late refusal never drops the
 * token that already replaced it.
 */

export interface IssuedToken {
  accessToken: string;
  /** `expires_in`, seconds from issue. */
  expiresInSeconds: number;
}

export interface TokenCacheOptions {
  /** Asks the token endpoint for a new token. */
  issue: () => Promise<IssuedToken>;
  /** Milliseconds since the epoch. */
  now?: () => number;
  /** Renew this long before the stated expiry (default 60 s, at most half the token's life). */
  marginMs?: number;
}

interface Cached {
  accessToken: string;
  /** When it stops being handed out (expiry less the margin). */
  renewAt: number;
  expiresAt: number;
}

export class TokenCache {
  private cached: Cached | null = null;
  private renewal: Promise<Cached> | null = null;
  private readonly now: () => number;
  private readonly marginMs: number;

  constructor(private readonly options: TokenCacheOptions) {
    this.now = options.now ?? Date.now;
    this.marginMs = options.marginMs ?? 60_000;
  }

  /** A token valid for a while yet: the cached one, or the one being renewed for everybody. */
  async get(): Promise<string> {
    const cached = this.cached;
    if (cached && this.now() < cached.renewAt) return cached.accessToken;
    return (await this.renew()).accessToken;
  }

  /** The bank refused `token` (401): drop it, unless it has already been replaced. */
  invalidate(token: string): void {
    if (this.cached?.accessToken === token) this.cached = null;
  }

  /** When the cached token expires (ms since the epoch), for the connection's health. */
  expiresAt(): number | null {
    return this.cached?.expiresAt ?? null;
  }

  private renew(): Promise<Cached> {
    this.renewal ??= this.options
      .issue()
      .then((issued) => {
        const issuedAt = this.now();
        const lifeMs = Math.max(0, issued.expiresInSeconds * 1000);
        const margin = Math.min(this.marginMs, lifeMs / 2);
        this.cached = {
          accessToken: issued.accessToken,
          renewAt: issuedAt + lifeMs - margin,
          expiresAt: issuedAt + lifeMs,
        };
        return this.cached;
      })
      .finally(() => {
        this.renewal = null;
      });
    return this.renewal;
  }
}
