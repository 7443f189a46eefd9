// ES module entry point: the same classes as the CommonJS entry (index.js), so that
// `instanceof MonapiError` holds whichever way the package was loaded.
import monapi from './index.js'

export const { Client, Emulator, Table, MonapiError, ERROR_CODES, PAGE_SIZE, VERSION } = monapi
export default monapi
