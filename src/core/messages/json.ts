/** A JSON value, as stored in workflow history. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Size in bytes of a value once JSON-encoded (UTF-8), computed without Node APIs. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}

/** Size in bytes of a string encoded as UTF-8, computed without Node APIs. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: one code point of 4 bytes. A lone surrogate encodes as U+FFFD (3 bytes).
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The first `max` characters of `text`, with an ellipsis and the omitted count when cut. */
export function preview(text: string, max = 200): string {
  if (text.length <= max) return text;
  // Never cut a surrogate pair (an emoji) in half.
  const cut = max > 0 && (text.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return `${text.slice(0, cut)}… [${text.length - cut} more chars]`;
}
