/** Names and value descriptions for definition errors (shared by the modules that check a definition). */

/** Names of tools and agents: what model APIs accept as tool names. */
export const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Fields = Record<string, unknown>;

/** A short description of a value, for "got …" in error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (isZodSchema(value)) return `a zod ${value._zod.def.type} schema`;
  if (typeof value === 'object') {
    const kind = (value as Fields).kind;
    const name = (value as Fields).name;
    if ((kind === 'tool' || kind === 'agent') && typeof name === 'string')
      return `${kind === 'tool' ? 'a tool' : 'an agent'} named "${name}"`;
    return 'a plain object';
  }
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `a ${typeof value}`;
}

/** True when `value` looks like a zod schema. */
export function isZodSchema(value: unknown): value is { _zod: { def: { type: string } } } {
  const def = (value as { _zod?: { def?: { type?: unknown } } } | null)?._zod?.def;
  return typeof value === 'object' && value !== null && typeof def?.type === 'string';
}
