import { describe, expect, it, vi } from 'vitest';

import type { ServiceContext } from '#lib/db/client';

// The delivery in the background after a call (lib/outbox/background-dispatch.ts): what happens, in
// order, when calls keep coming while a round delivers. The waits and the deliveries are held by
// the test, so that the order, not the time, is what is checked.
const steps: string[] = [];
const held: Array<() => void> = [];
const hold = (step: string) =>
  new Promise<void>((resolve) => {
    steps.push(step);
    held.push(resolve);
  });
const releaseNext = () => held.shift()?.();

vi.mock('node:timers/promises', () => ({ setTimeout: () => hold('wait') }));
vi.mock('#lib/outbox/outbox-dispatcher', () => ({ dispatchOutbox: () => hold('deliver'), platformDelivery: () => ({}) }));

const { backgroundDispatchSettled, dispatchInBackground } = await import('#lib/outbox/background-dispatch');
const ctx = { database: {}, settings: {} } as unknown as ServiceContext;

describe('delivery in the background', () => {
  it('gathers the calls that follow: a call during the wait joins the round; a call during a delivery makes the next round wait before it delivers', async () => {
    dispatchInBackground(ctx);
    await vi.waitFor(() => expect(steps).toEqual(['wait']));
    dispatchInBackground(ctx);
    await releaseNext();
    await vi.waitFor(() => expect(steps).toEqual(['wait', 'deliver']));
    dispatchInBackground(ctx);
    await releaseNext();
    await vi.waitFor(() => expect(steps).toEqual(['wait', 'deliver', 'wait']));
    await releaseNext();
    await vi.waitFor(() => expect(steps).toEqual(['wait', 'deliver', 'wait', 'deliver']));
    await releaseNext();
    await backgroundDispatchSettled();
    expect(steps).toEqual(['wait', 'deliver', 'wait', 'deliver']);
  });
});
