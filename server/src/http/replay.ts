/**
 * A replayed answer to an idempotent request: the first answer's status and its body exactly as
 * it was sent (JSON text). The router sends these bytes untouched, with `Idempotent-Replayed: true`;
 * re-serialising the body could reorder its keys.
 */
export class StoredReply {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {}
}

/** The replay of a use case's outcome (`Outcome` of domain/idempotency.ts with `replayed: true`). */
export const storedReply = (outcome: { status: number; text: string }): StoredReply =>
  new StoredReply(outcome.status, outcome.text);

/** A use case's outcome as an answer: the first one with `status`, a replay as its stored bytes. */
export const answerOrReplay = <S extends number, B>(
  status: S,
  out: { replayed: false; body: B } | { replayed: true; status: number; text: string },
) => (out.replayed ? storedReply(out) : { status, body: out.body });

/** A generated handler contract where each handler may also answer a `StoredReply`. */
export type WithReplays<H> = {
  [K in keyof H]: H[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R | StoredReply> : H[K];
};

/** The header that marks a replay, as Stripe sends it. */
export const replayedHeader = "Idempotent-Replayed";
