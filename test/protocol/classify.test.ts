import { describe, expect, test } from 'vitest';
import { classifyBody } from '../../lib/protocol/classify.js';
import {
  HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION,
} from '../../lib/protocol/errors.js';
import { META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../../lib/protocol/meta.js';

const headers = (values: Record<string, string> = {}) => new Headers(values);
const modernMeta = (extra: Record<string, unknown> = {}) => ({
  [META_PROTOCOL_VERSION]: '2026-07-28',
  [META_CLIENT_CAPABILITIES]: {},
  ...extra,
});
const modernHeaders = (method: string, extra: Record<string, string> = {}) =>
  headers({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra });

describe('the era is decided by the body claim', () => {
  test('a claim-less request is legacy traffic at the assumed 2025-03-26 when no header says otherwise', () => {
    const result = classifyBody({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers());
    expect(result).toMatchObject({ kind: 'legacy', version: '2025-03-26', batch: false });
  });

  test('a legacy call carrying _meta.progressToken stays legacy', () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 't' } } };
    expect(classifyBody(body, headers({ 'mcp-protocol-version': '2025-11-25' }))).toMatchObject({
      kind: 'legacy', version: '2025-11-25',
    });
  });

  test('a request with the protocolVersion claim and matching headers is modern', () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta({ [META_LOG_LEVEL]: 'info' }) } };
    expect(classifyBody(body, modernHeaders('tools/list'))).toMatchObject({
      kind: 'modern', meta: { protocolVersion: '2026-07-28', clientCapabilities: {}, logLevel: 'info' },
    });
  });

  test('the MCP-Protocol-Version header alone never makes a request modern', () => {
    const result = classifyBody({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, modernHeaders('tools/list'));
    expect(result).toMatchObject({ kind: 'reject', id: 7, error: { code: INVALID_PARAMS, status: 400 } });
  });
});

describe('legacy framing', () => {
  test('an unsupported MCP-Protocol-Version is 400', () => {
    const result = classifyBody({ jsonrpc: '2.0', id: 1, method: 'ping' }, headers({ 'mcp-protocol-version': '1999-01-01' }));
    expect(result).toMatchObject({ kind: 'reject', id: 1, error: { status: 400, code: INVALID_REQUEST } });
  });

  test('batches are accepted only at 2025-03-26', () => {
    const batch = [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'ping' }];
    expect(classifyBody(batch, headers({ 'mcp-protocol-version': '2025-03-26' }))).toMatchObject({ kind: 'legacy', batch: true });
    expect(classifyBody(batch, headers({ 'mcp-protocol-version': '2025-06-18' }))).toMatchObject({
      kind: 'reject', error: { status: 400, code: INVALID_REQUEST },
    });
  });

  test('an empty batch and a batch with a modern element are invalid requests', () => {
    expect(classifyBody([], headers())).toMatchObject({ kind: 'reject', error: { code: INVALID_REQUEST } });
    const mixed = [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }];
    expect(classifyBody(mixed, headers())).toMatchObject({ kind: 'reject', error: { code: INVALID_REQUEST } });
  });

  test('a body that is not an object or array is an invalid request', () => {
    expect(classifyBody('hello', headers())).toMatchObject({ kind: 'reject', id: null, error: { code: INVALID_REQUEST } });
  });
});

describe('the modern _meta ladder', () => {
  const request = (meta: Record<string, unknown>, method = 'tools/list', params: Record<string, unknown> = {}) =>
    ({ jsonrpc: '2.0', id: 'r1', method, params: { ...params, _meta: meta } });

  test.each([
    ['a missing MCP-Protocol-Version header', headers({ 'mcp-method': 'tools/list' })],
    ['a header that disagrees with the claim', modernHeaders('tools/list', { 'mcp-protocol-version': '2025-11-25' })],
    ['a missing Mcp-Method header', headers({ 'mcp-protocol-version': '2026-07-28' })],
    ['an Mcp-Method that disagrees with the body', modernHeaders('prompts/list')],
  ])('%s is 400 with -32020 HeaderMismatch', (_name, h) => {
    expect(classifyBody(request(modernMeta()), h)).toMatchObject({
      kind: 'reject', id: 'r1', error: { status: 400, code: HEADER_MISMATCH },
    });
  });

  test('tools/call needs Mcp-Name equal to params.name, decoded from the base64 sentinel', () => {
    const body = request(modernMeta(), 'tools/call', { name: 'héllo' });
    const encoded = `=?base64?${Buffer.from('héllo').toString('base64')}?=`;
    expect(classifyBody(body, modernHeaders('tools/call', { 'mcp-name': encoded }))).toMatchObject({ kind: 'modern' });
    expect(classifyBody(body, modernHeaders('tools/call', { 'mcp-name': 'other' }))).toMatchObject({
      error: { code: HEADER_MISMATCH },
    });
    expect(classifyBody(body, modernHeaders('tools/call'))).toMatchObject({ error: { code: HEADER_MISMATCH } });
  });

  test('resources/read mirrors params.uri in Mcp-Name', () => {
    const body = request(modernMeta(), 'resources/read', { uri: 'test://a' });
    expect(classifyBody(body, modernHeaders('resources/read', { 'mcp-name': 'test://a' }))).toMatchObject({ kind: 'modern' });
  });

  test('an unsupported claimed version is 400 with -32022 naming the supported versions', () => {
    const meta = modernMeta({ [META_PROTOCOL_VERSION]: '2099-01-01' });
    const result = classifyBody(request(meta), modernHeaders('tools/list', { 'mcp-protocol-version': '2099-01-01' }));
    expect(result).toMatchObject({
      kind: 'reject', id: 'r1',
      error: { status: 400, code: UNSUPPORTED_PROTOCOL_VERSION, data: { supported: ['2026-07-28'], requested: '2099-01-01' } },
    });
  });

  test('missing clientCapabilities is 400 with -32602', () => {
    const result = classifyBody(request({ [META_PROTOCOL_VERSION]: '2026-07-28' }), modernHeaders('tools/list'));
    expect(result).toMatchObject({ kind: 'reject', error: { status: 400, code: INVALID_PARAMS } });
  });
});
