/** Tokens as JavaScript sees them: plain objects that never print their secrets. */

import util = require('node:util')

import type { Token } from './data.js'

function safeIso(seconds: number): string | null {
  const date = new Date(seconds * 1000)
  return Number.isNaN(date.getTime()) ? null : date.toISOString()
}

/**
 * `util.inspect` of a token (`this`): its type and expiry, never the token values. Installed
 * as a non-enumerable own property, so JSON, spreading and deep equality ignore it.
 */
function inspectToken(
  this: Token,
  depth: number,
  inspectOptions: util.InspectOptionsStylized,
  inspect: typeof util.inspect = util.inspect,
): string {
  const expiresAt = typeof this.expires_at === 'number' ? this.expires_at : null
  const shown = {
    token_type: this.token_type,
    expires_in: this.expires_in,
    expires_at: expiresAt,
    expires: expiresAt === null ? null : safeIso(expiresAt),
    access_token: '[redacted]',
    refresh_token: this.refresh_token === undefined || this.refresh_token === null ? this.refresh_token : '[redacted]',
  }
  return `Token ${inspect(shown, { ...inspectOptions, depth })}`
}

/** A token (JSON from the native side) as a plain object that does not print its secrets. */
export function token(json: string): Token {
  const value = JSON.parse(json) as Token
  Object.defineProperty(value, util.inspect.custom, {
    value: inspectToken,
    enumerable: false,
    writable: true,
    configurable: true,
  })
  return value
}
