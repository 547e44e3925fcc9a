// Reading what evaluations found: reports and their results, CUE disagreements, compliance, impact reports.
import { routedHandler } from '#lib/service/routed-handler';

import { getComplianceSummary, getComplianceTrend } from '../governance/compliance';
import { getEvaluationReport, getEvaluationReportResults, listCueDisagreements, listResults } from '../governance/evaluation';
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
);
