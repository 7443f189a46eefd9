// Types of the ES module entry point (index.mjs): the same declarations as index.d.ts.
import monapi from './index.js'

export * from './index.js'
export default monapi
