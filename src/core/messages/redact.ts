/**
 * Redaction of secrets from text and JSON-like values (pure): every known secret value, in the forms it
 * travels in (as is, URL-encoded, JSON-escaped, base64), and common credential shapes (`sk-…` keys,
 * `Bearer …`/`Basic …` tokens, `api_key=…`/`"x-api-key": "…"`/`password: …` pairs, passwords in URLs,
 * AWS access key ids) become {@link REDACTED}. The worker applies it to everything leaving an activity.
 */

/** What a redacted secret reads as. */
export const REDACTED = '[REDACTED]';

/** Shortest known secret redacted by value: shorter values would match ordinary words. */
export const MIN_SECRET_LENGTH = 8;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 of the UTF-8 bytes of `text` (no Node or DOM API needed). */
export function base64Of(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i] as number, bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out +=
      BASE64[(n >> 18) & 63]! +
      BASE64[(n >> 12) & 63]! +
      (b === undefined ? '=' : BASE64[(n >> 6) & 63]!) +
      (c === undefined ? '=' : BASE64[n & 63]!);
  }
  return out;
}

/**
 * The forms a secret travels in: as is, URL-encoded, JSON-escaped, base64 (with and without padding).
 * Forms shorter than {@link MIN_SECRET_LENGTH} are left out.
 */
export function secretForms(secret: string): string[] {
  const b64 = base64Of(secret);
  const forms = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), b64, b64.replace(/=+$/, '')];
  return [...new Set(forms)].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Common credential shapes, each with how it is replaced (names and prefixes kept, values gone). */
const SHAPES: readonly (readonly [RegExp, string])[] = [
  // Passwords in URLs: postgres://user:pass@host, redis://:pass@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):([^\s/@]+)@/gi, `$1:${REDACTED}@`],
  // Authorization values.
  [/\b(Bearer|Basic)(\s+)(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{8,}/gi, `$1$2${REDACTED}`],
  // name=value and "name": "value" pairs of credential names (also inside escaped JSON).
  [
    /\b((?:x-)?api[_-]?key|x-goog-api-key|(?:access|auth|refresh|session|id|api)[_-]?token|client[_-]?secret|secret[_-]?(?:access[_-]?)?key|secret|password|passwd)((?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)(?!\[REDACTED\]|Bearer\b|Basic\b)([^\s"'&,;}\\]{4,})/gi,
    `$1$2${REDACTED}`,
  ],
  // API keys with a well-known prefix: sk-…, sk-ant-…, sk-proj-….
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, REDACTED],
];

/**
 * Replaces secrets in text and values. Make one from the secrets a process holds; `shapes` also
 * replaces common credential shapes (for error text; ordinary content keeps them).
 *
 * @example
 * ```ts
 * const r = new Redactor(['hunter2-is-my-password']);
 * r.text('login failed for hunter2-is-my-password');  // 'login failed for [REDACTED]'
 * r.text('Authorization: Bearer abcdefgh12345', true); // 'Authorization: Bearer [REDACTED]'
 * ```
 */
export class Redactor {
  private readonly known: RegExp | undefined;

  /** @param secrets values to redact wherever they appear (blank and short ones are ignored). */
  constructor(secrets: Iterable<string> = []) {
    const forms = [...new Set([...secrets].flatMap((s) => (s.trim().length >= MIN_SECRET_LENGTH ? secretForms(s) : [])))];
    // Longest first, so a secret containing another is replaced whole.
    forms.sort((a, b) => b.length - a.length);
    this.known = forms.length ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** Whether the redactor knows no secret value (it may still replace shapes). */
  get empty(): boolean {
    return this.known === undefined;
  }

  /** `text` with every known secret replaced; with `shapes`, common credential shapes too. */
  text(text: string, shapes = false): string {
    let out = this.known ? text.replace(this.known, REDACTED) : text;
    if (shapes) for (const [re, by] of SHAPES) out = out.replace(re, by);
    return out;
  }

  /**
   * `value` with {@link text} applied to every string in it (object keys included), through arrays and
   * plain objects. Returns `value` itself when nothing changed, else a copy of the changed parts.
   */
  value<T>(value: T, shapes = false): T {
    if (this.empty && !shapes) return value;
    return this.walk(value, shapes, new Set()) as T;
  }

  private walk(v: unknown, shapes: boolean, seen: Set<object>): unknown {
    if (typeof v === 'string') return this.text(v, shapes);
    if (v === null || typeof v !== 'object' || seen.has(v)) return v;
    if (Array.isArray(v)) {
      seen.add(v);
      const out = v.map((x) => this.walk(x, shapes, seen));
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return v;
    seen.add(v);
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const key = this.text(k, shapes);
      const y = this.walk(x, shapes, seen);
      if (key !== k || y !== x) changed = true;
      out[key] = y;
    }
    return changed ? out : v;
  }
}
