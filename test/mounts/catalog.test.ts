import { expect, test } from 'vitest';
import { templateVariables } from '../../lib/mounts/catalog.js';

test('a mounted template\'s variables are read from every RFC 6570 expression, operators and modifiers stripped', () => {
  expect(templateVariables('note://docs/items/{id}')).toEqual(['id']);
  expect(templateVariables('file:///{+path}{?q,lang}/{id:3}/{list*}{#frag}')).toEqual(['path', 'q', 'lang', 'id', 'list', 'frag']);
  expect(templateVariables('note://docs/readme')).toEqual([]);
});
