// How the server writes an amount of money (integer cents) for a person to read: in messages,
// e-mails and the checkout's pages (`formatBRL`), and in the CSV files for a pt-BR spreadsheet
// (`spreadsheetReais`). The dashboard app has its own, `dashboard/src/lib/format.ts`.

/** Cents as their sign, whole reais and the two digits of centavos. */
function reaisParts(cents: number): { sign: string; whole: number; centavos: string } {
  const abs = Math.abs(cents);
  return { sign: cents < 0 ? "-" : "", whole: Math.trunc(abs / 100), centavos: String(abs % 100).padStart(2, "0") };
}

/** "R$ 1.234,56" */
export function formatBRL(cents: number): string {
  const { sign, whole, centavos } = reaisParts(cents);
  return `${sign}R$ ${whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ".")},${centavos}`;
}

/** Cents as a pt-BR spreadsheet reads an amount in reais: `12990` → `129,90`, no thousands separator. */
export function spreadsheetReais(cents: number): string {
  const { sign, whole, centavos } = reaisParts(cents);
  return `${sign}${whole},${centavos}`;
}
