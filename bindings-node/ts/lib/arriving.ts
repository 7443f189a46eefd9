/**
 * A large report built while it arrives. The core hands its body over in pieces as they come
 * (`answer.rs` in the native part: runs of the members of the objects it opens), and each is
 * parsed at once by `JSON.parse`, so that on a slow link the objects are ready about when the
 * last byte is. The objects are exactly those `JSON.parse` gives for the whole body.
 */

import { parse } from './args.js'

type JsonObject = Record<string, unknown>

/** The pieces of one call: its attempts (a retry begins again), each built from its pieces. */
export class Arrival {
  readonly #method: string
  /** Attempts begun, and the last whose pieces have all come. */
  #begun = 0
  #ended = 0
  /** The objects open, innermost last, each under its key in the one before. */
  #open: Array<[string, JsonObject]> = []
  #failure: unknown = undefined
  #waiting: (() => void) | undefined

  constructor(method: string) {
    this.#method = method
  }

  /** Takes one piece: a kind letter, then its text. Never throws (it runs as a native callback). */
  readonly onPiece = (piece: string): void => {
    try {
      switch (piece.charAt(0)) {
        case 'b':
          this.#begun += 1
          this.#open = [['', {}]]
          this.#failure = undefined
          break
        case 'm':
          this.#members(parse<JsonObject>(piece.slice(1), this.#method))
          break
        case 'o':
          this.#open.push([parse<string>(piece.slice(1), this.#method), {}])
          break
        case 'c': {
          const [key, object] = this.#open.pop() as [string, JsonObject]
          set(this.#innermost(), key, object)
          break
        }
        case 'e':
          this.#ended = this.#begun
          this.#waiting?.()
          break
      }
    } catch (error) {
      this.#failure ??= error
    }
  }

  /** The objects of attempt `attempt` (what the native call resolved with), once its last piece came. */
  async value(attempt: number): Promise<unknown> {
    while (this.#ended < attempt) {
      await new Promise<void>((resolve) => {
        this.#waiting = resolve
      })
    }
    if (this.#failure !== undefined) throw this.#failure
    return this.#open[0][1]
  }

  #innermost(): JsonObject {
    return this.#open[this.#open.length - 1][1]
  }

  #members(run: JsonObject): void {
    const into = this.#innermost()
    for (const key in run) set(into, key, run[key])
  }
}

/** `object[key] = value` as `JSON.parse` does it: `__proto__` too is an own property. */
function set(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
  } else {
    object[key] = value
  }
}
