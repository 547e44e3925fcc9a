import { engineFailure, type EngineResult } from '../engine';
import { attribute, type RunEntity, runJob, runNames, type RunStep } from './cue-batch';
import { parseCueMessages } from './cue-messages';
import { ABORTED_MESSAGE, CueRunFailure, type CueRunner } from './cue-runner';
import type { PolicySource } from './policy-source';

export interface BatchEntity {
  readonly index: number;
  readonly source: PolicySource;
  readonly metric: boolean;
}

/** Policies (and metrics) of one mode, over some resources: what one series of CUE runs covers. */
export interface Batch {
  readonly requireConcrete: boolean;
  readonly entities: readonly BatchEntity[];
  readonly resources: readonly number[];
}

export type Settle = (entity: number, resource: number, result: EngineResult) => void;

const COMPLIANT: EngineResult = { satisfiesPolicy: true, isError: false, errors: [] };

/**
 * Evaluates a batch with as few runs as CUE's reporting allows (see cue-batch.ts), settling every
 * (entity, resource) pair exactly once:
 *
 * - A run's messages go to their pair (a violation), to a whole policy (it does not compile, or
 *   is not a struct: an error result for all its pairs) or, when they name neither, the batch is
 *   split (per policy, then halves of the resources) until they do.
 * - Settled pairs leave the run and the rest runs again while the answer may be incomplete:
 *   after conflicts under `vet -c` (missing fields were not reported yet), after a policy-level
 *   error (it may have hidden everything else), or while metrics still wait for their values.
 * - A run that gives no verdict (timeout, crash, output cap) fails the pairs it covered.
 */
