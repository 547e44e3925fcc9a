// What policies apply to: the resource types and the platform's environments.
import { routedHandler } from '#lib/service/routed-handler';

import { listEnvironments } from '../governance/environments';
import { deleteResourceType, getGovernanceResourceType, getResourceType, listResourceTypes, registerResourceType } from '../governance/resource-types';

export const handler = routedHandler(registerResourceType, listResourceTypes, getResourceType, getGovernanceResourceType, deleteResourceType, listEnvironments);
