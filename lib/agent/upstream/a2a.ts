/**
 * An A2A agent (A2A 1.0 over JSON-RPC): its agent card (`url`, or `<url>/.well-known/agent-card.json`) is read with
 * the first call and kept; its JSON-RPC interface and its `streaming` capability decide the method,
 * `SendStreamingMessage` (SSE of JSON-RPC responses, each a StreamResponse) or `SendMessage` (one). The upstream keeps
 * the conversation: its `contextId` is kept per conversation (types.ts UpstreamState, keyed by lib/server/caller.ts),
 * never a client's string. Artifact text is the reply; working status messages and new artifacts are progress lines
 * naming them; a failed or rejected task is the upstream's error (error-text.ts). A task that turns `input-required`
 * becomes a question to our caller (turn.ask): on the 2025 wire it is answered within the call; on the 2026 wire the
 * call ends `input_required` with the task kept, and the retry carrying the answer sends it to that task. A call
 * cancelled while its task runs cancels the task (`CancelTask`), as does a question the caller declines.
 * A small client rather than the A2A SDK's: every byte goes through request.ts's counted reader and its errors,
 * and nothing of it loads before the first call.
 */

import type { AgentProfile, AgentTurn } from '../types.js';
import type { FormatSettings, LazyFormat } from './settings.js';
import type { Kit } from './kit.js';
import type { UpstreamTarget } from './request.js';
import { isEventStream, parseObject, readAll, shortLine, upstreamId } from './wire.js';

const CARD_PATH = '/.well-known/agent-card.json';
/** The question a task asks is kept this long at most (it rides in the store between rounds). */
const QUESTION_CHARS = 2000;
const FINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);
/** How long the stream of a turn that ended before its task was named is read on for that name. */
const NAMING_WAIT_MS = 5_000;
const ONCE = { once: true } as const;

interface Interface {
  url: string;
  streaming: boolean;
}

/** What a conversation keeps: the upstream's context and, while one waits for our caller, the task and its question. */
interface Handle {
  contextId?: string;
  pending?: { taskId: string; question: string; round: number; message: string };
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});

/** The card's URL: `url` itself when it names a JSON document, else the well-known path under it. */
export function cardUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('.json') ? trimmed : `${trimmed}${CARD_PATH}`;
}