export async function evaluateBatch(
  runner: CueRunner,
  batch: Batch,
  descriptorText: (resource: number) => string,
  settle: Settle,
  signal?: AbortSignal,
): Promise<void> {
  const pending = new Map(batch.entities.map((entity) => [entity.index, new Set(batch.resources)]));
  const byIndex = new Map(batch.entities.map((entity) => [entity.index, entity]));

  const done = (entity: number, resource: number, result: EngineResult) => {
    if (pending.get(entity)?.delete(resource)) settle(entity, resource, result);
  };
  const pairsOf = (entities: readonly number[], resources: readonly number[]) =>
    entities.flatMap((entity) => resources.filter((resource) => pending.get(entity)?.has(resource)).map((resource) => [entity, resource] as const));

  async function runUntilSettled(step: RunStep, entities: readonly number[], resources: readonly number[]): Promise<void> {
    for (;;) {
      const active = entities.filter((entity) => pairsOf([entity], resources).length > 0);
      // Under `vet`, metrics stay pending for their values once their verdict is known.
      if (active.length === 0) return;
      if (signal?.aborted) {
        for (const [entity, resource] of pairsOf(active, resources)) done(entity, resource, engineFailure(ABORTED_MESSAGE));
        return;
      }
      const names = runNames();
      const runEntities: RunEntity[] = active.map((index) => {
        const entity = byIndex.get(index) as BatchEntity;
        return { index, source: entity.source, metric: entity.metric, resources: resources.filter((resource) => pending.get(index)?.has(resource)) };
      });
      let output: Awaited<ReturnType<CueRunner['run']>>;
      try {
        output = await runner.run(runJob(names, step, runEntities, descriptorText), signal);
      } catch (error) {
        const message = error instanceof CueRunFailure ? error.message : `the CUE run failed: ${(error as Error).message}`;
        for (const [entity, resource] of pairsOf(active, resources)) done(entity, resource, engineFailure(message));
        return;
      }

      if (output.code === 0) {
        settleExported(step, runEntities, output.stdout);
        return;
      }
      const messages = parseCueMessages(output.stderr);
      if (messages.length === 0) {
        const printed = `${output.stderr}${output.stdout}`.trim().slice(0, 500);
        for (const [entity, resource] of pairsOf(active, resources))
          done(entity, resource, engineFailure(`cue exited with code ${output.code}${printed ? `: ${printed}` : ''}`));
        return;
      }
      const attributions = messages.map((message) => attribute(names, message, byIndex));
      const unplaced = attributions.filter((attribution) => attribution.to === 'nobody');
      if (unplaced.length > 0) {
        await split(
          step,
          active,
          resources,
          unplaced.map((attribution) => attribution.message),
        );
        return;
      }

      const entityErrors = new Map<number, string[]>();
      const pairErrors = new Map<string, { entity: number; resource: number; errors: string[] }>();
      let sentinel = false;
      for (const attribution of attributions) {
        if (attribution.to === 'sentinel') sentinel = true;
        else if (attribution.to === 'entity') {
          const errors = entityErrors.get(attribution.entity) ?? [];
          if (!errors.includes(attribution.message)) errors.push(attribution.message);
          entityErrors.set(attribution.entity, errors);
        } else if (attribution.to === 'pair') {
          const key = `${attribution.entity}/${attribution.resource}`;
          const pair = pairErrors.get(key) ?? { entity: attribution.entity, resource: attribution.resource, errors: [] };
          pair.errors.push(attribution.message);
          pairErrors.set(key, pair);
        }
      }
      for (const [entity, errors] of entityErrors) {
        for (const [, resource] of pairsOf([entity], resources)) done(entity, resource, { satisfiesPolicy: false, isError: true, errors });
      }
      for (const { entity, resource, errors } of pairErrors.values()) done(entity, resource, { satisfiesPolicy: false, isError: false, errors });

      // What was not reported passed, when the report was complete for it.
      const complete = step === 'vet' ? sentinel : entityErrors.size === 0;
      if (complete) {
        for (const index of active) {
          if (!(byIndex.get(index) as BatchEntity).metric) for (const [, resource] of pairsOf([index], resources)) done(index, resource, COMPLIANT);
        }
        if (step === 'vet') return;
      } else if (entityErrors.size === 0 && pairErrors.size === 0) {
        // Cannot happen with the reporting observed; never loop on it.
        for (const [entity, resource] of pairsOf(active, resources))
          done(
            entity,
            resource,
            engineFailure(
              `CUE reported only: ${messages
                .map((message) => message.text)
                .join('; ')
                .slice(0, 500)}`,
            ),
          );
        return;
      }
    }
  }

  function settleExported(step: RunStep, runEntities: readonly RunEntity[], stdout: string): void {
    let values: Record<string, Record<string, unknown>> = {};
    if (step === 'export') {
      try {
        values = JSON.parse(stdout);
      } catch {
        for (const { index, resources } of runEntities)
          for (const resource of resources) done(index, resource, engineFailure('cue export printed something other than JSON'));
        return;
      }
    }
    for (const { index, metric, resources } of runEntities) {
      if (metric && step === 'vet') continue;
      for (const resource of resources) {
        if (!metric) {
          done(index, resource, COMPLIANT);
          continue;
        }
        const value = values[`v${index}`]?.[`r${resource}`];
        done(
          index,
          resource,
          typeof value === 'number' && Number.isFinite(value)
            ? { ...COMPLIANT, value }
            : { satisfiesPolicy: false, isError: false, errors: [`value: expected a finite number, got ${JSON.stringify(value) ?? 'nothing'}`] },
        );
      }
    }
  }

  /** Messages that name no policy and no resource: narrow the run down until they do. */
  async function split(step: RunStep, active: readonly number[], resources: readonly number[], unplaced: readonly string[]): Promise<void> {
    if (active.length > 1) {
      for (const entity of active) await runUntilSettled(step, [entity], resources);
      return;
    }
    const left = resources.filter((resource) => pending.get(active[0])?.has(resource));
    if (left.length > 1) {
      const half = Math.ceil(left.length / 2);
      await runUntilSettled(step, active, left.slice(0, half));
      await runUntilSettled(step, active, left.slice(half));
      return;
    }
    for (const [entity, resource] of pairsOf(active, left)) done(entity, resource, { satisfiesPolicy: false, isError: true, errors: [...unplaced] });
  }

  const all = batch.entities.map((entity) => entity.index);
  if (batch.requireConcrete) {
    await runUntilSettled('vet', all, batch.resources);
    await runUntilSettled(
      'export',
      all.filter((index) => (byIndex.get(index) as BatchEntity).metric),
      batch.resources,
    );
  } else {
    await runUntilSettled('export', all, batch.resources);
  }
}
