// @ts-check
// The package's types in JavaScript, checked by TypeScript through JSDoc: the sample of
// docs/guides/node.md ("TypeScript"). tests/node/samples.test.mjs type-checks it with tsc
// (strict) and runs it against the emulator, the account in the MONAPI_* variables.

// --8<-- [start:typed]
import { Client, MonapiError } from 'monapi'

/**
 * The mean of each metric of a service task's report: from the typed column of every value
 * and the rows' metric names.
 *
 * @param {Client} client
 * @param {number} taskId
 * @returns {Promise<Map<string, number>>}
 */
async function means(client, taskId) {
  /** @type {import('monapi').Table<import('monapi').ServiceReportRow>} */
  const report = await client.tables.serviceReport(taskId)
  const metrics = report.column('metric') // string[]
  const values = report.column('value') // Float64Array, NaN where the service sent nothing
  /** @type {Map<string, { sum: number, count: number }>} */
  const totals = new Map()
  metrics.forEach((metric, row) => {
    if (Number.isNaN(values[row])) return
    const total = totals.get(metric) ?? { sum: 0, count: 0 }
    totals.set(metric, { sum: total.sum + values[row], count: total.count + 1 })
  })
  return new Map([...totals].map(([metric, { sum, count }]) => [metric, sum / count]))
}

const client = new Client()
try {
  for (const [metric, mean] of await means(client, 10001)) console.log(`${metric}: ${mean.toFixed(2)}`)
} catch (error) {
  // error is `unknown` here: narrowed to a MonapiError, its fields are typed.
  if (!(error instanceof MonapiError)) throw error
  console.error(`${error.code}: ${error.message}`)
  process.exitCode = 1
} finally {
  await client.close()
}
// --8<-- [end:typed]
