import { metricEndpoints } from '../../lib/governance/policies/endpoints';
import { entityHandlers } from './entity-handlers';

export const { create, list, read, versions, update, remove, publish, move, test } = entityHandlers('metric', metricEndpoints);
