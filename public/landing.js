// The landing page asks the server itself what it serves, so every deployment (previews included) describes
// itself: its MCP URL from this page's origin, auth mode from /.well-known/mcp.json, tools and agents over MCP.

const mcpUrl = `${location.origin}/mcp`;
const $ = (id) => document.getElementById(id);
/** The current Inspector on any Node: it needs Node >= 22.19, which npx brings (README "Connect a client"). */
const INSPECTOR = 'npx -y --loglevel=error -p node@22 -p @modelcontextprotocol/inspector@latest mcp-inspector';
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function item(text, note) {
  const li = document.createElement('li');
  li.textContent = text;
  if (note) {
    const span = document.createElement('span');
    span.className = 'kind';
    span.textContent = ` — ${note}`;
    li.append(span);
  }
  return li;
}

async function rpc(method, params = {}) {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  if (response.status === 401) {
    // A challenge naming metadata means OAuth; without it the server takes API keys alone.
    const oauth = response.headers.get('www-authenticate')?.includes('resource_metadata');
    throw new Error(oauth ? 'this server needs OAuth; an MCP client lists them once signed in' : 'this server needs an API key; an MCP client sending one lists them');
  }
  const body = await response.json();
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

function fill(list, items) {
  list.replaceChildren(...(items.length ? items : [item('none')]));
}

$('mcp-url').textContent = mcpUrl;
$('setup-claude-code').textContent = `claude mcp add --transport http agent-mcp ${mcpUrl}`;
$('setup-cursor').textContent = JSON.stringify({ mcpServers: { 'agent-mcp': { url: mcpUrl } } }, null, 2);
$('setup-vscode').textContent = JSON.stringify({ servers: { 'agent-mcp': { type: 'http', url: mcpUrl } } }, null, 2);
$('setup-inspector').textContent = `${INSPECTOR}\n# Transport: Streamable HTTP, URL: ${mcpUrl}`;
// The repository links stay hidden while they name the OWNER placeholder (index.html): such a link is a 404.
$('links').hidden = new URL($('repo-link').href).pathname.startsWith('/OWNER/');
// claude.ai reaches a server from Anthropic's side: a loopback URL is one it can never reach.
$('claude-public').hidden = !LOOPBACK.includes(location.hostname);

for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', () => navigator.clipboard?.writeText($(button.dataset.copy).textContent));
}

fetch('/.well-known/mcp.json').then((r) => r.json()).then((doc) => {
  $('versions').textContent = doc.supportedVersions.join(', ');
  if (doc.auth.type === 'public') {
    $('auth-mode').textContent = 'none (public)';
    return;
  }
  if (doc.auth.type === 'api-key') {
    $('auth-mode').textContent = 'API keys (Authorization: Bearer <key>)';
    showKeySetup();
    return;
  }
  $('auth-mode').textContent = `OAuth 2.1 (${doc.auth.authorizationServers.join(', ')})${doc.auth.apiKeys ? ' or API keys' : ''}`;
  $('auth-server').textContent = doc.auth.authorizationServers[0];
  $('prm-link').href = doc.auth.resourceMetadata;
  $('auth-note').hidden = false;
  const prm = document.createElement('li');
  prm.innerHTML = '<a><code>/mcp/oauth-protected-resource</code></a> — OAuth protected resource metadata (RFC 9728; also at /.well-known/oauth-protected-resource/mcp)';
  prm.querySelector('a').href = doc.auth.resourceMetadata;
  $('discovery').append(prm);
  $('setup-inspector').textContent += '\n# On the first 401 it signs in with OAuth in your browser.';
}).catch(() => { $('auth-mode').textContent = 'unknown'; });

/** A server taking API keys: the set-up lines carry the header, with a placeholder for the key. */
function showKeySetup() {
  const header = 'Authorization: Bearer <your key>';
  $('setup-claude-code').textContent += ` --header "${header}"`;
  const headers = { Authorization: 'Bearer <your key>' };
  $('setup-cursor').textContent = JSON.stringify({ mcpServers: { 'agent-mcp': { url: mcpUrl, headers } } }, null, 2);
  $('setup-vscode').textContent = JSON.stringify({ servers: { 'agent-mcp': { type: 'http', url: mcpUrl, headers } } }, null, 2);
  $('setup-inspector').textContent += `\n# Send your key as the header ${header}`;
}

rpc('tools/list').then(({ tools }) => fill($('tools'), tools.map((t) => item(t.name, t.title ?? t.description))))
  .catch((error) => fill($('tools'), [item(`Tools: ${error.message}`)]));
rpc('resources/list').then(({ resources }) => fill($('agents'), resources
  .filter((r) => r.uri.startsWith('agent://'))
  .map((r) => item(r.title ?? r.name, r.description))))
  .catch((error) => fill($('agents'), [item(`Agents: ${error.message}`)]));