/** The text parts of a message or artifact, in order (file and data parts carry no reply text). */
function partsText(value: unknown): string {
  const parts = record(value).parts;
  let text = '';
  if (Array.isArray(parts)) for (const part of parts) if (typeof record(part).text === 'string') text += record(part).text as string;
  return text;
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const createReply: LazyFormat['createReply'] = (kit, profile, settings) => {
  let card: Promise<Interface> | undefined;
  // Read once per agent and kept; a failed read is tried again by the next call.
  const found = (signal: AbortSignal) => (card ??= readCard(kit, profile, settings.target, signal).catch((error: unknown) => {
    card = undefined;
    throw error;
  }));
  return async function* reply(turn: AgentTurn) {
    const endpoint = await found(turn.signal);
    const target: UpstreamTarget = { ...settings.target, url: endpoint.url };
    const kept = record(turn.upstreamState?.value) as Handle;
    let contextId = typeof kept.contextId === 'string' ? kept.contextId : undefined;
    const save = (pending?: Handle['pending']) => turn.upstreamState?.save({ ...(contextId ? { contextId } : {}), ...(pending ? { pending } : {}) });
    const messageDigest = await digest(turn.message);

    let taskId: string | undefined;
    let text: string;
    let round = 0;
    const pending = kept.pending;
    if (pending && pending.message === messageDigest) {
      // The retry of a call whose task asked our caller a question: the answer goes to that task.
      taskId = pending.taskId;
      round = pending.round;
      text = await answerOf(kit, profile, target, turn, pending.taskId, pending.question, round);
    } else {
      // A new message while a task still waits for an answer: that task is given up.
      if (pending) void cancelTask(kit, target, pending.taskId);
      text = turn.message;
    }
    for (;;) {
      const message = {
        messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(contextId ? { contextId } : {}), ...(taskId ? { taskId } : {}),
      };
      const outcome = yield* kit.metered(turn.modelCalls, profile.id, () =>
        send(kit, profile, target, endpoint.streaming, turn, { message }, (ids) => {
          ({ contextId = contextId, taskId = taskId } = ids);
        }), turn.usage); // A2A has no usage convention: each message sent counts as one request of unknown usage.
      if (outcome.state !== 'TASK_STATE_INPUT_REQUIRED') {
        save();
        return;
      }
      round += 1;
      const question = shortLine(outcome.question, QUESTION_CHARS) || 'The agent needs more input.';
      save({ taskId: taskId!, question, round, message: messageDigest });
      text = await answerOf(kit, profile, target, turn, taskId!, question, round);
    }
  };
};

/** Our caller's answer to the task's question, asked through turn.ask; a declined question cancels the task. */
async function answerOf(kit: Kit, profile: AgentProfile, target: UpstreamTarget, turn: AgentTurn, taskId: string, question: string, round: number): Promise<string> {
  let given: unknown;
  try {
    const answer = await turn.ask.elicit({
      message: `${profile.name} asks: ${question}`,
      requestedSchema: { type: 'object', properties: { answer: { type: 'string', title: 'Your answer' } }, required: ['answer'] },
    }, `a2a-${round}`);
    given = answer.action === 'accept' ? answer.content?.answer : undefined;
  } catch (error) {
    // The caller cannot answer (no elicitation, no answer on its stream): nobody will. A question that ends this
    // round on the 2026 wire (not an AgentError) leaves the task waiting for the retry that carries the answer.
    if (error instanceof kit.AgentError) void cancelTask(kit, target, taskId);
    throw error;
  }
  if (typeof given === 'string' && given) return given;
  void cancelTask(kit, target, taskId);
  throw new kit.AgentError(`Agent ${profile.id} needed an answer to its question and got none; its task was cancelled.`);
}

/** The card's JSON-RPC interface for A2A 1.0, and whether it streams. */
async function readCard(kit: Kit, profile: AgentProfile, base: UpstreamTarget, signal: AbortSignal): Promise<Interface> {
  const target = { ...base, url: cardUrl(base.url) };
  const card = parseObject(kit, target, await readAll(await kit.getUpstream(target, signal)));
  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces.map(record) : [];
  const jsonRpc = interfaces.filter((i) => String(i.protocolBinding).toUpperCase() === 'JSONRPC' && typeof i.url === 'string');
  const chosen = jsonRpc.find((i) => String(i.protocolVersion ?? '1.0').startsWith('1.'));
  if (!chosen) {
    throw new kit.AgentError(jsonRpc.length
      ? `Agent ${profile.id}: its agent card offers A2A ${String(jsonRpc[0]!.protocolVersion)} only; agent-mcp speaks A2A 1.0.`
      : `Agent ${profile.id}: its agent card offers no JSON-RPC interface.`);
  }
  const url = String(chosen.url);
  if (!/^https?:\/\//i.test(url)) throw new kit.AgentError(`Agent ${profile.id}: its agent card names an interface URL that is not http(s).`);
  return { url, streaming: record(card.capabilities).streaming === true };
}

/** CancelTask for `taskId`, on its own clock (the call that ran it is over); a failure is the log's, not a caller's. */
async function cancelTask(kit: Kit, target: UpstreamTarget, taskId: string): Promise<void> {
  try {
    const upstream = await kit.postUpstream(target, { jsonrpc: '2.0', id: crypto.randomUUID(), method: 'CancelTask', params: { id: taskId } }, new AbortController().signal);
    await readAll(upstream);
  } catch (error) {
    console.error(`[agent-mcp] agent ${target.agentId}: cancelling its A2A task failed: ${(error as Error).message}`);
  }
}

interface Outcome {
  state: string;
  question: string;
}

/**
 * One SendStreamingMessage (or SendMessage): streams the artifacts' text and reports the ids it learns; ends at a
 * final or interrupted state. Cancelled while the task runs, the task is cancelled upstream too.
 */
async function* send(
  kit: Kit, profile: AgentProfile, target: UpstreamTarget, streaming: boolean, turn: AgentTurn, params: Json,
  learn: (ids: { contextId?: string; taskId?: string }) => void,
): AsyncGenerator<string, Outcome> {
  const request = { jsonrpc: '2.0', id: crypto.randomUUID(), method: streaming ? 'SendStreamingMessage' : 'SendMessage', params };
  let taskId: string | undefined;
  let state = '';
  let question = '';
  let replied = false;
  // The request has its own signal, not the turn's: a turn that ends before the upstream named its task hands the
  // stream on (below) rather than dropping it.
  if (turn.signal.aborted) throw kit.callCancelled(profile.id);
  const own = new AbortController();
  const events = async function* (): AsyncGenerator<Json> {
    const upstream = await kit.postUpstream(target, request, own.signal, turn.traceHeaders);
    if (!isEventStream(kit, upstream)) {
      yield parseObject(kit, target, await readAll(upstream));
      return;
    }
    for await (const data of upstream.events()) yield parseObject(kit, target, data);
  };
  const stream = events();
  let next: Promise<IteratorResult<Json>> | undefined;
  let handedOn = false;
  let stop!: (error: Error) => void;
  const ended = new Promise<never>((_, reject) => (stop = reject));
  ended.catch(ignore);
  const onEnd = () => stop(kit.callCancelled(profile.id));
  turn.signal.addEventListener('abort', onEnd, ONCE);
  const ids = (value: Json) => {
    const contextId = upstreamId(kit, profile.id, value.contextId);
    const id = upstreamId(kit, profile.id, value.taskId);
    if (id) taskId = id;
    learn({ ...(contextId ? { contextId } : {}), ...(id ? { taskId: id } : {}) });
  };
  const status = function* (value: unknown): Generator<string> {
    const { state: next, message } = record(value);
    state = String(next ?? '');
    const said = partsText(message);
    if (state === 'TASK_STATE_INPUT_REQUIRED') question = said;
    else if (state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_REJECTED') throw kit.streamError(target, said || state);
    else if (state === 'TASK_STATE_AUTH_REQUIRED') throw new kit.AgentError(`Agent ${profile.id} asked for an authorization agent-mcp cannot give it.`);
    else if (state === 'TASK_STATE_CANCELED') throw new kit.AgentError(`Agent ${profile.id}: the upstream cancelled its task.`);
    else if (state === 'TASK_STATE_COMPLETED' && said && !replied) {
      // A task that answers in its final status message rather than in an artifact.
      replied = true;
      yield said;
    } else if (said) turn.note?.(`${profile.id}: ${shortLine(said)}`);
  };
  try {
    for (;;) {
      next = stream.next();
      const step = await Promise.race([next, ended]);
      if (step.done) break;
      const response = step.value;
      if (response.error !== undefined) throw kit.streamError(target, JSON.stringify(response.error));
      const result = record(response.result);
      if (result.task) {
        const task = record(result.task);
        ids({ contextId: task.contextId, taskId: task.id });
        // A stream opens with the task as it stands (a task answered after input-required still shows that state and
        // its earlier artifacts): only its ids count there. SendMessage answers the task as a whole: its artifacts, then its status.
        if (streaming) continue;
        if (Array.isArray(task.artifacts)) {
          for (const artifact of task.artifacts) {
            const said = partsText(artifact);
            if (said) {
              replied = true;
              yield said;
            }
          }
        }
        if (task.status) yield* status(task.status);
      } else if (result.message) {
        // The agent answered with a message and no task: that is the whole reply.
        ids({ contextId: record(result.message).contextId });
        const said = partsText(result.message);
        if (said) yield said;
        return { state: 'TASK_STATE_COMPLETED', question: '' };
      } else if (result.statusUpdate) {
        const update = record(result.statusUpdate);
        ids(update);
        yield* status(update.status);
      } else if (result.artifactUpdate) {
        const update = record(result.artifactUpdate);
        ids(update);
        const artifact = record(update.artifact);
        if (update.append !== true) turn.note?.(`${profile.id}: artifact ${JSON.stringify(shortLine(String(artifact.name ?? ''), 80))}`);
        const said = partsText(artifact);
        if (said) {
          replied = true;
          yield said;
        }
      }
      if (FINAL.has(state) || INTERRUPTED.has(state)) return { state, question };
    }
    throw new kit.AgentError(`Agent ${profile.id}: the upstream stream ended before its task finished.`);
  } catch (error) {
    // The caller went away (or the turn's time ran out) while the task runs: it is cancelled upstream too. Before
    // the upstream has named the task, its stream is read on for the name, on its own clock.
    if (turn.signal.aborted && !FINAL.has(state)) {
      if (taskId) void cancelTask(kit, target, taskId);
      else if (next) {
        handedOn = true;
        void cancelWhenNamed(kit, profile, target, stream, next, own);
      }
    }
    throw error;
  } finally {
    turn.signal.removeEventListener('abort', onEnd);
    if (!handedOn) {
      own.abort();
      void stream.return(undefined).catch(ignore);
    }
  }
}

/**
 * A turn ended before its upstream named the task it started: reads on, for NAMING_WAIT_MS at most (and within the
 * request's own bounds), until an event names it, then cancels it, so no task runs on for a caller who is gone.
 */
async function cancelWhenNamed(
  kit: Kit, profile: AgentProfile, target: UpstreamTarget, stream: AsyncGenerator<Json>, next: Promise<IteratorResult<Json>>, own: AbortController,
): Promise<void> {
  const timer = setTimeout(() => own.abort(), NAMING_WAIT_MS);
  try {
    for (let step = await next; !step.done; step = await stream.next()) {
      const result = record(step.value.result);
      const named = record(result.task ?? result.statusUpdate ?? result.artifactUpdate);
      const taskId = upstreamId(kit, profile.id, named.id ?? named.taskId);
      if (!taskId) continue;
      if (!FINAL.has(String(record(named.status).state ?? ''))) void cancelTask(kit, target, taskId);
      return;
    }
  } catch {
    // The stream failed, or said nothing in time: there is no task to name.
  } finally {
    clearTimeout(timer);
    own.abort();
    void stream.return(undefined).catch(ignore);
  }
}

const ignore = () => undefined;
