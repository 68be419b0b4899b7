import { describe, expect, test } from 'vitest';
import {
  HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION, httpStatusFor,
} from '../../lib/protocol/errors.js';

describe('the HTTP status of a single error reply', () => {
  test.each([
    ['modern', PARSE_ERROR, 400],
    ['modern', INVALID_REQUEST, 400],
    ['modern', METHOD_NOT_FOUND, 404],
    ['modern', HEADER_MISMATCH, 400],
    ['modern', MISSING_REQUIRED_CLIENT_CAPABILITY, 400],
    ['modern', UNSUPPORTED_PROTOCOL_VERSION, 400],
    ['modern', INVALID_PARAMS, 200],
    ['modern', INTERNAL_ERROR, 200],
    ['legacy', PARSE_ERROR, 400],
    ['legacy', INVALID_REQUEST, 400],
    ['legacy', METHOD_NOT_FOUND, 200],
    ['legacy', INVALID_PARAMS, 200],
  ] as const)('%s wire, code %i → HTTP %i', (era, code, status) => {
    expect(httpStatusFor(era, code)).toBe(status);
  });
});
