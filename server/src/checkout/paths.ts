// Addresses of the hosted checkout, relative to this server (whatever `publicBaseUrl` says).

/** The payer's form of a link. */
export const checkoutPath = (linkId: string) => `/checkout/${linkId}`;
/** The page of a charge the link generated: the Pix to pay, then its receipt. */
export const chargePath = (linkId: string, transactionId: string) => `/checkout/${linkId}/t/${transactionId}`;
/** The hosted page of a charge with a due date: the amount due today, its breakdown and QR code. */
export const dueDateChargePath = (transactionId: string) => `/checkout/charges/${transactionId}`;
/** The hosted page of a recurrence (Pix Automático): its terms and QR code. */
export const recurrencePath = (recurrenceId: string) => `/checkout/recurrences/${recurrenceId}`;
