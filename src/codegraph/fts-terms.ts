/**
 * Kuzu's full-text tokenizer (kuzu 0.11.3, extension/fts: create_fts_index.cpp's tokenize macro
 * and fts_config.cpp's default stop words), applied once when a text is stored instead of on
 * every token while the index is built.
 *
 * Kuzu makes a row's terms as `string_split(lower(regexp_replace(text, IGNORE, ' ')), ' ')`, drops
 * empty tokens and its English stop words, and stems the rest. Building git/git's doc_search
 * index went one row per token through that (~5 million rows for 82,000 commit messages); a text
 * that holds only the terms Kuzu keeps gives the same terms, term frequencies and row lengths,
 * so the same BM25 scores, from ~a third fewer tokens. Kuzu still tokenizes what it is given,
 * so anything this leaves in is treated as before. (Here, beside search-text.ts, it is part of the
 * extraction code whose fingerprint makes an index rebuild its symbols when it changes.)
 */

/** Kuzu's default `ignore_pattern`: digits and ASCII punctuation (not the backslash) become spaces. */
const IGNORE = /[0-9!@#$%^&*()_+={}[\]:;<>,.?~\/|'"`-]+/g

/**
 * Kuzu's default English stop words, less the 47 that hold an apostrophe (`don't`): IGNORE has
 * split those before the list is asked. `test/graph/fts-terms.test.ts` checks each against
 * Kuzu's own index.
 */
export const FTS_STOP_WORDS: ReadonlySet<string> = new Set(
  `
  a able about above according accordingly across actually after afterwards again against all
  allow allows almost alone along already also although always am among amongst an and another
  any anybody anyhow anyone anything anyway anyways anywhere apart appear appreciate appropriate
  are around as aside ask asking associated at available away awfully b be became because become
  becomes becoming been before beforehand behind being believe below beside besides best better
  between beyond both brief but by c came can cannot cant cause causes certain certainly changes
  clearly co com come comes concerning consequently consider considering contain containing
  contains corresponding could course currently d definitely described despite did different do
  does doing done down downwards during e each edu eg eight either else elsewhere enough entirely
  especially et etc even ever every everybody everyone everything everywhere ex exactly example
  except f far few fifth first five followed following follows for former formerly forth four
  from further furthermore g get gets getting given gives go goes going gone got gotten greetings
  h had happens hardly has have having he hello help hence her here hereafter hereby herein
  hereupon hers herself hi him himself his hither hopefully how howbeit however i ie if ignored
  immediate in inasmuch inc indeed indicate indicated indicates inner insofar instead into inward
  is it its itself j just k keep keeps kept know knows known l last lately later latter latterly
  least less lest let like liked likely little look looking looks ltd m mainly many may maybe me
  mean meanwhile merely might more moreover most mostly much must my myself n name namely nd near
  nearly necessary need needs neither never nevertheless new next nine no nobody non none noone
  nor normally not nothing novel now nowhere o obviously of off often oh ok okay old on once one
  ones only onto or other others otherwise ought our ours ourselves out outside over overall own
  p particular particularly per perhaps placed please plus possible presumably probably provides
  q que quite qv r rather rd re really reasonably regarding regardless regards relatively
  respectively right s said same saw say saying says second secondly see seeing seem seemed
  seeming seems seen self selves sensible sent serious seriously seven several shall she should
  since six so some somebody somehow someone something sometime sometimes somewhat somewhere soon
  sorry specified specify specifying still sub such sup sure t take taken tell tends th than
  thank thanks thanx that thats the their theirs them themselves then thence there thereafter
  thereby therefore therein theres thereupon these they think third this thorough thoroughly
  those though three through throughout thru thus to together too took toward towards tried tries
  truly try trying twice two u un under unfortunately unless unlikely until unto up upon us use
  used useful uses using usually uucp v value various very via viz vs w want wants was way we
  welcome well went were what whatever when whence whenever where whereafter whereas whereby
  wherein whereupon wherever whether which while whither who whoever whole whom whose why will
  willing wish with within without wonder would x y yes yet you your yours yourself yourselves z
  zero
`
    .trim()
    .split(/\s+/),
)

const UPPER = /[A-Z]+/g

/**
 * The terms of `text` that Kuzu's full-text index keeps, space-separated, before stemming; ''
 * when there are none. ASCII letters are lower-cased here as Kuzu would; any other letter is left
 * for Kuzu's own `lower` (what it gives a character JavaScript's `toLowerCase` might not).
 */
export function ftsTerms(text: string): string {
  const out: string[] = []
  for (const token of text.replace(IGNORE, ' ').replace(UPPER, (s) => s.toLowerCase()).split(' ')) {
    if (token && !FTS_STOP_WORDS.has(token)) out.push(token)
  }
  return out.join(' ')
}
