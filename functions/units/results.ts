// Reading what evaluations found: reports and their results, CUE disagreements, compliance, impact reports, evidence packs.
import { routedHandler } from '#lib/service/routed-handler';

import { getComplianceSummary, getComplianceTrend } from '../governance/compliance';
import { getEvaluationReport, getEvaluationReportResults, listCueDisagreements, listResults } from '../governance/evaluation';
import { createEvidencePack, downloadEvidencePack, getEvidencePack, listEvidencePacks } from '../governance/evidence';
import { getImpactReport, listImpactResources } from '../governance/impact-reports';

export const handler = routedHandler(
  getEvaluationReport,
  getEvaluationReportResults,
  listResults,
  listCueDisagreements,
  getComplianceSummary,
  getComplianceTrend,
  getImpactReport,
  listImpactResources,
  createEvidencePack,
  listEvidencePacks,
  getEvidencePack,
  downloadEvidencePack,
);
