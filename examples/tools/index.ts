/**
 * tools/index.ts as a fork fills it in: the notes tool set (./notes.ts), two in-process agents
 * (../in-process-agent.ts) and a skill (../deployment-skill.ts). Copy the files into tools/ and these lines into tools/index.ts; nothing else changes.
 */

import type { Additions } from '../../lib/define/index.js';
import { houseStyle } from '../deployment-skill.js';
import { greeter, shouter } from '../in-process-agent.js';
import { addNote, clearNotes, listNotes, myNotes, reviewNotes } from './notes.js';

const additions: Additions = {
  tools: [addNote, listNotes, clearNotes],
  resources: [myNotes],
  prompts: [reviewNotes],
  agents: [shouter, greeter],
  skills: [houseStyle],
};

export default additions;
