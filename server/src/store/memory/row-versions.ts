/** A number for each row object seen, in the order first seen: the row's version, as `KeyWithAccount.version` names it. */
export class RowVersions {
  private readonly numbers = new WeakMap<object, number>();
  private next = 1;
  of(row: object): number {
    let n = this.numbers.get(row);
    if (n === undefined) this.numbers.set(row, (n = this.next++));
    return n;
  }
}
