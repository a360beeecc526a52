/** Byte counts and previews without Node APIs (core/json.ts), checked against Node's own encoder. */
import { describe, expect, it } from 'vitest';
import { jsonBytes, preview, utf8Bytes } from '../../src/core/messages/json';

const SAMPLES: Record<string, string> = {
  empty: '',
  ascii: 'hello, world! 0123456789 ~',
  accents: 'café naïve résumé Ærøskøbing',
  'two-byte boundaries': '\u007f\u0080\u07ff',
  cjk: '日本語のテキスト 中文 한국어',
  'three-byte boundaries': '\u0800\uffff\ue000',
  emoji: '😀',
  'emoji in text': 'a😀b🎉c',
  'zwj sequence': '👨‍👩‍👧‍👦',
  'astral extremes': '\u{10000}\u{10ffff}',
  mixed: 'Ünïcödé 日本 😀 end',
  'lone high surrogate': '\ud800',
  'lone high surrogate then text': '\ud83dé',
  'lone high surrogate at end': 'abc\ud83d',
  'lone low surrogate': '\udc00x',
  'reversed pair': '\ude00\ud83d',
  'two high surrogates then low': '\ud83d\ud83d\ude00',
};

describe('utf8Bytes', () => {
  for (const [name, text] of Object.entries(SAMPLES)) {
    it(`matches Buffer.byteLength: ${name}`, () => {
      expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'));
    });
  }

  it('counts known sizes', () => {
    expect(utf8Bytes('abc')).toBe(3);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('日')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
    expect(utf8Bytes('😀'.repeat(1000))).toBe(4000);
  });
});

describe('jsonBytes', () => {
  it('is the UTF-8 size of the JSON encoding', () => {
    for (const value of [{ a: 'é', b: [1, '😀', null] }, 'plain', 42, ['日本'], { lone: '\ud800' }]) {
      expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
    }
  });

  it('is 0 for values JSON cannot encode', () => {
    expect(jsonBytes(undefined)).toBe(0);
  });
});

describe('preview', () => {
  it('returns short text unchanged, up to and including the limit', () => {
    expect(preview('short')).toBe('short');
    expect(preview('x'.repeat(200))).toBe('x'.repeat(200));
    expect(preview('abcde', 5)).toBe('abcde');
  });

  it('cuts longer text and says how much was left out', () => {
    expect(preview('x'.repeat(201))).toBe(`${'x'.repeat(200)}… [1 more chars]`);
    expect(preview('abcdefghij', 4)).toBe('abcd… [6 more chars]');
  });

  it('never cuts an emoji in half', () => {
    const text = 'abc😀def';
    // '😀' is two UTF-16 units at indexes 3 and 4: a cut at 4 would leave half of it.
    const p = preview(text, 4);
    expect(p).toBe('abc… [5 more chars]');
    expect(p).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(preview(text, 5)).toBe('abc😀… [3 more chars]');
    const long = '😀'.repeat(150);
    const cut = preview(long);
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });
});
