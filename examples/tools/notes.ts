/**
 * A notes tool set on the deployment's store (Upstash when configured, memory otherwise): notes.add,
 * notes.list and notes.clear (which asks before it deletes), the notes://mine resource and a prompt.
 * Notes are private to their caller (`ctx.stateKey`): the signed-in principal, or on the 2025 wire the session
 * this server issued. A caller with neither (an anonymous 2026-07-28 request) is told so and keeps nothing.
 */

import * as z from 'zod';
import { definePrompt, defineResource, defineTool, ToolError, type HandlerContext } from '../../lib/define/index.js';

/** Notes live this long after the last one is added (every store key expires). */
const NOTES_TTL_MS = 30 * 24 * 60 * 60_000;
/** The most notes one caller keeps. */
const MAX_NOTES = 100;

interface Note {
  text: string;
  at: string;
}

const NO_IDENTITY = 'Notes are kept per caller, and this request carries no identity to keep them under: ' +
  "sign in with this server's OAuth, or use a client that keeps the Mcp-Session-Id of the 2025 wire.";

function notesKey(ctx: HandlerContext): string {
  const key = ctx.stateKey('notes');
  if (key === undefined) throw new ToolError(NO_IDENTITY);
  return key;
}

const readNotes = (ctx: HandlerContext) => ctx.store.range<Note>(notesKey(ctx), 0);

const noteOut = z.object({ id: z.number().int().describe('1 for the first note'), text: z.string(), at: z.string() });

export const addNote = defineTool({
  name: 'notes.add',
  title: 'Add a note',
  description: `Saves a short note for you (at most ${MAX_NOTES}); notes.list and notes://mine read them back.`,
  input: z.object({ text: z.string().min(1).max(2_000).describe('The note, up to 2000 characters.') }),
  output: z.object({ id: z.number().int(), count: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ text }, ctx) {
    const key = notesKey(ctx);
    const held = (await ctx.store.range(key, 0)).length;
    if (held >= MAX_NOTES) throw new ToolError(`You have ${held} notes, the most this server keeps; notes.clear makes room.`);
    const count = await ctx.store.append(key, [{ text, at: new Date().toISOString() } satisfies Note], NOTES_TTL_MS);
    return { structuredContent: { id: count, count } };
  },
});

export const listNotes = defineTool({
  name: 'notes.list',
  title: 'List your notes',
  description: 'Your notes, oldest first; give `contains` to keep only those that contain it.',
  input: z.object({ contains: z.string().min(1).optional().describe('Only notes containing this text (case-insensitive).') }),
  output: z.object({ notes: z.array(noteOut) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ contains }, ctx) {
    const notes = (await readNotes(ctx)).map((note, i) => ({ id: i + 1, ...note }));
    const wanted = contains?.toLowerCase();
    return { structuredContent: { notes: wanted ? notes.filter((n) => n.text.toLowerCase().includes(wanted)) : notes } };
  },
});

export const clearNotes = defineTool({
  name: 'notes.clear',
  title: 'Delete your notes',
  description: 'Deletes all your notes, after asking you to confirm.',
  input: z.object({}),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(_args, ctx) {
    const key = notesKey(ctx);
    const count = (await ctx.store.range(key, 0)).length;
    if (count === 0) return 'You have no notes.';
    const answer = await ctx.elicit(`Delete all ${count} of your notes?`, z.object({ confirm: z.boolean().describe('Yes, delete them') }));
    if (answer.action !== 'accept' || !answer.content.confirm) return 'Kept your notes.';
    await ctx.store.delete(key);
    return `Deleted ${count} notes.`;
  },
});

export const myNotes = defineResource({
  uri: 'notes://mine',
  name: 'my-notes',
  title: 'My notes',
  description: 'Your notes as JSON (empty for a caller without an identity).',
  mimeType: 'application/json',
  async read(ctx) {
    if (ctx.stateKey('notes') === undefined) return JSON.stringify({ notes: [], note: NO_IDENTITY });
    return JSON.stringify({ notes: await readNotes(ctx) });
  },
});

export const reviewNotes = definePrompt({
  name: 'notes.review',
  title: 'Review my notes',
  description: 'Asks the model to read your notes and sum them up.',
  arguments: z.object({ topic: z.string().optional().describe('Only notes about this') }),
  get: ({ topic }) => `Call notes.list${topic ? ` with contains "${topic}"` : ''} and sum my notes up in three bullet points.`,
});
