import type { DomainDeps } from "../deps.js";
import { chargeIdOfTxid, followAtBank } from "../payments/index.js";

// The bank's callbacks about Pix Automático (issue 36 §2): `{webhookUrl}/rec` names recurrences by
// the bank's id (`idRec`), `{webhookUrl}/cobr` cycle charges by their txid. Hints only, as for
// `/pix`: each one of ours is read from the bank (`GET /rec/{idRec}`, `GET /cobr/{txid}`) before
// anything moves (payments/recurrences/at-bank.ts); an id that names nothing of ours is ignored, so
// a forged callback costs one lookup in the store and no call to the bank.

export function bankRecurrenceUseCases(deps: DomainDeps) {
  return {
    /** A callback on `/rec` named these recurrences (the bank's `idRec`). */
    async confirmRecurrences(recIds: readonly string[]): Promise<void> {
      const subjects = [];
      for (const recId of new Set(recIds)) {
        const r = await deps.store.read.recurrences.getByBankRecId(recId);
        if (r?.livemode) subjects.push({ id: r.id, scope: r });
        else deps.logger.warn({ recId }, "bank: callback about a recurrence that is not ours ignored");
      }
      await followAtBank(deps, subjects);
    },

    /** A callback on `/cobr` named these cycle charges (their txid). */
    async confirmCycleCharges(txids: readonly string[]): Promise<void> {
      const subjects = [];
      for (const txid of new Set(txids)) {
        const id = chargeIdOfTxid(txid);
        const charge = id === null ? null : await deps.store.read.transactions.getById(id);
        if (charge?.livemode && charge.cycle) subjects.push({ id: charge.id, scope: charge });
        else deps.logger.warn({ txid }, "bank: callback about a cycle charge that is not ours ignored");
      }
      await followAtBank(deps, subjects);
    },
  };
}
