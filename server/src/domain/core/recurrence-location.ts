import { LOCATION_MAX_LENGTH } from "../../pix/template-80.js";
import type { DomainConfig } from "../deps.js";
import { newId } from "./ids.js";

// Where a recurrence's hosted page lives, and whether the service's address leaves room for it in
// BR Code field 80: a rule of the configuration as much as of recurrences, so it sits in the kernel
// (config.ts checks it without loading the payments feature).

/** Where a recurrence's hosted page lives. */
export const recurrenceUrl = (config: DomainConfig, id: string): string =>
  `${config.publicBaseUrl.replace(/\/+$/, "")}/checkout/recurrences/${id}`;

/** The location BR Code field 80 carries: the hosted page's address without its scheme. */
export const recurrenceLocation = (config: DomainConfig, id: string): string =>
  recurrenceUrl(config, id).replace(/^https?:\/\//i, "");

/**
 * Whether every recurrence of a service published at `publicBaseUrl` has a location that fits BR
 * Code field 80 (77 characters): the configuration refuses a base address that does not, so no
 * recurrence is ever created without its QR code.
 */
export const baseAddressFitsRecurrences = (publicBaseUrl: string): boolean =>
  recurrenceLocation({ publicBaseUrl } as DomainConfig, newId("rec")).length <= LOCATION_MAX_LENGTH;
