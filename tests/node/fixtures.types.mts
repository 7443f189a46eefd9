// Type-level contract: the spec's example payloads (tests/fixtures) fit the published types.
// Checked by `tsc --noEmit -p tests/node` only (not run).

import type { Agents, CreatedTask, Distribution, ServerTaskInput, ServiceReport, ServiceTask, SiteReport } from 'monapi'

import agents from '../fixtures/agents.json' with { type: 'json' }
import createRequest from '../fixtures/create_request.json' with { type: 'json' }
import createResponse from '../fixtures/create_response.json' with { type: 'json' }
import distribution from '../fixtures/response_time_distribution.json' with { type: 'json' }
import serviceReport from '../fixtures/service_report_apache.json' with { type: 'json' }
import serviceTasks from '../fixtures/service_tasks.json' with { type: 'json' }
import siteReport from '../fixtures/site_report.json' with { type: 'json' }

export const checked: [Agents, ServerTaskInput[], CreatedTask[], Distribution, ServiceReport, ServiceTask[], SiteReport] = [
  agents,
  createRequest as ServerTaskInput[],
  createResponse,
  distribution,
  serviceReport,
  serviceTasks,
  siteReport,
]
