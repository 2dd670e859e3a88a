import { randomBytes } from "node:crypto";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` random base62 characters from a CSPRNG (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

export type IdPrefix = "txn" | "cus" | "plk" | "wdr" | "trf" | "evt" | "acc" | "key" | "we" | "dsp" | "led" | "del";

/** A new public id: `txn_` and 20 base62 characters. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(20)}`;
