/** The upstream formats an agent may have (AGENT_FORMAT, an AGENTS entry's `format`); index.ts has a row for each. */

export const FORMATS = ['openai', 'platform', 'openai-responses', 'anthropic', 'ai-sdk', 'a2a'] as const;
export type Format = (typeof FORMATS)[number];
