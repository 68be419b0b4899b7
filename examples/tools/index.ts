/**
 * tools/index.ts as a fork fills it in: the notes tool set (./notes.ts) and an in-process agent
 * (../in-process-agent.ts). Copy the files into tools/ and these lines into tools/index.ts; nothing else changes.
 */

import type { Additions } from '../../lib/define/index.js';
import { shouter } from '../in-process-agent.js';
import { addNote, clearNotes, listNotes, myNotes, reviewNotes } from './notes.js';

const additions: Additions = {
  tools: [addNote, listNotes, clearNotes],
  resources: [myNotes],
  prompts: [reviewNotes],
  agents: [shouter],
};

export default additions;
