import { describe, expect, test } from 'vitest';
import { readAgents, readBudgetLimits, readReplyDeadline } from '../../lib/agent/config.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { readMaxConcurrentCalls } from '../../lib/limits/concurrency.js';

describe('agent configuration is validated at start-up, naming the variable', () => {
  test('with no configuration the demo agent serves, labelled as a demo', () => {
    const [demo, ...rest] = readAgents({});
    expect(rest).toEqual([]);
    expect(demo!.profile).toMatchObject({ id: 'demo', kind: 'in-process', paid: false });
    expect(demo!.profile.description).toMatch(/demo/i);
  });

  test('AGENT_URL makes the default agent; AGENT_FORMAT picks the adapter', () => {
    const [openai] = readAgents({ AGENT_URL: 'http://localhost:11434/v1', AGENT_MODEL: 'llama3' });
    expect(openai!.profile).toMatchObject({ id: 'default', kind: 'openai' });
    const [platform] = readAgents({ AGENT_URL: 'https://agents.example.com/chat', AGENT_FORMAT: 'platform' });
    expect(platform!.profile.kind).toBe('platform');
  });

  test('each format of the table is an AGENT_FORMAT, and its agents say which in their profiles', () => {
    for (const format of ['openai', 'platform', 'openai-responses', 'anthropic', 'ai-sdk', 'a2a']) {
      const [agent] = readAgents({ AGENT_URL: 'http://localhost:9/v1', AGENT_FORMAT: format, AGENT_MODEL: 'm' });
      expect(agent!.profile.kind).toBe(format);
    }
  });

  test('an agent without a description is described by its format, in plain English', () => {
    const [openai] = readAgents({ AGENT_URL: 'http://localhost:11434/v1', AGENT_MODEL: 'llama3' });
    const [platform] = readAgents({ AGENT_URL: 'https://agents.example.com/chat', AGENT_FORMAT: 'platform' });
    expect(openai!.profile.description).toBe('An agent reached through an OpenAI-compatible chat endpoint.');
    expect(platform!.profile.description).toBe('An agent reached through a platform chat endpoint.');
  });

  test('tools are none by default; AGENTS `tools` and AGENT_TOOLS name them, agent:<id> included', () => {
    expect(readAgents({ AGENT_URL: 'http://x/v1', AGENT_MODEL: 'm' })[0]!.tools).toBeUndefined();
    const agents = readAgents({
      AGENT_URL: 'http://x/v1', AGENT_MODEL: 'm', AGENT_TOOLS: 'docs.*, agent:research',
      AGENTS: '[{"id":"research","url":"http://x","model":"m","tools":["notes.add","agent:*"]}]',
    });
    expect(agents.map((a) => a.tools)).toEqual([['docs.*', 'agent:research'], ['notes.add', 'agent:*']]);
  });

  test('an in-process agent naming an unknown agent as a tool stops start-up', () => {
    const reply = async function* () { yield 'x'; };
    expect(() => readAgents({}, [{ id: 'solo', name: 'Solo', description: 'd', reply, tools: ['agent:ghost'] }]))
      .toThrow(/in-process agent solo: agent solo names tool "agent:ghost", but no agent has id "ghost"/);
  });

  test('X402_PAY_TO marks agents as paid in their profiles', () => {
    expect(readAgents({ X402_PAY_TO: '0x0000000000000000000000000000000000000001' })[0]!.profile.paid).toBe(true);
  });

  test.each([
    [{ AGENT_URL: 'http://localhost/v1' }, /AGENT_URL\/AGENT_FORMAT\/AGENT_MODEL is invalid: model: openai agents need a model/],
    [{ AGENT_URL: 'not a url', AGENT_FORMAT: 'platform' }, /AGENT_URL.*url/i],
    [{ AGENT_URL: 'http://x/v1', AGENT_FORMAT: 'grpc', AGENT_MODEL: 'm' }, /format/],
    [{ AGENT_TIMEOUT_MS: 'soon' }, /AGENT_TIMEOUT_MS must be a positive integer/],
    [{ AGENTS: '{nope' }, /AGENTS must be a JSON array of agent objects: the JSON breaks at position 1 \(line 1, column 2\)/],
    [{ AGENTS: '[\n  {"id":"a"}\n  {"id":"b"}\n]' }, /the JSON breaks at position 17 \(line 3, column 3\), near `\[ \{"id":"a"\} \{"id":"b"\} \]`/],
    [{ AGENTS: '[{"id":"a","url":"http://x"' }, /AGENTS must be a JSON array of agent objects: the JSON ends too early/],
    [{ AGENTS: '[{"id":"a","format":"platform","url":"http://x","apiKey":"sk-1"}]' }, /agent a inlines its key; .*"apiKeyEnv": "A_API_KEY"/],
    [{ AGENTS: '[{"id":"has space","format":"platform","url":"http://x"}]' }, /AGENTS is invalid: entry 0: id: ids are/],
    [{ AGENTS: '[]' }, /AGENTS must be a JSON array of agent objects/],
    [{ AGENTS: '[{"id":"a","url":"http://x","modle":"m"}]' }, /^AGENTS is invalid: agent a \(entry 0\): modle: is not an agent setting; did you mean "model"\?$/],
    [{ AGENTS: '[{"id":"support","format":"platform","url":"http://x","apikey_env":"K"}]' }, /^AGENTS is invalid: agent support \(entry 0\): apikey_env: is not an agent setting; did you mean "apiKeyEnv"\?$/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m","headers":{"x-api-key":"k"}}]' },
      /^AGENTS is invalid: agent a \(entry 0\): headers: is not an agent setting; did you mean "headersEnv"\? \(it names the environment variables that hold the values\)\.$/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m"},{"id":"b","url":"http://x","model":"m","colour":"red"}]' }, /^AGENTS is invalid: agent b \(entry 1\): colour: is not an agent setting\.$/],
    [{ AGENTS: '[{"id":"a","format":"platform","url":"http://x","timeoutMs":1.5}]' }, /agent a \(entry 0\): timeoutMs: must be a positive integer/],
    [{ AGENTS: '[{"id":"a","format":"platform","url":"http://x","apiKeyEnv":"MISSING_KEY"}]' }, /apiKeyEnv MISSING_KEY, which is not set/],
    [{ AGENTS: '[{"id":"a","format":"platform","url":"http://x"},{"id":"a","format":"platform","url":"http://y"}]' }, /duplicate agent id "a"/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m","tools":["agent:nobody"]}]' }, /AGENTS: agent a names tool "agent:nobody", but no agent has id "nobody" \(agents: a\)/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m","tools":"docs.*"}]' }, /AGENTS is invalid: agent a \(entry 0\): tools: must be an array of tool patterns/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m","tools":["docs/*"]}]' }, /AGENTS is invalid: agent a \(entry 0\): tools\.0: "docs\/\*" is a tool name, or a pattern/],
    [{ AGENTS: '[{"id":"a","format":"platform","url":"http://x","tools":["docs.*"]}]' },
      /agent a \(entry 0\): tools: only openai, openai-responses and anthropic agents call tools \(a platform upstream runs its own\)/],
    [{ AGENTS: '[{"id":"a","format":"ai-sdk","url":"http://x","tools":["docs.*"]}]' }, /agent a \(entry 0\): tools: .* \(an AI SDK route runs its own\)/],
    [{ AGENTS: '[{"id":"a","format":"a2a","url":"http://x","tools":["docs.*"]}]' }, /agent a \(entry 0\): tools: .* \(an A2A agent runs its own\)/],
    [{ AGENT_URL: 'http://x/v1', AGENT_FORMAT: 'a2a', AGENT_TOOLS: 'docs.*' }, /AGENT_TOOLS: .* \(an A2A agent runs its own\); AGENT_FORMAT is a2a/],
    [{ AGENT_URL: 'https://api.anthropic.com/v1', AGENT_FORMAT: 'anthropic' }, /AGENT_URL\/AGENT_FORMAT\/AGENT_MODEL is invalid: model: anthropic agents need a model/],
    [{ AGENTS: '[{"id":"a","format":"openai-responses","url":"http://x"}]' }, /AGENTS is invalid: agent a \(entry 0\): model: openai-responses agents need a model/],
    [{ AGENTS: '[{"id":"a","format":"anthropic","url":"http://x","model":"m","maxTokens":0}]' }, /agent a \(entry 0\): maxTokens: must be a positive integer/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m","maxTokens":100}]' }, /agent a \(entry 0\): maxTokens: is not a setting of openai agents/],
    [{ AGENTS: '[{"id":"a","format":"ai-sdk","url":"http://x","body":{"messages":[]}}]' }, /agent a \(entry 0\): body: must be an object of fields to add to each request \(not id or messages/],
    [{ AGENTS: '[{"id":"a","format":"ai-sdk","url":"http://x","headersEnv":{"x-key":"ROUTE_KEY"}}]' }, /agent a names headersEnv\.x-key ROUTE_KEY, which is not set/],
    [{ AGENTS: '[{"id":"a","format":"ai-sdk","url":"http://x","headersEnv":{"bad header":"K"}}]' }, /agent a \(entry 0\): headersEnv\.bad header: must map a header name/],
    [{ AGENTS: '[{"id":"a","format":"anthropic","url":"http://x","model":"m","body":{}}]' }, /agent a \(entry 0\): body: is not a setting of anthropic agents/],
    [{ AGENTS: '[{"id":"a","url":"http://x","model":"m","maxToolSteps":0}]' }, /agent a \(entry 0\): maxToolSteps: must be a positive integer/],
    [{ AGENT_URL: 'http://x/v1', AGENT_MODEL: 'm', AGENT_TOOLS: 'docs.*, agent:research' }, /AGENT_TOOLS: agent default names tool "agent:research", but no agent has id "research"/],
    [{ AGENT_URL: 'http://x/v1', AGENT_MODEL: 'm', AGENT_TOOLS: 'docs.*,agent:' }, /AGENT_TOOLS: agent default: tool "agent:" agent:<id> names an agent id or \*/],
    [{ AGENT_TOOLS: 'docs.*' }, /AGENT_TOOLS names tools for the default agent, but AGENT_URL \(which makes it\) is not set/],
    [{ AGENT_MAX_TOOL_STEPS: '0' }, /AGENT_MAX_TOOL_STEPS must be a positive integer, got "0"/],
    [{ AGENT_MAX_DEPTH: 'deep' }, /AGENT_MAX_DEPTH must be a positive integer/],
    [{ AGENT_MAX_TOOL_CALLS: '-1' }, /AGENT_MAX_TOOL_CALLS must be a positive integer/],
    [{ AGENT_MAX_TOOL_CALLS_PER_REPLY: '0' }, /AGENT_MAX_TOOL_CALLS_PER_REPLY must be a positive integer, got "0"/],
    [{ AGENT_ERROR_DETAIL: 'verbose' }, /AGENT_ERROR_DETAIL must be log or pass, got "verbose"/],
    [{ AGENT_TOOL_RESULT_MAX_BYTES: '10' }, /AGENT_TOOL_RESULT_MAX_BYTES must be an integer of at least 256/],
  ])('%j is refused', (env, message) => {
    expect(() => readAgents(env)).toThrow(TypeError);
    expect(() => readAgents(env)).toThrow(message);
  });
});

