// The MCP server for coding agents at /mcp (docs/mcp.md): the operations its tools perform are served
// in process by their own handlers, as the request's caller.
import { httpHandler } from '#lib/http/handler';
import { HttpProblem } from '#lib/http/problems';
import { deleteMcpEndpoint, getMcpEndpoint, postMcpEndpoint } from '#lib/mcp/endpoints';
import { answerMcp } from '#lib/mcp/http-transport';
import { inProcessCaller } from '#lib/mcp/in-process-caller';
import { routedHandler } from '#lib/service/routed-handler';

import { proposeDescriptorFix } from '../assistant/descriptor-fixes';
import { getApproval } from '../governance/approvals';
import { evaluate, getEvaluationReport, getEvaluationReportResults, listResults } from '../governance/evaluation';
import { createException, listExceptions } from '../governance/exceptions';
import { getImpactReport } from '../governance/impact-reports';
import { getMetric, impactOfMetric, listMetric, listVersionsOfMetric } from '../governance/metrics';
import { getPolicy, impactOfPolicy, listPolicy, listVersionsOfPolicy } from '../governance/policies';

const OPERATIONS = [
  listPolicy,
  getPolicy,
  listVersionsOfPolicy,
  listMetric,
  getMetric,
  listVersionsOfMetric,
  evaluate,
  getEvaluationReport,
  getEvaluationReportResults,
  listResults,
  createException,
  listExceptions,
  impactOfPolicy,
  impactOfMetric,
  getImpactReport,
  getApproval,
  proposeDescriptorFix,
];

const notServed = () => {
  throw new HttpProblem(405, 'Method Not Allowed', 'The MCP server is stateless: only POST is served', { headers: { allow: 'POST' } });
};

const postMcp = httpHandler(postMcpEndpoint, async (request) => answerMcp(request, (from) => inProcessCaller(OPERATIONS, from)), { changesNothing: true });

export const handler = routedHandler(postMcp, httpHandler(getMcpEndpoint, notServed), httpHandler(deleteMcpEndpoint, notServed));
