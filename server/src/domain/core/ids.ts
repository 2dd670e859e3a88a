import { randomFillSync } from "node:crypto";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * CSPRNG bytes drawn 4 KiB at a time and handed out once each: one call into the CSPRNG per some
 * two hundred ids instead of one per id (the way uuid's generators pool theirs).
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt >= pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] ?? 0;
}

/** `length` random base62 characters from a CSPRNG (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += alphabet[byte % 62];
  }
  return out;
}

const base62 = (n: number, width: number): string => {
  let out = "";
  let rest = n;
  for (let i = 0; i < width; i++) {
    out = alphabet[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
};

let lastMs = 0;
let sequence = 0;

/**
 * 20 characters that sort in creation order: 8 of wall-clock milliseconds, 3 of a per-process
 * sequence within the millisecond, 9 random. Lists order by (createdAt, id), so items created in
 * the same instant keep their creation order and a cursor never skips or repeats them.
 */
function sortableId(): string {
  const ms = Math.max(Date.now(), lastMs);
  if (ms === lastMs) sequence++;
  else {
    lastMs = ms;
    sequence = 0;
  }
  if (sequence >= 62 ** 3) {
    lastMs = ms + 1;
    sequence = 0;
  }
  return `${base62(lastMs, 8)}${base62(sequence, 3)}${randomBase62(9)}`;
}

export type IdPrefix =
  | "txn"
  | "rlg"
  | "ntc"
  | "cus"
  | "plk"
  | "wdr"
  | "trf"
  | "evt"
  | "acc"
  | "key"
  | "we"
  | "dsp"
  | "led"
  | "del"
  | "rfd"
  | "usr"
  | "ses"
  | "rec"
  | "aud"
  | "inv"
  | "bch";

/** A new public id: `txn_` and 20 base62 characters, sortable by creation. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${sortableId()}`;
