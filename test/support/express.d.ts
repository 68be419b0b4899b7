/** express ships no type declarations; the A2A test agent (a2a-server.ts) uses a small part of it, typed loosely here. */
declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  type Request = IncomingMessage & { body?: any };
  type Handler = (req: Request, res: ServerResponse, next: (error?: unknown) => void) => void;
  interface Application {
    (req: IncomingMessage, res: ServerResponse): void;
    use(...handlers: Array<string | Handler>): this;
  }
  interface Express {
    (): Application;
    json(): Handler;
  }
  const express: Express;
  export default express;
}
