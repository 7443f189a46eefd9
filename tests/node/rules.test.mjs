// @ts-check
// The core's rules as JavaScript sees them: server tasks with the core's defaults and every
// problem named at once, and request() for the operations without a method of their own.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { MonapiError } from 'monapi'

import { emulator, fixture, linuxTask, rejects } from './helpers.mjs'

test('a minimal task is stored as from Rust and Python', async (t) => {
  const emu = await emulator(t)
  const minimal = fixture('minimal_server_task.json')
  assert.deepEqual(await emu.client().createServerTasks([minimal.input]), [{ task_id: 30001 }])
  assert.deepEqual(emu.serverTasks(), [minimal.stored])
})

test('every problem of a batch at once, the first in the message and the fields', async (t) => {
  const emu = await emulator(t)
  /** @type {any[]} */
  const bad = [
    linuxTask('ok'),
    { server_name: 'win', server_ip: '10.0.0.2', server_systype: 1, task_type: ['cpu'] },
    { ...linuxTask('b'), frequency: 0 },
  ]
  const err = await rejects(emu.client().createServerTasks(bad), 'INVALID_INPUT')
  assert.deepEqual(
    err.errors?.map((p) => [p.index, p.field]),
    [
      [1, 'private_ip'],
      [1, 'task_type'],
      [2, 'frequency'],
    ],
  )
  assert.deepEqual([err.index, err.field, err.failedIndex], [1, 'private_ip', 1])
  assert.match(err.message, /^invalid input: task 1: `private_ip` is required.*; 2 more problems: task 1: `task_type` indicator "cpu" is not allowed/)
  assert.ok(JSON.stringify(err.errors).includes('"rule"'))
  assert.equal(emu.counters().total, 0)
})

test('request() reaches any operation, with the errors of the others', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  assert.deepEqual(await client.request({ method: 'GET', path: '/v2/agent/lists.json' }), await client.agents())
  const page = /** @type {any[]} */ (await client.request({ method: 'get', path: '/v2/service/lists.json', query: { page: 3 } }))
  assert.equal(page.length, 20)
  assert.equal(page[0].task_id, '10101')
  const missing = await rejects(client.request({ method: 'GET', path: '/v2/alert/lists.json' }), 'API_ERROR')
  assert.deepEqual([missing.status, missing.endpoint], [404, 'GET /v2/alert/lists.json'])
  const bad = await rejects(client.request({ method: 'GET', path: '/v2/agent/lists.json', query: /** @type {any} */ ({ a: {} }) }), 'INVALID_INPUT')
  assert.equal(bad.field, 'query.a')
  assert.ok(bad instanceof MonapiError)
})

test('request() posts a form once, and retries a GET', async (t) => {
  const emu = await emulator(t)
  const client = emu.client()
  const data = JSON.stringify([linuxTask('raw')])
  assert.deepEqual(await client.request({ method: 'POST', path: '/v2/server/create.json', form: { data } }), [{ task_id: 30001 }])
  emu.setFaults({ next: ['error503'] })
  await rejects(client.request({ method: 'POST', path: '/v2/server/create.json', form: { data } }), 'API_ERROR')
  assert.equal(emu.counters().create, 2, 'a POST is never repeated')
  emu.setFaults({ next: ['error503'] })
  await client.request({ method: 'GET', path: '/v2/agent/lists.json' })
  assert.equal(emu.counters().agents, 2, 'a GET is retried')
})
