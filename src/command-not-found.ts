import type { Hook } from '@oclif/core'
import { reportUserError } from './views/report.js'
import { UserError, editDistance } from './errors.js'

/**
 * oclif's `command_not_found` hook: a mistyped command is the user's to fix (exit 1), with the
 * nearest commands. oclif joins the words typed before the first flag with `:` (`gitwhy evidnce
 * src/a.ts` arrives as `evidnce:src/a.ts`), so each command is compared with as many typed words
 * as it has.
 */
const commandNotFound: Hook.CommandNotFound = async function (options) {
  const typed = options.id.split(':')
  const commands = options.config.commands.filter((c) => !c.hidden).map((c) => c.id.split(':'))
  const scored = commands.map((words) => {
    const name = words.join(' ')
    const given = typed.slice(0, words.length).join(' ')
    // a prefix (`gitwhy evid`) or a small typo, relative to the command's length
    const distance = name.startsWith(given) && given.length >= 3 ? 0 : editDistance(given, name)
    return { name, distance, fits: distance <= Math.max(1, Math.floor(name.length / 3)) }
  })
  const best = Math.min(...scored.filter((s) => s.fits).map((s) => s.distance))
  const nearest = scored.filter((s) => s.fits && s.distance === best).map((s) => s.name).sort()
  const topics = new Set(commands.filter((w) => w.length > 1).map((w) => w[0]))
  const shown = typed.slice(0, topics.has(typed[0]) ? 2 : 1).join(' ')
  const all = commands.map((w) => w.join(' ')).sort()
  const error = new UserError(
    `${shown} is not a gitwhy command`,
    nearest.length
      ? `did you mean ${nearest.map((n) => `\`gitwhy ${n}\``).join(' or ')}? (\`gitwhy --help\` lists every command)`
      : `use one of: ${all.join(', ')} (\`gitwhy --help\` describes them)`,
    'unknown_command',
  )
  reportUserError(error, (options.argv ?? []).includes('--json'))
  this.exit(1)
}

export default commandNotFound
