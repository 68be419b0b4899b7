/**
 * The cold-start floor: a Web-standard `{ fetch }` function that reads the request and answers a fixed tools/list
 * reply naming chat_with_agent, on either wire. Run as a target of bench/cold-start-ab.mjs
 * (`floor=bench/fixed-reply.mjs`), it is what any function costs a fresh process beyond Node's own set-up: one
 * module loaded, one Request read, one Response written. Agent-mcp's cold start is read against it.
 */

const body = '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"chat_with_agent","inputSchema":{"type":"object"}}]}}';
const headers = { 'content-type': 'application/json' };

export default {
  async fetch(request) {
    await request.text();
    return new Response(body, { status: 200, headers });
  },
};
