import {
  chatEndpoint,
  getEmbedderConfigEndpoint,
  getLlmConfigEndpoint,
  proposeDescriptorFixEndpoint,
  readKnowledgeIndexEndpoint,
  refreshKnowledgeIndexEndpoint,
  saveEmbedderConfigEndpoint,
  saveLlmConfigEndpoint,
} from '#lib/assistant/endpoints';
import { createCheckpointEndpoint, listAuditRecordsEndpoint, listCheckpointsEndpoint } from '#lib/audit/endpoints';
import { createRoleBindingEndpoint, deleteRoleBindingEndpoint, getMeEndpoint, listRoleBindingsEndpoint } from '#lib/authorization/endpoints';
import { approveRequestEndpoint, getApprovalEndpoint, listApprovalsEndpoint, rejectRequestEndpoint } from '#lib/governance/approvals/endpoints';
import { getComplianceSummaryEndpoint, getComplianceTrendEndpoint } from '#lib/governance/compliance/endpoints';
import { listEnvironmentsEndpoint } from '#lib/governance/environments/endpoints';
import {
  evaluateEndpoint,
  getEvaluationReportEndpoint,
  getEvaluationReportResultsEndpoint,
  listCueDisagreementsEndpoint,
  listResultsEndpoint,
} from '#lib/governance/evaluation/endpoints';
import { createEvidenceEndpoint, getEvidenceEndpoint, getEvidencePackEndpoint, listEvidenceEndpoint } from '#lib/governance/evidence/endpoints';
import { createExceptionEndpoint, deleteExceptionEndpoint, getExceptionEndpoint, listExceptionsEndpoint } from '#lib/governance/exceptions/endpoints';
import { getImpactReportEndpoint, listImpactResourcesEndpoint } from '#lib/governance/impact/endpoints';
import { metricEndpoints, policyEndpoints, recordPassiveResultEndpoint } from '#lib/governance/policies/endpoints';
import {
  deleteResourceTypeEndpoint,
  getGovernanceResourceTypeEndpoint,
  getResourceTypeEndpoint,
  listResourceTypesEndpoint,
  registerResourceTypeEndpoint,
} from '#lib/governance/resource-types/endpoints';
import type { Endpoint } from '#lib/http/endpoint';
import { deleteMcpEndpoint, getMcpEndpoint, postMcpEndpoint } from '#lib/mcp/endpoints';
import { getHealthEndpoint, getOpenApiDocumentEndpoint } from '#lib/service/endpoints';

/** Every published endpoint of both services; the OpenAPI document is generated from this list. */
export const catalogue: readonly Endpoint[] = [
  getHealthEndpoint,
  getOpenApiDocumentEndpoint,
  getLlmConfigEndpoint,
  saveLlmConfigEndpoint,
  getEmbedderConfigEndpoint,
  saveEmbedderConfigEndpoint,
  chatEndpoint,
  proposeDescriptorFixEndpoint,
  refreshKnowledgeIndexEndpoint,
  readKnowledgeIndexEndpoint,
  registerResourceTypeEndpoint,
  listResourceTypesEndpoint,
  getResourceTypeEndpoint,
  getGovernanceResourceTypeEndpoint,
  deleteResourceTypeEndpoint,
  listEnvironmentsEndpoint,
  ...Object.values(policyEndpoints),
  recordPassiveResultEndpoint,
  ...Object.values(metricEndpoints),
  getImpactReportEndpoint,
  listImpactResourcesEndpoint,
  evaluateEndpoint,
  getEvaluationReportEndpoint,
  getEvaluationReportResultsEndpoint,
  listResultsEndpoint,
  listCueDisagreementsEndpoint,
  getComplianceSummaryEndpoint,
  getComplianceTrendEndpoint,
  createExceptionEndpoint,
  listExceptionsEndpoint,
  getExceptionEndpoint,
  deleteExceptionEndpoint,
  listApprovalsEndpoint,
  getApprovalEndpoint,
  approveRequestEndpoint,
  rejectRequestEndpoint,
  getMeEndpoint,
  listRoleBindingsEndpoint,
  createRoleBindingEndpoint,
  deleteRoleBindingEndpoint,
  listAuditRecordsEndpoint,
  createCheckpointEndpoint,
  listCheckpointsEndpoint,
  createEvidenceEndpoint,
  listEvidenceEndpoint,
  getEvidenceEndpoint,
  getEvidencePackEndpoint,
  postMcpEndpoint,
  getMcpEndpoint,
  deleteMcpEndpoint,
];
