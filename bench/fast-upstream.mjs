/** A fast local OpenAI-compatible upstream for benchmarks: streams a fixed two-chunk reply at once. */

import { createServer } from 'node:http';

const body = [
  `data: ${JSON.stringify({ choices: [{ delta: { content: 'Hello ' } }] })}\n\n`,
  `data: ${JSON.stringify({ choices: [{ delta: { content: 'there.' } }] })}\n\n`,
  'data: [DONE]\n\n',
].join('');

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