describe('what one request may cost, from the environment', () => {
  test('absent variables mean 64 model calls, 128 tool calls, 8 at once and five upstream timeouts per turn', () => {
    expect(readBudgetLimits({})).toEqual({ maxUpstreamCalls: 64, maxToolCalls: 128, maxParallel: 8, turnTimeoutMs: 600_000 });
    expect(readBudgetLimits({ AGENT_TIMEOUT_MS: '30000' }).turnTimeoutMs).toBe(150_000);
  });

  test('set variables are used', () => {
    expect(readBudgetLimits({ AGENT_MAX_UPSTREAM_CALLS: '10', AGENT_MAX_TOOL_CALLS_TOTAL: '20', AGENT_MAX_PARALLEL_CALLS: '2', AGENT_TURN_TIMEOUT_MS: '5000' }))
      .toEqual({ maxUpstreamCalls: 10, maxToolCalls: 20, maxParallel: 2, turnTimeoutMs: 5000 });
  });

  test.each([
    ['AGENT_MAX_UPSTREAM_CALLS', '0', 'a positive integer'],
    ['AGENT_MAX_TOOL_CALLS_TOTAL', 'many', 'a positive integer'],
    ['AGENT_MAX_PARALLEL_CALLS', '1.5', 'a positive integer'],
    ['AGENT_TURN_TIMEOUT_MS', '10m', 'a positive integer of milliseconds'],
  ])('%s=%s stops start-up naming the variable', (name, value, shape) => {
    const message = `${name} must be ${shape}, got "${value}".`;
    expect(() => readBudgetLimits({ [name]: value })).toThrow(new TypeError(message));
    expect(() => agentDefinitions({ [name]: value })).toThrow(new TypeError(message));
  });
});

