/**
 * Test support: a minimal RESP2 client over one TCP connection (https://redis.io/docs/latest/develop/reference/protocol-spec/).
 * Replies come back in the order commands were written, so a batch written in one `write` call is never
 * interleaved with another caller's commands; that is what lets MULTI…EXEC share the connection.
 */

import { connect, type Socket } from 'node:net';

/** A Redis error reply, kept as a value so callers can forward it. */
export class RespError {
  constructor(readonly message: string) {}
}

export type RespValue = string | number | null | RespError | RespValue[];

type Parsed = { value: RespValue; end: number } | undefined;

function encode(command: Array<string | number>): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${command.length}\r\n`)];
  for (const arg of command) {
    const bytes = Buffer.from(String(arg), 'utf8');
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `start`; undefined when the buffer does not hold all of it yet. */
function parse(buffer: Buffer, start: number): Parsed {
  const lineEnd = buffer.indexOf('\r\n', start);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[start]!);
  const line = buffer.toString('utf8', start + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+': return { value: line, end: next };
    case '-': return { value: new RespError(line), end: next };
    case ':': return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buffer, at);
        if (!item) return undefined;
        items.push(item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new Error(`unexpected RESP type byte ${JSON.stringify(type)}`);
  }
}

export interface RespClient {
  /** Sends the commands in one write and resolves with their replies, in order. */
  send(commands: Array<Array<string | number>>): Promise<RespValue[]>;
  close(): void;
}

export function connectResp(port: number, host = '127.0.0.1'): Promise<RespClient> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ port, host });
    const waiting: Array<(value: RespValue) => void> = [];
    let buffer = Buffer.alloc(0);
    let failure: Error | undefined;
    socket.on('data', (chunk) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      let at = 0;
      for (let parsed = parse(buffer, at); parsed; parsed = parse(buffer, at)) {
        at = parsed.end;
        waiting.shift()?.(parsed.value);
      }
      buffer = buffer.subarray(at);
    });
    const fail = (error: Error) => {
      failure = error;
      for (const wake of waiting.splice(0)) wake(new RespError(`ERR connection lost: ${error.message}`));
    };
    socket.on('error', (error) => {
      fail(error);
      reject(error);
    });
    socket.on('close', () => fail(new Error('closed')));
    socket.on('connect', () => resolve({
      send(commands) {
        if (failure) return Promise.resolve(commands.map(() => new RespError(`ERR connection lost: ${failure!.message}`)));
        const replies = commands.map(() => new Promise<RespValue>((wake) => waiting.push(wake)));
        socket.write(Buffer.concat(commands.map(encode)));
        return Promise.all(replies);
      },
      close: () => socket.destroy(),
    }));
  });
}
