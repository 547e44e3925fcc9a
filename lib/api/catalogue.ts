import {
  chatEndpoint,
  readEmbedderConfigEndpoint,
  readIndexEndpoint,
  readLlmConfigEndpoint,
  refreshIndexEndpoint,
  saveEmbedderConfigEndpoint,
  saveLlmConfigEndpoint,
} from '../assistant/endpoints';
import { complianceSummaryEndpoint, complianceTrendEndpoint } from '../governance/compliance/endpoints';
import { listEnvironmentsEndpoint } from '../governance/environments/endpoints';
import {
  evaluateEndpoint,
  listDisagreementsEndpoint,
  listResultsEndpoint,
  readReportEndpoint,
  readReportResultsEndpoint,
} from '../governance/evaluation/endpoints';
import { createExceptionEndpoint, deleteExceptionEndpoint, listExceptionsEndpoint, readExceptionEndpoint } from '../governance/exceptions/endpoints';
import { metricEndpoints, passiveResultEndpoint, policyEndpoints } from '../governance/policies/endpoints';
import {
  deleteResourceTypeEndpoint,
  listResourceTypesEndpoint,
  readGovernanceResourceTypeEndpoint,
  readResourceTypeEndpoint,
  registerResourceTypeEndpoint,
} from '../governance/resource-types/endpoints';
import type { Endpoint } from '../http/endpoint';
import { healthEndpoint, openApiEndpoint } from '../service/endpoints';

/** Every published endpoint of both services; the OpenAPI document is generated from this list. */
export const catalogue: readonly Endpoint[] = [
  healthEndpoint,
  openApiEndpoint,
  readLlmConfigEndpoint,
  saveLlmConfigEndpoint,
  readEmbedderConfigEndpoint,
  saveEmbedderConfigEndpoint,
  chatEndpoint,
  refreshIndexEndpoint,
  readIndexEndpoint,
  registerResourceTypeEndpoint,
  listResourceTypesEndpoint,
  readResourceTypeEndpoint,
  readGovernanceResourceTypeEndpoint,
  deleteResourceTypeEndpoint,
  listEnvironmentsEndpoint,
  ...Object.values(policyEndpoints),
  passiveResultEndpoint,
  ...Object.values(metricEndpoints),
  evaluateEndpoint,
  readReportEndpoint,
  readReportResultsEndpoint,
  listResultsEndpoint,
  listDisagreementsEndpoint,
  complianceSummaryEndpoint,
  complianceTrendEndpoint,
  createExceptionEndpoint,
  listExceptionsEndpoint,
  readExceptionEndpoint,
  deleteExceptionEndpoint,
];
