/**
 * The floor: a raw node:http server that drains the request and answers a fixed JSON body, the same bytes our
 * server answers (FLOOR_BODIES: a JSON object of body by request path). No server can do less per request.
 */

import { createServer } from 'node:http';

const bodies = new Map(Object.entries(JSON.parse(process.env.FLOOR_BODIES ?? '{}')));

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = bodies.get(req.url);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
