/**
 * The Web-standard floor: a `{ fetch }` function that reads the request and answers the same fixed bytes as
 * bench/floor.mjs (FLOOR_BODIES, by request path). Served like every target, it is the least any Web-standard
 * handler can cost behind the same Node adapter: the Request and Response objects alone.
 */

const bodies = new Map(Object.entries(JSON.parse(process.env.FLOOR_BODIES ?? '{}')));
const headers = { 'content-type': 'application/json' };

export default {
  async fetch(request) {
    await request.text();
    const body = bodies.get(new URL(request.url).pathname);
    return new Response(body ?? null, { status: body === undefined ? 404 : 200, headers });
  },
};
