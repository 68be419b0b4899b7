/**
 * What a format's stand-in gives the contract suite (suite.ts): where agent-mcp reaches it, the messages that make
 * it behave one way or another, and what it saw. A stand-in is a real server speaking the format's wire, proven
 * faithful in the format's own test file by the vendor's client where one exists.
 */

import { secretsText } from '../../support/upstream.js';

/** The key agent-mcp is configured with for every stand-in (the `apiKeyEnv` of the agent the suite configures). */
export const CONTRACT_KEY = 'sk-contract-key-0123456789abcdef';

/** The error text a stand-in's HTTP 500 carries: the key it was sent and secrets no block-list finds (upstream.ts). */
export const CONTRACT_ERROR = secretsText(CONTRACT_KEY);

/** How the reply's text reaches the caller as progress: in pieces while the upstream writes, or once, whole. */
export type ProgressKind = 'streams' | 'whole';

/** A format's stand-in as its test file declares it: what the format can do (known before anything starts), and how to start it. */
export interface StandIn {
  /** How the reply's text reaches the caller as progress. */
  progress: ProgressKind;
  /** Why the format has no error inside a 2xx reply, when it has none (the suite then names the reason instead of checking). */
  noErrorInReply?: string;
  /**
   * What the format's upstream says of the tokens an ordinary reply spent: `reported` (the stand-in reports usage as
   * the vendor's API does), or why the format has no way to say it (its requests are then counted as unknown).
   */
  usage: 'reported' | { unknown: string };
  start(): Promise<RunningStandIn>;
}

/** A started stand-in. */
export interface RunningStandIn {
  /** The AGENTS entry's settings besides id, format and apiKeyEnv: `url`, and `model` where the format needs one. */
  settings: Record<string, unknown>;
  says: {
    /** The reply to an ordinary `message`, the `turn`th of a conversation (1 for the first): the turn shows the history reached it. */
    reply(message: string, turn: number): string | RegExp;
    /** The message whose progress the suite watches: for a `streams` format, answered over about a second, its text in pieces. */
    streamed(marker: string): string;
    /** A message whose reply takes seconds or longer to end: the one the suite cancels. */
    long(marker: string): string;
    /** A message answered with HTTP 500 whose body holds CONTRACT_ERROR.text (the key as it was sent to it). */
    serverError: string;
    /** A message answered with an error inside a 2xx reply (an error event, a failed task) holding `secret` (absent with noErrorInReply). */
    errorInReply?: { message: string; secret: string };
    /** A message whose reply is at least `bytes` bytes on the wire. */
    huge(bytes: number): string;
  };
  /** True once the stand-in received a request whose last user text is `text`. */
  received(text: string): Promise<boolean>;
  /** True once the stand-in saw the request for `text` end before its reply did (the connection closed, or its task cancelled). */
  aborted(text: string): Promise<boolean>;
  /** Stops what `start` started (absent when the stand-in belongs to the test file that lent it). */
  close?(): Promise<void>;
}
