/**
 * A streaming OpenAI-compatible upstream for bench/streaming.mjs: each POST is answered with STREAM_RATE chat
 * completion chunks a second (each one word, with the fields a real one carries) for STREAM_SECONDS, then
 * `[DONE]`. One timer writes to every open stream, so the upstream's own cost stays one timer and one write per chunk
 * however many calls are open. Over IPC, 'count' answers how many chunks it has written and how many streams are open.
 */

import { createServer } from 'node:http';

const RATE = Number(process.env.STREAM_RATE ?? 50);
const SECONDS = Number(process.env.STREAM_SECONDS ?? 20);
const CHUNKS = Math.max(1, Math.round(RATE * SECONDS));

const chunk = `data: ${JSON.stringify({
  id: 'chatcmpl-bench0000000000000000000000', object: 'chat.completion.chunk', created: 1_800_000_000, model: 'bench',
  system_fingerprint: 'fp_bench', choices: [{ index: 0, delta: { content: ' word' }, logprobs: null, finish_reason: null }],
})}\n\n`;
const DONE = 'data: [DONE]\n\n';

/** Open streams and how many chunks each has had. */
const open = new Map();
let written = 0;

setInterval(() => {
  for (const [res, sent] of open) {
    if (sent >= CHUNKS) {
      open.delete(res);
      res.end(DONE);
      continue;
    }
    res.write(chunk);
    open.set(res, sent + 1);
    written++;
  }
}, 1000 / RATE);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    open.set(res, 0);
    res.on('close', () => open.delete(res));
  });
});
server.keepAliveTimeout = 60_000;
process.on('message', (message) => {
  if (message === 'count') process.send({ chunks: written, open: open.size });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
