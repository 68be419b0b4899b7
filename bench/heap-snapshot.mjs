/**
 * What a heap snapshot holds, by kind of object, and what one in-flight call adds (bench/streaming.mjs --heap): the
 * snapshot's nodes counted and their self sizes summed per (V8 node type, name), then two such tables subtracted and
 * divided by the calls between them. Object counts and self sizes do not move with machine load, so the breakdown
 * compares builds where CPU figures on a loaded machine cannot.
 */

import { readFileSync } from 'node:fs';

/**
 * Groups V8 names the way the breakdown reads: a closure by its function's name, a context by "system / Context", an
 * internal array by its kind, an object by its constructor.
 */
function groupOf(type, name) {
  if (type === 'closure') return `closure ${name || '(anonymous)'}`;
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return `${type}`;
  if (type === 'object') return name.startsWith('system / ') ? name : `object ${name}`;
  if (type === 'array') return `array ${name}`;
  return `${type} ${name}`;
}

/**
 * Counts and self sizes of a .heapsnapshot file's nodes by group; with `where`, a closure's group also names where
 * its function is written (script id:line:column, 0-based, from the snapshot's locations), which tells apart the
 * anonymous ones.
 */
export function tallySnapshot(path, { where = false } = {}) {
  const { snapshot, nodes, strings, locations = [] } = JSON.parse(readFileSync(path, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const width = fields.length;
  const at = { type: fields.indexOf('type'), name: fields.indexOf('name'), size: fields.indexOf('self_size') };
  const located = new Map();
  if (where) {
    const lw = snapshot.meta.location_fields?.length ?? 4;
    for (let i = 0; i < locations.length; i += lw) located.set(locations[i], `${locations[i + 1]}:${locations[i + 2]}:${locations[i + 3]}`);
  }
  const groups = new Map();
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + at.type]];
    // Synthetic roots and the code space are not what a call holds.
    if (type === 'synthetic' || type === 'code') continue;
    let group = groupOf(type, strings[nodes[i + at.name]]);
    if (where && type === 'closure' && located.has(i)) group += ` @${located.get(i)}`;
    const size = nodes[i + at.size];
    const entry = groups.get(group) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += size;
    groups.set(group, entry);
    count += 1;
    bytes += size;
  }
  return { count, bytes, groups };
}

/** `busy` less `idle`, over `calls`: per group, objects and bytes a call adds, largest first. */
export function perCall(idle, busy, calls) {
  const rows = [];
  for (const [group, { count, bytes }] of busy.groups) {
    const before = idle.groups.get(group) ?? { count: 0, bytes: 0 };
    rows.push({ group, objects: (count - before.count) / calls, bytes: (bytes - before.bytes) / calls });
  }
  rows.sort((a, b) => b.bytes - a.bytes);
  return { objects: (busy.count - idle.count) / calls, bytes: (busy.bytes - idle.bytes) / calls, rows };
}
