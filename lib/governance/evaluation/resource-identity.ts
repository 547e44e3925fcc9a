import { type FieldError, InvalidInput } from '#lib/errors/domain-errors';

import type { ResourceIdentity } from '../../../drizzle/schema/json-columns';
import { scalarFieldOf } from './descriptor';

/** The descriptor configuration of a type; `resourceNameField` null when it has none. */
export interface DescriptorConfiguration {
  resourceNameField: string | null;
  resourceDisplayNameFields: string[];
  resourceFilterField: string | null;
}

/**
 * Who a descriptor is (seed): read from the fields the type's descriptor configuration names (the
 * caller's values, when given, must agree), or given by the caller when the type has none (the
 * id is then required).
 */
export function resourceIdentity(config: DescriptorConfiguration, descriptor: Record<string, unknown>, caller: Partial<ResourceIdentity>): ResourceIdentity {
  if (config.resourceNameField === null) {
    if (!caller.id) throw new InvalidInput([{ path: 'id', message: 'id is required: this resource type has no descriptor configuration to read it from' }]);
    return { id: caller.id, displayName: caller.displayName ?? null, version: caller.version ?? null };
  }
  const errors: FieldError[] = [];
  const id = scalarFieldOf(descriptor, config.resourceNameField);
  if (id === undefined)
    errors.push({ path: 'descriptor', message: `the descriptor has no "${config.resourceNameField}" field (the resource id of this type)` });
  const parts = config.resourceDisplayNameFields.map((field) => scalarFieldOf(descriptor, field)).filter((part) => part !== undefined);
  const displayName = parts.length > 0 ? parts.join(' ') : null;
  const version = config.resourceFilterField === null ? null : (scalarFieldOf(descriptor, config.resourceFilterField) ?? null);
  const mismatch = (field: 'id' | 'displayName' | 'version', read: string | null | undefined) => {
    if (caller[field] !== undefined && caller[field] !== null && caller[field] !== read) {
      errors.push({ path: field, message: `${field} ${JSON.stringify(caller[field])} does not match the descriptor's ${JSON.stringify(read ?? null)}` });
    }
  };
  mismatch('id', id);
  mismatch('displayName', displayName);
  mismatch('version', version);
  // A missing id is already among the errors.
  if (errors.length > 0 || id === undefined) throw new InvalidInput(errors);
  return { id, displayName, version };
}