describe('the reply deadline, from the environment (docs/agents.md "Slow agents")', () => {
  test('absent variables mean a 45 s deadline, runs kept an hour, 16 at once per caller; off means none', () => {
    expect(readReplyDeadline({})).toEqual({ ms: 45_000, ttlMs: 3_600_000, maxRuns: 16 });
    expect(readReplyDeadline({ AGENT_REPLY_DEADLINE_MS: '20000', AGENT_BACKGROUND_TTL_MS: '60000', AGENT_MAX_BACKGROUND_RUNS: '2' }))
      .toEqual({ ms: 20_000, ttlMs: 60_000, maxRuns: 2 });
    expect(readReplyDeadline({ AGENT_REPLY_DEADLINE_MS: 'off' })).toBeUndefined();
  });

  test.each([
    ['AGENT_REPLY_DEADLINE_MS', '45s', 'a positive integer of milliseconds, or off'],
    ['AGENT_REPLY_DEADLINE_MS', '0', 'a positive integer of milliseconds, or off'],
    ['AGENT_BACKGROUND_TTL_MS', '1h', 'a positive integer of milliseconds'],
    ['AGENT_MAX_BACKGROUND_RUNS', '0', 'a positive integer'],
  ])('%s=%s stops start-up naming the variable', (name, value, shape) => {
    const message = `${name} must be ${shape}, got "${value}".`;
    expect(() => agentDefinitions({ [name]: value })).toThrow(new TypeError(message));
  });

  test('a caller\'s whole share of concurrent calls may outlive the deadline: as many runs as calls, by default', () => {
    expect(readReplyDeadline({})!.maxRuns).toBe(readMaxConcurrentCalls({}));
  });

  test('a bad bound stops start-up even with the deadline off', () => {
    expect(() => readReplyDeadline({ AGENT_REPLY_DEADLINE_MS: 'off', AGENT_MAX_BACKGROUND_RUNS: 'lots' })).toThrow(/AGENT_MAX_BACKGROUND_RUNS/);
  });
});
