/** The statuses of a policy or metric. */
export const STATUSES = ['draft', 'grace', 'enabled', 'disabled'] as const;
export type EntityStatus = (typeof STATUSES)[number];

/** The moves of the contract; publish (to `enabled`) is allowed from any status. */
const MOVES: Record<EntityStatus, readonly EntityStatus[]> = {
  draft: ['grace', 'enabled'],
  grace: ['enabled'],
  enabled: ['disabled', 'grace'],
  disabled: ['enabled'],
};

export const canMove = (from: EntityStatus, to: EntityStatus): boolean => MOVES[from].includes(to);

export const allowedMoves = (from: EntityStatus): readonly EntityStatus[] => MOVES[from];

/** Statuses whose entities are evaluated. */
export const ACTIVE_STATUSES: readonly EntityStatus[] = ['enabled', 'grace'];
