import { SENT_FOR_APPROVAL } from '#lib/authorization/approval';
import { endpoint } from '#lib/http/endpoint';
import { modelConfigInput, modelConfigRepresentation, type ModelKind } from '#lib/llm/model-config';

import { chatAnswer, chatRequest, descriptorFix, descriptorFixRequest, verifyQuery } from './assistant-contracts';
import { indexRefreshAnswer, knowledgeIndexState } from './knowledge/knowledge-api';

const label: Record<ModelKind, string> = { llm: 'LLM', embedder: 'embedder' };

const readConfig = <K extends ModelKind>(kind: K) =>
  endpoint({
    operationId: `get${kind === 'llm' ? 'Llm' : 'Embedder'}Config`,
    access: { permission: 'governance:read', scope: 'anywhere' },
    method: 'GET',
    path: `/assistant/v1/${kind}/config`,
    summary: `The stored ${label[kind]} configuration (API key masked)`,
    tags: ['assistant'],
    responses: {
      200: { description: `The ${label[kind]} configuration`, schema: modelConfigRepresentation },
      404: { description: `No ${label[kind]} configuration is stored yet` },
    },
  });

const saveConfig = <K extends ModelKind>(kind: K) =>
  endpoint({
    operationId: `save${kind === 'llm' ? 'Llm' : 'Embedder'}Config`,
    access: { permission: 'models:manage', scope: 'everywhere' },
    method: 'POST',
    path: `/assistant/v1/${kind}/config`,
    summary: `Create or replace the ${label[kind]} configuration; ?verify=true first makes one minimal call to the provider`,
    tags: ['assistant'],
    query: verifyQuery,
    body: modelConfigInput,
    responses: {
      200: { description: 'Replaced; the configuration as stored', schema: modelConfigRepresentation },
      201: { description: 'Created; the configuration as stored', schema: modelConfigRepresentation },
      202: SENT_FOR_APPROVAL,
      422: { description: 'verify=true and the provider refused the configuration; nothing was stored' },
    },
  });

export const getLlmConfigEndpoint = readConfig('llm');
export const saveLlmConfigEndpoint = saveConfig('llm');
export const getEmbedderConfigEndpoint = readConfig('embedder');
export const saveEmbedderConfigEndpoint = saveConfig('embedder');

/** What every endpoint that needs both configurations and calls the provider may answer besides its own. */
const MISSING_CONFIGURATION = { 409: { description: 'The LLM or the embedder configuration is missing (named in the body)' } };
const providerFailures = (provider: string) => ({
  502: { description: `The ${provider} failed; \`upstreamStatus\` carries its HTTP status` },
  504: { description: `The ${provider} did not answer within http.client-*-timeout` },
});

export const chatEndpoint = endpoint({
  operationId: 'chat',
  access: { permission: 'assistant:chat', scope: 'anywhere' },
  method: 'POST',
  path: '/assistant/v1/llm/chat',
  summary: "Ask the assistant: the knowledge index's chunks closest to the query go to the configured LLM, which answers from them",
  tags: ['assistant'],
  body: chatRequest,
  responses: {
    200: { description: "The model's answer, the sources it was grounded on, and the conversation's id", schema: chatAnswer },
    404: { description: 'conversationId names no conversation of the caller' },
    ...MISSING_CONFIGURATION,
    ...providerFailures('provider'),
  },
});

export const refreshKnowledgeIndexEndpoint = endpoint({
  operationId: 'refreshKnowledgeIndex',
  access: { permission: 'knowledge-index:refresh', scope: 'everywhere' },
  method: 'POST',
  path: '/assistant/v1/index/refresh',
  summary: "Bring the assistant's knowledge index up to date now: read every source, embed what changed, remove what is gone",
  tags: ['assistant'],
  responses: {
    200: { description: 'What the refresh did', schema: indexRefreshAnswer },
    409: {
      description:
        'The LLM or the embedder configuration is missing (named in the body); or the index would hold more than ' +
        'assistant.index.max-chunks chunks: what fitted was indexed, the rest refused (`setting`, `maxChunks`, `refused` and the counts in the body)',
    },
    ...providerFailures('embedder'),
  },
});

export const readKnowledgeIndexEndpoint = endpoint({
  operationId: 'readKnowledgeIndex',
  access: { permission: 'governance:read', scope: 'anywhere' },
  method: 'GET',
  path: '/assistant/v1/index',
  summary: "The assistant's knowledge index: chunks per source type, the embedder model, the last refresh",
  tags: ['assistant'],
  responses: {
    200: { description: 'The index', schema: knowledgeIndexState },
    ...MISSING_CONFIGURATION,
  },
});

export const proposeDescriptorFixEndpoint = endpoint({
  operationId: 'proposeDescriptorFix',
  access: { permission: 'evaluations:run', scope: 'resource' },
  method: 'POST',
  path: '/assistant/v1/descriptor-fixes',
  summary:
    'Propose a fix of a descriptor that fails what is in force for its type and environment: the LLM proposes, the platform re-checks each proposal ' +
    "(a dry run) and answers only one that passes, as a JSON Patch and a diff (docs/mcp.md, propose_fix). Saves nothing but the checks' dry-run reports",
  tags: ['assistant'],
  body: descriptorFixRequest,
  responses: {
    200: { description: 'A fix that passes every policy in force (or the descriptor as it was, when it passed already)', schema: descriptorFix },
    409: { description: 'No LLM configuration is stored' },
    422: { description: 'No proposal passed within assistant.tools.fix-rounds: `checks` and `lastFailures` say what failed' },
    ...providerFailures('LLM'),
  },
});
