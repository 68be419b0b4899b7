/**
 * Calling agent-mcp in-process: code in the same deployment (another function, a job, an in-process agent)
 * opens the official client on the app's dispatcher, with no network hop. The principal passed is treated
 * like the principal of a verified token: tools whose scopes it lacks are hidden and refused (403).
 */

import { Client } from '@modelcontextprotocol/client';
import { createDefaultApp } from '../lib/app.js';

/** Lists the tools a job runner may call and calls the agent tool once; returns the reply's text. */
export async function askTheAgent(message: string): Promise<string> {
  const app = createDefaultApp(); // once per instance, as api/mcp.ts does
  const client = new Client({ name: 'job-runner', version: '1.0.0' });
  await client.connect(app.connectInProcess({ subject: 'job-runner', scopes: ['agents:chat'] }));
  try {
    const { tools } = await client.listTools(); // chat_with_agent and every mounted server's tools
    if (!tools.some((t) => t.name === 'chat_with_agent')) throw new Error('chat_with_agent is not listed for this caller');
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message } });
    const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '';
    if (result.isError) throw new Error(text);
    return text;
  } finally {
    await client.close();
  }
}
