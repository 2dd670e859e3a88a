/**
 * BR Codes of Pix Automático (recurrences), as the Central Bank's BR Code manual defines them:
 * the recurrence travels in the EMV template 80 (an unreserved template), with the GUI
 * `br.gov.bcb.pix` in sub-field 00 and the location of the recurrence's payload (without
 * `https://`) in sub-field 25, before the CRC (field 63).
 *
 * - Journey 2 (the QR code authorises the recurrence alone): payload format, a Pix account template
 *   (26) holding only the GUI, category 0000, currency 986, country BR, merchant name and city, no
 *   amount, field 62 with txid `***`, then 80.
 * - Journey 3 (an immediate charge whose payment authorises it): the charge's own BR Code, its CRC
 *   removed, then 80, then a new CRC.
 */
import { brCodeMerchantCity, brCodeMerchantName, crc16Ccitt, emvField as field, parseBrCode } from "./brcode.js";
import { LOCATION_MAX_LENGTH } from "./template-80.js";

const PIX_GUI = "br.gov.bcb.pix";

/** Template 80: the GUI and the recurrence's location. */
function recurrenceTemplate(location: string): string {
  if (location.length === 0 || location.length > LOCATION_MAX_LENGTH || !/^[\x21-\x7E]+$/.test(location)) {
    throw new RangeError(`recurrence location must be 1 to ${LOCATION_MAX_LENGTH} printable ASCII characters`);
  }
  if (/^https?:\/\//i.test(location)) throw new RangeError("recurrence location is written without its scheme");
  return field("80", field("00", PIX_GUI) + field("25", location));
}

const withCrc = (body: string): string => {
  const text = `${body}6304`;
  return text + crc16Ccitt(text);
};

/** The BR Code of a journey 2 recurrence: the payer's bank reads the recurrence at `location`. */
export function buildRecurrenceBrCode(input: { merchantName: string; merchantCity: string; location: string }): string {
  const name = brCodeMerchantName(input.merchantName);
  const city = brCodeMerchantCity(input.merchantCity);
  if (name === "" || city === "") throw new RangeError("merchant name and city must keep a printable character");
  const code = withCrc(
    "000201" +
      field("26", field("00", PIX_GUI)) +
      "52040000" +
      "5303986" +
      "5802BR" +
      field("59", name) +
      field("60", city) +
      field("62", field("05", "***")) +
      recurrenceTemplate(input.location),
  );
  checkRecurrenceCode(code, input.location);
  return code;
}

/** A charge's BR Code carrying a recurrence too (journey 3): paying it authorises the recurrence. */
export function withRecurrence(chargeCode: string, location: string): string {
  if (!/6304[0-9A-F]{4}$/.test(chargeCode)) throw new RangeError("a charge's BR Code ends with its CRC field");
  const code = withCrc(chargeCode.slice(0, -8) + recurrenceTemplate(location));
  checkRecurrenceCode(code, location);
  return code;
}

/** Reads the code back (its CRC, its Pix template) and its field 80, and refuses anything but what was built. */
function checkRecurrenceCode(code: string, location: string): void {
  const parsed = parseBrCode(code);
  if (!parsed.crcValid || recurrenceLocation(code) !== location) {
    throw new Error(`a recurrence BR Code did not read back as built: ${code}`);
  }
}

/** The location in field 80 of a BR Code (GUI `br.gov.bcb.pix`), or null when it carries none. */
export function recurrenceLocation(code: string): string | null {
  const top = fields(code);
  const template = top.get("80");
  if (template === undefined) return null;
  const inner = fields(template);
  if (inner.get("00")?.toLowerCase() !== PIX_GUI) return null;
  return inner.get("25") ?? null;
}

function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (let at = 0; at < text.length;) {
    const id = text.slice(at, at + 2);
    const length = Number(text.slice(at + 2, at + 4));
    if (!/^\d{2}$/.test(id) || !Number.isInteger(length) || at + 4 + length > text.length) {
      throw new RangeError(`malformed EMV field at position ${at}`);
    }
    out.set(id, text.slice(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return out;
}
