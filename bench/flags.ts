/** Command-line flag values of the benches. */

/**
 * The integer a flag holds.
 *
 * @throws Error naming the flag when `text` is not an integer of at least `min`.
 */
export function intFlag(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got ${JSON.stringify(text)})`);
  return n;
}
