/**
 * The dynamic BR Code a bank writes for a cob: the payload location in field 26 sub-field 25 (no
 * Pix key), `***` as the txid of field 62 (the standard: a dynamic code carries its txid in the
 * payload, not in the code), built with pix-utils and checked with the project's own reader
 * (server/src/pix/brcode.ts: its CRC, its name and city folding, its independent parser).
 */
import { createDynamicPix, hasError, parsePix } from "pix-utils";
import {
  brCodeMerchantCity,
  brCodeMerchantName,
  crc16Ccitt,
  parseBrCode,
  type ParsedBrCode,
} from "../../server/src/pix/brcode.js";

export function dynamicBrCode(input: { location: string; merchantName: string; merchantCity: string }): string {
  const merchantName = brCodeMerchantName(input.merchantName) || "RECEBEDOR";
  const merchantCity = brCodeMerchantCity(input.merchantCity) || "SAO PAULO";
  const pix = createDynamicPix({ merchantName, merchantCity, url: input.location });
  if (hasError(pix)) throw new Error(`pix-utils refused the dynamic code: ${pix.message}`);
  // The checksum is the project's (pix-utils 2.8.2 miscomputes some, see server/src/pix/brcode.ts).
  const body = pix.toBRCode().slice(0, -4);
  const code = body + crc16Ccitt(body);
  const check = parseBrCode(code);
  if (!check.crcValid || check.pixKey !== null || check.txid !== "***" || readLocation(code) !== input.location) {
    throw new Error(`dynamic BR Code does not read back: ${code}`);
  }
  return code;
}

/** What a payer's bank reads from a code: the project's parse plus the payload location, if any. */
export interface ReadCode extends ParsedBrCode {
  location: string | null;
}

/** Reads a BR Code (static or dynamic); throws `BrCodeParseError` when it is not one. */
export function readBrCode(code: string): ReadCode {
  const parsed = parseBrCode(code);
  return { ...parsed, location: readLocation(code) };
}

function readLocation(code: string): string | null {
  const pix = parsePix(code);
  if (hasError(pix)) return null;
  return pix.type === "DYNAMIC" ? pix.url : null;
}
