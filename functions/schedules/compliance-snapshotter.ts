import { recordComplianceDays } from '#lib/governance/compliance/compliance-service';
import { governance } from '#lib/governance/composition';
import { functionHandler } from '#lib/service/function-handler';

/** Every hour: records the compliance of each past day not recorded yet (the compliance trend). */
export const handler = functionHandler(async () => recordComplianceDays((await governance()).database));
