import { describe, expect, test } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue } from '../../lib/protocol/headers.js';

describe('header values and the base64 sentinel (SEP-2243)', () => {
  test('a plain value is literal', () => {
    expect(decodeHeaderValue('us-west-1')).toBe('us-west-1');
  });

  test('a sentinel decodes to its UTF-8 text', () => {
    expect(decodeHeaderValue(`=?base64?${Buffer.from('Grüße').toString('base64')}?=`)).toBe('Grüße');
  });

  test.each([
    ['missing padding', '=?base64?SGVsbG8?='],
    ['non-alphabet characters', '=?base64?SGVs!!!bG8=?='],
    ['bytes that are not UTF-8', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`],
  ])('a sentinel with %s is invalid', (_name, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });

  test('a value without the prefix or without the suffix is literal', () => {
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });

  test('encoding round-trips and leaves visible ASCII alone', () => {
    expect(encodeHeaderValue('plain value')).toBe('plain value');
    expect(decodeHeaderValue(encodeHeaderValue(' padded '))).toBe(' padded ');
    expect(decodeHeaderValue(encodeHeaderValue('日本'))).toBe('日本');
  });
});
