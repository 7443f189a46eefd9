// Type-level contract: the service's documented payloads (tests/fixtures) fit the published types,
// and so do the other shapes the service may send.
// Checked by `tsc --noEmit -p tests/node` only (not run).

import type {
  Agents,
  Bucket,
  CreatedTask,
  Distribution,
  SavedToken,
  ServerTaskInput,
  ServiceRecord,
  ServiceReport,
  ServiceTask,
  SiteReport,
  Token,
} from 'monapi'

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

// Shapes the service may send that the fixtures do not show, and what callers get from them.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/** An empty service report may arrive as `[]` (PHP's empty map). */
export const emptyReport: ServiceReport = []
declare const report: ServiceReport
const series = Object.entries(report)
/** Either form iterates to typed records, not `any`. */
export const seriesAreTyped: Equal<typeof series, [string, ServiceRecord[]][]> = true

/** Numbers the documentation calls strings arrive as sent. */
export const stringBucket: Bucket = { start: '0', end: '100', count: '3', percent: '11.81' }
export const stringId: CreatedTask = { task_id: '30001' }

/** A token saved straight from the service: no `expires_at`, `expires_in` possibly a string. */
export const asSent: SavedToken = { access_token: 'a1', expires_in: '3600', token_type: 'bearer', scope: null, refresh_token: 'r1' }
declare const issued: Token
export const issuedIsSaved: SavedToken = issued
