import {
  chatEndpoint,
  readEmbedderConfigEndpoint,
  readIndexEndpoint,
  readLlmConfigEndpoint,
  refreshIndexEndpoint,
  saveEmbedderConfigEndpoint,
  saveLlmConfigEndpoint,
} from '#lib/assistant/endpoints';
import { complianceSummaryEndpoint, complianceTrendEndpoint } from '#lib/governance/compliance/endpoints';
import { listEnvironmentsEndpoint } from '#lib/governance/environments/endpoints';
import {
  evaluateEndpoint,
  listDisagreementsEndpoint,
  listResultsEndpoint,
  readReportEndpoint,
  readReportResultsEndpoint,
} from '#lib/governance/evaluation/endpoints';
import { createExceptionEndpoint, deleteExceptionEndpoint, listExceptionsEndpoint, readExceptionEndpoint } from '#lib/governance/exceptions/endpoints';
import { metricEndpoints, passiveResultEndpoint, policyEndpoints } from '#lib/governance/policies/endpoints';
import {
  deleteResourceTypeEndpoint,
  listResourceTypesEndpoint,
  readGovernanceResourceTypeEndpoint,
  readResourceTypeEndpoint,
  registerResourceTypeEndpoint,
} from '#lib/governance/resource-types/endpoints';
import type { Endpoint } from '#lib/http/endpoint';
import { healthEndpoint, openApiEndpoint } from '#lib/service/endpoints';

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
