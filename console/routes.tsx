import { MANAGE_BINDINGS } from './api/access';
import { READ_EVIDENCE } from './api/evidence';
import { AccessPage } from './pages/access';
import { ApprovalPage, ApprovalsPage } from './pages/approvals';
import { EntityDetailPage } from './pages/entity-detail';
import { EntityEditorPage } from './pages/entity-editor';
import { EntityListPage } from './pages/entity-list';
import { EvidencePage } from './pages/evidence';
import { OverviewPage } from './pages/overview';
import { ReportPage } from './pages/report';
import { ResourcePage } from './pages/resource';
import { ResourcesPage } from './pages/resources';
import type { Route } from './router';

/**
 * Every page of the console: the first route whose path matches the address is shown; the ones
 * with `nav` are the navigation, in this order. A new page is a file in pages/ and a line here.
 */
export const routes: readonly Route[] = [
  { path: '/overview', title: 'Overview', nav: 'Overview', page: (props) => <OverviewPage {...props} /> },
  { path: '/policies', title: 'Policies', nav: 'Policies', page: (props) => <EntityListPage collection="policies" {...props} /> },
  { path: '/metrics', title: 'Metrics', nav: 'Metrics', page: (props) => <EntityListPage collection="metrics" {...props} /> },
  { path: '/policies/new', title: 'New policy', page: (props) => <EntityEditorPage collection="policies" {...props} /> },
  { path: '/metrics/new', title: 'New metric', page: (props) => <EntityEditorPage collection="metrics" {...props} /> },
  { path: '/policies/:id', title: 'Policy', page: (props) => <EntityDetailPage collection="policies" {...props} /> },
  { path: '/metrics/:id', title: 'Metric', page: (props) => <EntityDetailPage collection="metrics" {...props} /> },
  { path: '/policies/:id/edit', title: 'Policy editor', page: (props) => <EntityEditorPage collection="policies" {...props} /> },
  { path: '/metrics/:id/edit', title: 'Metric editor', page: (props) => <EntityEditorPage collection="metrics" {...props} /> },
  { path: '/resources', title: 'Resources', nav: 'Resources', page: (props) => <ResourcesPage {...props} /> },
  { path: '/resources/:environment/:id', title: 'Resource', page: (props) => <ResourcePage {...props} /> },
  { path: '/reports/:id', title: 'Evaluation report', page: (props) => <ReportPage {...props} /> },
  { path: '/approvals', title: 'Approvals', nav: 'Approvals', page: (props) => <ApprovalsPage {...props} /> },
  { path: '/approvals/:id', title: 'Request for approval', page: (props) => <ApprovalPage {...props} /> },
  { path: '/evidence', title: 'Evidence', nav: 'Evidence', permission: READ_EVIDENCE, page: (props) => <EvidencePage {...props} /> },
  { path: '/access', title: 'Access', nav: 'Access', permission: MANAGE_BINDINGS, page: () => <AccessPage /> },
];
