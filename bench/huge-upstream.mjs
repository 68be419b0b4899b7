/**
 * A hostile OpenAI-compatible upstream for the memory benchmark: every reply is a stream of BENCH_HUGE_BYTES
 * (default 200 MB) of SSE text events, written as fast as the reader takes them. It reports, over stdout, how
 * many bytes each reply got out before the reader went away.
 */

import { once } from 'node:events';
import { createServer } from 'node:http';

/** Until the socket takes more, or is gone (listeners removed either way, so none pile up). */
const drained = (res) => new Promise((resolve) => {
  const done = () => {
    res.off('drain', done);
    res.off('close', done);
    resolve();
  };
  res.on('drain', done);
  res.on('close', done);
});

const TOTAL = Number(process.env.BENCH_HUGE_BYTES ?? 200 * 1024 * 1024);
const event = `data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(4000) } }] })}\n\n`;
const chunk = event.repeat(16);

const server = createServer(async (req, res) => {
  req.resume();
  await once(req, 'end');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let sent = 0;
  while (sent < TOTAL && !res.destroyed) {
    if (!res.write(chunk)) await drained(res);
    sent += chunk.length;
  }
  if (!res.destroyed) res.end('data: [DONE]\n\n');
  console.log(`sent ${sent} bytes${res.destroyed ? ' before the reader went away' : ' (whole reply)'}`);
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
