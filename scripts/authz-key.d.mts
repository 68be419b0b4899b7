/** Types of scripts/authz-key.mjs (a plain Node script, so that `npm run authz-key` needs no TypeScript). */
export function newAuthServerKey(): string;
