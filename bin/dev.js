#!/usr/bin/env node
// Runs the built CLI without the oclif manifest cache, for development after `npm run build`.
import { execute } from '@oclif/core'

await execute({ development: true, dir: import.meta.url })
