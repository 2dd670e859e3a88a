import { ManualClock } from "../server/src/domain/clock.js";

/** A ManualClock that follows real time, so the bench measures the worker's real polling. */
export class SystemClockForBench extends ManualClock {
  constructor() {
    super(new Date());
  }
  override now(): Date {
    return new Date();
  }
}
