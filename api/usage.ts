/** The operator's usage page: /usage (HTML) and /usage.json, behind the access check of lib/usage/page/access.ts. */

import { createConfiguredHandler } from '../lib/http/configured.js';
import { createUsageFunction } from '../lib/usage/page/function.js';

export default {
  fetch: createConfiguredHandler(() => createUsageFunction()),
};
