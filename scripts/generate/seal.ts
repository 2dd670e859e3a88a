// Step 2 of `npm run generate`: post-processing of the emitted OpenAPI text.

/**
 * The emitter seals objects as `additionalProperties: { not: {} }`. JSON Schema reads that exactly
 * like `additionalProperties: false`, but Prism's example generator does not: it invents
 * `property1`/`property2` members and the mock answers bodies the contract forbids. Writing the
 * plain `false` keeps the meaning and fixes the mock.
 */
/**
 * TypeSpec's `@server` takes no extensions; OWASP API9 asks every server to say its audience with
 * `x-internal`. The public API's servers are `false`, the operator API's `true`.
 */
export function markServerAudience(yamlText: string, internal: boolean): string {
  return yamlText.replace(/^servers:\n(?: {2}.*\n| {4}.*\n)+/m, (block) =>
    block.replace(/^( {2}- url: .*\n)/gm, `$1    x-internal: ${internal}\n`),
  );
}

export function sealAsFalse(yamlText: string): string {
  return yamlText.replace(/^(\s*)additionalProperties:\n\1 {2}not: \{\}\n/gm, "$1additionalProperties: false\n");
}
