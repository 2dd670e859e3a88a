/** The instant `seconds` after `iso`, as ISO 8601 UTC. */
export const addSeconds = (iso: string, seconds: number): string =>
  new Date(new Date(iso).getTime() + seconds * 1000).toISOString();
