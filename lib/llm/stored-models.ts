import { lazilyPer } from '#lib/cache/lazy';
import type { ServiceContext } from '#lib/db/client';
import { ConflictError, DomainError, Unavailable } from '#lib/errors/domain-errors';
import { callerTargetTimeoutsOf } from '#lib/platform/http-client';
import type { Settings } from '#lib/settings/index';

import { ApiKeyDecryptionError } from './api-key-encryption';
import { encryptionKeys, MissingEncryptionKeyError } from './encryption-key';
import type { GatewayOptions } from './llm-gateway';
import type { ModelKind } from './model-config';
import { ModelConfigRepository, type ModelConnection } from './model-config-repository';

/** How a kind of model is named in messages. */
export const LABEL: Record<ModelKind, string> = { llm: 'LLM', embedder: 'embedder' };

/** The stored configurations and how to call a provider, as this container has them. */
export interface StoredModels {
  repository: ModelConfigRepository;
  gateway: GatewayOptions;
}

/** The key ring of the settings, read once (from a file or a secret) and kept while the settings are. */
const keyRingOf = lazilyPer((settings: Settings) =>
  encryptionKeys(settings).catch((error) => {
    if (error instanceof MissingEncryptionKeyError) throw new Unavailable(error.message);
    throw error;
  }),
);

/** The stored configurations in the database, their keys read with the settings' key ring. */
export async function storedModels({ database, settings }: ServiceContext): Promise<StoredModels> {
  return {
    repository: new ModelConfigRepository(database, await keyRingOf(settings)),
    gateway: { timeouts: callerTargetTimeoutsOf(settings), retries: settings.assistant.providerRetries },
  };
}

/** The stored connection of a kind (undefined: none stored); 409 when its API key cannot be decrypted. */
export async function connectionOf(repository: ModelConfigRepository, kind: ModelKind): Promise<ModelConnection | undefined> {
  try {
    return await repository.connection(kind);
  } catch (error) {
    if (!(error instanceof ApiKeyDecryptionError)) throw error;
    throw new ConflictError(
      `The stored ${LABEL[kind]} API key cannot be decrypted with the configured encryption keys: POST /assistant/v1/${kind}/config again`,
      {
        unreadable: kind,
      },
    );
  }
}

/** The stored LLM and how to call it, or why there is none to call. */
export type LlmAccess = () => Promise<{ connection: ModelConnection; gateway: GatewayOptions } | { unavailable: string }>;

/**
 * The stored LLM and the gateway's options, the LLM policy engine's connection; `unavailable` says
 * why the LLM cannot be used (none stored, its key unreadable, no encryption key), which fails the results.
 */
export const storedLlm =
  (ctx: ServiceContext): LlmAccess =>
  async () => {
    try {
      const { repository, gateway } = await storedModels(ctx);
      const connection = await connectionOf(repository, 'llm');
      return connection ? { connection, gateway } : { unavailable: `No ${LABEL.llm} configuration is stored: POST /assistant/v1/llm/config to create it` };
    } catch (error) {
      if (error instanceof DomainError) return { unavailable: error.message };
      throw error;
    }
  };
