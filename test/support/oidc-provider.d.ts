/** oidc-provider ships no type declarations; the tests use a small part of it, typed loosely here. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, any>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: any[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<any>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, any>, options?: Record<string, any>): Promise<void>;
    Grant: any;
    registerGrantType(name: string, handler: (ctx: any) => Promise<void>, parameters?: string[]): void;
  }
}
