import { DomainError, InvalidInput } from '#lib/errors/domain-errors';
import { fieldErrors } from '#lib/http/problem-response';
import { chat, type ChatAnswer, type ChatMessage, ProviderError, type ToolCall } from '#lib/llm/llm-gateway';
import type { ModelConnection } from '#lib/llm/model-config-repository';
import type { Logger } from '#lib/logging/logger';

import type { CuePolicyDraft } from '../assistant-contracts';
import { type AssistantTool, definitionOf, type ToolContext } from './assistant-tool';
import { draftCuePolicy } from './cue-policy-draft';
import { explainResult, findPolicies, latestResults } from './governance-tools';

const TOOLS = new Map<string, AssistantTool>([findPolicies, latestResults, explainResult, draftCuePolicy].map((tool) => [tool.name, tool as AssistantTool]));
const DEFINITIONS = [...TOOLS.values()].map(definitionOf);

/** Calls of one round run, in order; the model is told the others were refused (a draft costs several LLM calls). */
const MAX_CALLS_PER_ROUND = 5;

/** How a tool call ended, as the log says. */
type ToolCallOutcome = 'ok' | 'unknown-tool' | 'invalid-arguments' | 'refused' | 'failed';

interface ToolCallAnswer {
  readonly outcome: ToolCallOutcome;
  /** The tool message's content: the result, or `{ "error" }`, as JSON. */
  readonly content: string;
  readonly draft?: CuePolicyDraft;
}

const failure = (outcome: ToolCallOutcome, error: string, errors?: unknown): ToolCallAnswer => ({
  outcome,
  content: JSON.stringify({ error, ...(errors === undefined ? {} : { errors }) }),
});

/**
 * One call as the model asked for it: the tool found, its arguments read and checked, then run.
 * What the model got wrong (an unknown tool, arguments that are no JSON or do not fit) and what
 * the tool refused (a policy that does not exist, a sample that does not parse, the provider failing
 * a draft) go back to the model as an error it can act on; anything else fails the request.
 */
async function runToolCall(call: ToolCall, context: ToolContext): Promise<ToolCallAnswer> {
  const tool = TOOLS.get(call.function.name);
  if (!tool) return failure('unknown-tool', `No tool is named "${call.function.name}"; the tools are ${[...TOOLS.keys()].join(', ')}`);
  let json: unknown;
  try {
    json = JSON.parse(call.function.arguments || '{}');
  } catch (error) {
    return failure('invalid-arguments', `The arguments are not JSON: ${(error as Error).message}`);
  }
  const args = tool.arguments.safeParse(json);
  if (!args.success) return failure('invalid-arguments', `The arguments do not fit the schema of ${tool.name}`, fieldErrors(args.error.issues));
  try {
    const { result, draft } = await tool.run(args.data, context);
    return { outcome: 'ok', content: JSON.stringify(result), draft };
  } catch (error) {
    if (error instanceof DomainError) return failure('refused', error.message, error instanceof InvalidInput ? error.errors : undefined);
    if (error instanceof ProviderError) return failure('failed', error.message);
    throw error;
  }
}

/** Token counts of every round, summed. */
function addUsage(total: Record<string, unknown>, usage: Record<string, unknown>): Record<string, unknown> {
  const sum = { ...total };
  for (const [key, value] of Object.entries(usage)) if (typeof value === 'number') sum[key] = (typeof sum[key] === 'number' ? (sum[key] as number) : 0) + value;
  return sum;
}

export interface ToolRounds {
  /** assistant.tools.max-rounds: model turns that may call tools; 0 offers none. */
  readonly maxRounds: number;
  /** The request's logger: every tool call is logged with its name, duration and outcome. */
  readonly log: Logger;
}

/**
 * Asks the model, offering the tools: while it answers with tool calls (at most `maxRounds` times),
 * each call is run and its result goes back as a `tool` message (JSON: data, never instructions);
 * then the model must answer. The answer's usage sums every round; `draft` is the last policy drafted.
 */
export async function chatWithTools(
  llm: ModelConnection,
  messages: readonly ChatMessage[],
  context: ToolContext,
  { maxRounds, log }: ToolRounds,
): Promise<ChatAnswer & { draft?: CuePolicyDraft }> {
  const conversation = [...messages];
  let usage: Record<string, unknown> = {};
  let draft: CuePolicyDraft | undefined;
  for (let round = 1; ; round++) {
    const tools = maxRounds === 0 ? undefined : { definitions: DEFINITIONS, toolChoice: round > maxRounds ? ('none' as const) : ('auto' as const) };
    const reply = await chat(llm, conversation, context.gateway, tools);
    usage = addUsage(usage, reply.usage);
    if (reply.toolCalls === undefined) return { answer: reply.answer, model: reply.model, usage, ...(draft ? { draft } : {}) };
    conversation.push({ role: 'assistant', content: null, tool_calls: reply.toolCalls });
    for (const [index, call] of reply.toolCalls.entries()) {
      const started = performance.now();
      const answer =
        index < MAX_CALLS_PER_ROUND
          ? await runToolCall(call, context)
          : failure('refused', `At most ${MAX_CALLS_PER_ROUND} tool calls are run per turn: call it again in the next one`);
      // Never the arguments: a descriptor or a requirement may hold anything.
      log.info(
        {
          tool: call.function.name.slice(0, 64),
          toolCallId: call.id.slice(0, 64),
          round,
          durationMs: Math.round(performance.now() - started),
          outcome: answer.outcome,
        },
        'assistant tool call',
      );
      draft = answer.draft ?? draft;
      conversation.push({ role: 'tool', tool_call_id: call.id, content: answer.content });
    }
  }
}
