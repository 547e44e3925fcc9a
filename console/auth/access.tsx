import { type ComponentChildren, createContext } from 'preact';
import { useContext } from 'preact/hooks';

import type { Permission } from '#lib/authorization/roles';

import { type Me, readMe } from '../api/access';
import { ProblemNotice } from '../components/problem';
import { useApi } from '../use-api';

export interface CallerAccess {
  /** The caller (GET /me); absent when it could not be read. */
  readonly me?: Me;
  /** Why /me could not be read (the layout shows it). */
  readonly error?: unknown;
  /**
   * Whether the caller holds the permission somewhere: the console offers the action then. Where
   * (which resource types and environments) is the API's check; a refusal is shown as its problem.
   * When /me could not be read, every action is offered and the API decides.
   */
  can(permission: Permission): boolean;
}

const AccessContext = createContext<CallerAccess>({ can: () => true });

/** The signed-in caller's access, read by AccessProvider. */
export const useAccess = () => useContext(AccessContext);

/**
 * Reads GET /me once for the tab's credentials (App keys it by them: other credentials read it
 * again) and renders its children once it has answered, so that no page shows an action the
 * caller's roles do not give, not even for a moment. A 401 signs out as any call does.
 */
export function AccessProvider({ children }: { children: ComponentChildren }) {
  const me = useApi((signal) => readMe(signal), []);
  if (me.loading)
    return (
      <p class="loading" role="status">
        Reading your permissions…
      </p>
    );
  const permissions = new Set<string>(me.data?.permissions ?? []);
  const access: CallerAccess = me.data ? { me: me.data, can: (permission) => permissions.has(permission) } : { error: me.error, can: () => true };
  return <AccessContext.Provider value={access}>{children}</AccessContext.Provider>;
}

/** When /me could not be read: why, and that the console offers everything meanwhile. */
export function AccessUnknown() {
  const { error } = useAccess();
  if (!error) return null;
  return (
    <div class="access-unknown">
      <ProblemNotice error={error} />
      <p class="hint">Your permissions could not be read: every action is offered, and the API decides.</p>
    </div>
  );
}

/** A note where actions are left out: what, and the permission they need, which the caller's roles do not give. */
export function Withheld({ permission, children }: { permission: Permission; children: ComponentChildren }) {
  const { me, can } = useAccess();
  if (can(permission)) return null;
  return (
    <p class="hint withheld" data-permission={permission}>
      Not offered: {children} (needs <code>{permission}</code>; your roles: {me?.roles.join(', ') || 'none'}).
    </p>
  );
}
