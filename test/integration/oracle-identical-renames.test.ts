/**
 * A mass rename of identical files (test-harness stubs, as in prettier's jsfmt.spec.js →
 * format.test.js): `git log -M` pairs each file with its own source, while git blame, git log -L and
 * git log --follow pick, per path, the first identical source. The oracle suite must still agree
 * with all three.
 */
import { describeOracle } from '../helpers/oracle-suite.js'
import { createRepo } from '../helpers/repo.js'

describeOracle('identical-file mass rename', () => {
  const repo = createRepo()
  const stub = 'run_spec(import.meta, ["babel"])\nexport const fixture = true\n'
  for (const dir of ['tests/arrows', 'tests/classes', 'tests/decorators']) {
    repo.write(`${dir}/jsfmt.spec.js`, stub)
    repo.write(`${dir}/input.js`, `// ${dir} input\nconst value = "${dir}"\n`)
    repo.commit(`Add ${dir}`)
  }
  repo.write('tests/classes/jsfmt.spec.js', stub + '// classes only\n').commit('Classes get a note')
  repo.write('tests/classes/jsfmt.spec.js', stub).commit('Drop the note again')
  for (const dir of ['tests/arrows', 'tests/classes', 'tests/decorators']) repo.move(`${dir}/jsfmt.spec.js`, `${dir}/format.test.js`)
  repo.commit('Rename every jsfmt.spec.js to format.test.js')
  repo.write('tests/decorators/format.test.js', stub + '// decorators extra\n').commit('Extend decorators spec')
  return { name: 'identical renames', repo, notes: 'identical files renamed together', cleanup: () => repo.cleanup() }
})
